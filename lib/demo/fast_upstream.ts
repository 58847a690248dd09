/**
 * A minimal hand-written JSON-RPC responder that looks enough like an MCP server for benchmarks
 * (DESIGN §6): no SDK, no per-request server, responses built from precomputed strings.
 *
 * POST with a JSON-RPC request: `initialize` → a minimal initialize result plus a fresh
 * `Mcp-Session-Id` header; any other request → a fixed `tools/list` result with the request's id;
 * a notification or response (no `method`+`id` pair) → 202; a batch → an array of the above.
 * Unparseable JSON → 400 with JSON-RPC error -32700; parseable but not a JSON-RPC message → 400
 * with -32600. GET → 405; DELETE → 200 (sessions are not tracked).
 * @module
 */
import { urlHostFor } from "./upstream_mcp.ts";

/** Options for {@linkcode startFastUpstream}. */
export interface FastUpstreamOptions {
  /** TCP port; 0 or absent picks an ephemeral port. */
  port?: number;
  /** Interface to bind; default "127.0.0.1". */
  hostname?: string;
}

/** A running fast upstream: its MCP URL, port, and an idempotent `close()`. */
export interface RunningFastUpstream {
  /** `http://<host>:<port>/mcp` (any path is answered the same way). */
  url: string;
  /** The bound TCP port. */
  port: number;
  /** Stops the HTTP server; resolves once it has finished. */
  close(): Promise<void>;
}

/** The fixed tool list every non-initialize request is answered with. */
export const FAST_UPSTREAM_TOOLS = [
  {
    name: "echo",
    description: "Echo the text back (fast upstream)",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
    },
  },
  {
    name: "add",
    description: "Add two numbers (fast upstream)",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
];

const TOOLS_RESULT = JSON.stringify({ tools: FAST_UPSTREAM_TOOLS });
const INIT_RESULT = JSON.stringify({
  protocolVersion: "2025-06-18",
  capabilities: { tools: { listChanged: false } },
  serverInfo: { name: "fast", version: "1.0.0" },
});
const JSON_HEADERS = { "content-type": "application/json" };

function errorBody(code: number, message: string): string {
  return `{"jsonrpc":"2.0","error":{"code":${code},"message":${
    JSON.stringify(message)
  }},"id":null}`;
}
const PARSE_ERROR = errorBody(-32700, "Parse error: Invalid JSON");
const INVALID_REQUEST = errorBody(-32600, "Invalid Request");
const METHOD_NOT_ALLOWED = errorBody(-32000, "Method not allowed.");

type Answer = string | null | undefined; // string: response body; null: no response; undefined: invalid

function answer(msg: unknown, init: { yes: boolean }): Answer {
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return undefined;
  const m = msg as { jsonrpc?: unknown; id?: unknown; method?: unknown };
  if (m.jsonrpc !== "2.0") return undefined;
  const id = m.id;
  if (typeof m.method !== "string") return id === undefined ? undefined : null; // a response
  if (id === undefined) return null; // a notification
  if (typeof id !== "string" && typeof id !== "number") return undefined;
  const idText = typeof id === "number" ? String(id) : JSON.stringify(id);
  if (m.method === "initialize") {
    init.yes = true;
    return `{"jsonrpc":"2.0","id":${idText},"result":${INIT_RESULT}}`;
  }
  return `{"jsonrpc":"2.0","id":${idText},"result":${TOOLS_RESULT}}`;
}

async function handle(req: Request): Promise<Response> {
  if (req.method !== "POST") {
    if (req.method === "DELETE") return new Response(null, { status: 200 });
    return new Response(METHOD_NOT_ALLOWED, {
      status: 405,
      headers: { "content-type": "application/json", allow: "POST, DELETE" },
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(await req.text());
  } catch {
    return new Response(PARSE_ERROR, { status: 400, headers: JSON_HEADERS });
  }
  const init = { yes: false };
  let out: string | null;
  if (Array.isArray(body)) {
    if (body.length === 0) {
      return new Response(INVALID_REQUEST, { status: 400, headers: JSON_HEADERS });
    }
    const parts: string[] = [];
    for (const msg of body) {
      const a = answer(msg, init);
      if (a === undefined) {
        return new Response(INVALID_REQUEST, { status: 400, headers: JSON_HEADERS });
      }
      if (a !== null) parts.push(a);
    }
    out = parts.length ? `[${parts.join(",")}]` : null;
  } else {
    const a = answer(body, init);
    if (a === undefined) {
      return new Response(INVALID_REQUEST, { status: 400, headers: JSON_HEADERS });
    }
    out = a;
  }
  if (out === null) return new Response(null, { status: 202 });
  if (init.yes) {
    return new Response(out, {
      headers: { "content-type": "application/json", "mcp-session-id": crypto.randomUUID() },
    });
  }
  return new Response(out, { headers: JSON_HEADERS });
}

/** Starts the fast benchmark upstream; prints nothing. */
export async function startFastUpstream(
  opts: FastUpstreamOptions = {},
): Promise<RunningFastUpstream> {
  const hostname = opts.hostname ?? "127.0.0.1";
  const ac = new AbortController();
  const { promise: listening, resolve: onListening } = Promise.withResolvers<Deno.NetAddr>();
  const server = Deno.serve({
    port: opts.port ?? 0,
    hostname,
    signal: ac.signal,
    onListen: (addr) => onListening(addr as Deno.NetAddr),
    onError: () =>
      new Response(errorBody(-32603, "Internal error"), { status: 500, headers: JSON_HEADERS }),
  }, handle);
  const addr = await listening;
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (ac.abort(), server.finished);
    return closed;
  };
  return { url: `http://${urlHostFor(hostname)}:${addr.port}/mcp`, port: addr.port, close };
}
