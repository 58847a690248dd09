/** Factories for MCP tests: tokens straight through lib, JSON-RPC requests, a recording upstream. */
import type { AppDeps } from "../../../lib/context.ts";
import { createToken } from "../../../lib/tokens/lifecycle.ts";
import type { TestEnv } from "../../helpers.ts";
import { closeGatewayFor } from "../../../lib/mcp/gateway.ts";

/** A token of `userId` for `serverIds`: its secret and id. */
export async function tokenFor(
  deps: AppDeps,
  userId: string,
  serverIds: string[],
  extra: { allowed_ips?: string[] | null; expires_in_days?: number } = {},
): Promise<{ secret: string; id: string }> {
  const issued = await createToken(deps, userId, {
    name: "test",
    server_ids: serverIds,
    expires_in_days: extra.expires_in_days ?? 30,
    allowed_ips: extra.allowed_ips ?? null,
  }, { ip: null, user_agent: null });
  return { secret: issued.secret, id: issued.record.id };
}

/** The header both kinds of answer accept. */
export const ACCEPT_BOTH = "application/json, text/event-stream";

/** A JSON-RPC `tools/list` body. */
export const TOOLS_LIST = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/list",
  params: {},
});

/** A JSON-RPC `initialize` body. */
export const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "test", version: "0" },
  },
});

/** Sends an MCP request to `path` of the test app with a Bearer secret (when given). */
export function mcp(
  env: TestEnv,
  path: string,
  opts: {
    secret?: string;
    method?: string;
    body?: string;
    headers?: Record<string, string>;
    ip?: string;
  } = {},
): Promise<Response> {
  const headers = new Headers({ "content-type": "application/json", accept: ACCEPT_BOTH });
  if (opts.secret) headers.set("authorization", `Bearer ${opts.secret}`);
  for (const [k, v] of Object.entries(opts.headers ?? {})) headers.set(k, v);
  const method = opts.method ?? "POST";
  const url = path.startsWith("http") ? path : `http://localhost:8000${path}`;
  return Promise.resolve(env.app.request(url, {
    method,
    headers,
    body: method === "POST" ? (opts.body ?? TOOLS_LIST) : undefined,
  }, opts.ip ? { remoteAddr: { hostname: opts.ip } } : undefined));
}

/** Closes the env's gateway and KV. */
export async function closeEnv(env: TestEnv): Promise<void> {
  await closeGatewayFor(env.deps);
  env.close();
}

/** One request an upstream received. */
export interface Seen {
  method: string;
  headers: Headers;
  body: string;
}

/** A tiny upstream that records requests and answers with `reply` (default: a tools/list). */
export function recordingUpstream(
  reply?: (req: Request, body: string) => Response | Promise<Response>,
): { url: string; seen: Seen[]; close(): Promise<void> } {
  const seen: Seen[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const body = await req.text();
    seen.push({ method: req.method, headers: req.headers, body });
    if (reply) return await reply(req, body);
    const id = body ? JSON.parse(body).id ?? null : null;
    return Response.json({ jsonrpc: "2.0", id, result: { tools: [] } }, {
      headers: body.includes('"initialize"') ? { "mcp-session-id": "upstream-session-1" } : {},
    });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    seen,
    close: () => server.shutdown(),
  };
}
