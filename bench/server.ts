/**
 * One benchmark participant per process (spawned by bench/mcp_proxy.ts), so none shares the
 * driver's or another participant's event loop. Prints one JSON line `{url, ...}` once listening.
 *
 *   deno run -A bench/server.ts upstream
 *   deno run -A bench/server.ts proxy <upstream url>
 *   deno run -A bench/server.ts proxy-http1 <upstream url>
 *   deno run -A bench/server.ts toolgate <upstream url> <kv file> [extra tokens]
 */
import { startFastUpstream } from "../lib/demo/fast_upstream.ts";
import { loadConfig } from "../lib/config.ts";
import { startToolgate } from "../lib/start.ts";
import { createUser } from "../lib/accounts/users.ts";
import { createServer, deployVersion } from "../lib/servers/servers.ts";
import { createToken } from "../lib/tokens/lifecycle.ts";
import { tokenByHashKey, tokenKey } from "../lib/kv/keys.ts";
import type { TokenRecord } from "../lib/tokens/store.ts";
import { Http1Client } from "../lib/mcp/http1_client.ts";

const [mode, upstreamUrl, kvPath, extraTokens] = Deno.args;

/** How a bench proxy sends one request upstream. */
type Transport = (
  method: string,
  headers: Record<string, string>,
  body: Uint8Array<ArrayBuffer> | null,
) => Promise<{ status: number; header(name: string): string | null; body: BodyInit | null }>;

/** `fetch`: the floor any gateway pays (DESIGN 6). */
function viaFetch(target: string): Transport {
  return async (method, headers, body) => {
    const res = await fetch(target, { method, headers, body });
    return { status: res.status, header: (h) => res.headers.get(h), body: res.body };
  };
}

/**
 * toolgate's own upstream client: set against toolgate, it shows what the gateway logic costs on
 * top of its transport (for the record; the DESIGN bar is against the fetch proxy).
 */
function viaHttp1(target: string): Transport {
  const url = new URL(target);
  const client = new Http1Client();
  return async (method, headers, body) => {
    const res = await client.request({ method, url, headers, body });
    return { status: res.status, header: (h) => res.headers.get(h) ?? null, body: res.body };
  };
}

/** A bare pass-through proxy: the MCP transport headers in, the answer streamed back. */
function startBareProxy(send: Transport): string {
  const passed = ["content-type", "accept", "mcp-session-id", "mcp-protocol-version"];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (req) => {
    const headers: Record<string, string> = {};
    for (const h of passed) {
      const v = req.headers.get(h);
      if (v !== null) headers[h] = v;
    }
    const body = req.method === "POST" ? new Uint8Array(await req.arrayBuffer()) : null;
    const res = await send(req.method, headers, body);
    const out: Record<string, string> = {};
    for (const h of ["content-type", "mcp-session-id"]) {
      const v = res.header(h);
      if (v !== null) out[h] = v;
    }
    return new Response(res.body, { status: res.status, headers: out });
  });
  return `http://127.0.0.1:${server.addr.port}/mcp`;
}

/** Writes `n` stand-in token records (random hashes) so the KV holds that many tokens. */
async function storeExtraTokens(kv: Deno.Kv, n: number, userId: string, serverId: string) {
  const now = new Date().toISOString();
  const expires = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const PER_ATOMIC = 400;
  for (let i = 0; i < n; i += PER_ATOMIC) {
    const op = kv.atomic();
    for (let j = i; j < Math.min(n, i + PER_ATOMIC); j++) {
      const id = crypto.randomUUID();
      const hash = crypto.randomUUID().replace(/-/g, "") + crypto.randomUUID().replace(/-/g, "");
      const rec: TokenRecord = {
        id,
        user_id: userId,
        name: `filler ${j}`,
        hash,
        prefix: "svc_filler00",
        server_ids: [serverId],
        allowed_ips: null,
        created_at: now,
        expires_at: expires,
        revoked_at: null,
      };
      op.set(tokenKey(id), rec).set(tokenByHashKey(hash), id);
    }
    const res = await op.commit();
    if (!res.ok) throw new Error("filler commit failed");
  }
}

async function startBenchToolgate(target: string, path: string, extra: number) {
  const config = loadConfig({
    SEED_DEMO: "false",
    KV_PATH: path,
    PORT: "0",
    HOSTNAME_BIND: "127.0.0.1",
  });
  const tg = await startToolgate(config, { log: () => {}, passwordIterations: 1000 });
  const deps = tg.deps;
  const user = await createUser(deps, `bench-${crypto.randomUUID()}@example.com`, "password123");
  const server = await createServer(deps, user.id, {
    slug: "bench",
    name: "Bench",
    rate_limit: { limit: 1_000_000, window: "minute" },
  });
  await deployVersion(deps, "bench", user.id, { version: "1.0.0", upstream_url: target });
  if (extra > 0) await storeExtraTokens(deps.kv, extra, user.id, server.id);
  const { secret } = await createToken(deps, user.id, {
    name: "bench",
    server_ids: [server.id],
    expires_in_days: 7,
  }, { ip: null, user_agent: null });
  return { url: `${tg.listenUrl}/s/bench/v1`, secret };
}

let ready: Record<string, unknown>;
if (mode === "upstream") {
  ready = { url: (await startFastUpstream({ port: 0 })).url };
} else if (mode === "proxy") {
  ready = { url: startBareProxy(viaFetch(upstreamUrl)) };
} else if (mode === "proxy-http1") {
  ready = { url: startBareProxy(viaHttp1(upstreamUrl)) };
} else if (mode === "toolgate") {
  ready = await startBenchToolgate(upstreamUrl, kvPath, Number(extraTokens ?? 0));
} else {
  console.error(
    "usage: server.ts upstream | proxy <url> | proxy-http1 <url> | toolgate <url> <kv file> [n]",
  );
  Deno.exit(2);
}
console.log(JSON.stringify(ready));
