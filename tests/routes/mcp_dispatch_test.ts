/**
 * The MCP layer through `app.request()`: version resolution, session lock, forwarding (headers,
 * identity JWT, SSE streaming), upstream failures, body errors, and a warm path without KV.
 */
import assert from "node:assert/strict";
import { createLocalJWKSet, jwtVerify } from "jose";
import { randomUser, serverWith, testEnv } from "../helpers.ts";
import {
  closeEnv,
  INITIALIZE,
  mcp,
  recordingUpstream,
  type Seen,
  tokenFor,
} from "../lib/mcp/fixtures.ts";
import { deployVersion, retireVersion } from "../../lib/servers/servers.ts";
import { subscribe } from "../../lib/servers/subscriptions.ts";

/** An upstream whose answers name the version path they were sent to (`/mcp/<version>`). */
function versionedUpstream() {
  return recordingUpstream((req, body) => {
    const version = new URL(req.url).pathname.split("/").pop();
    const id = body ? JSON.parse(body).id ?? null : null;
    const init = body.includes('"initialize"');
    return Response.json({ jsonrpc: "2.0", id, result: { version } }, {
      headers: init ? { "mcp-session-id": `up-${version}-${crypto.randomUUID()}` } : {},
    });
  });
}

async function setup(versions: string[], env?: Record<string, string>) {
  const e = await testEnv({ env });
  const up = versionedUpstream();
  const owner = await randomUser(e.deps);
  let server = await serverWith(e.deps, owner.id, [], up.url);
  for (const version of versions) {
    server = await deployVersion(e.deps, server.slug, owner.id, {
      version,
      upstream_url: `${up.url}/${version}`,
    });
  }
  const token = await tokenFor(e.deps, owner.id, [server.id]);
  const deploy = (version: string) =>
    deployVersion(e.deps, server.slug, owner.id, {
      version,
      upstream_url: `${up.url}/${version}`,
    });
  const done = async () => {
    await closeEnv(e);
    await up.close();
  };
  return {
    env: e,
    up,
    owner,
    server,
    secret: token.secret,
    base: `/s/${server.slug}`,
    deploy,
    done,
  };
}

const HISTORIES: {
  name: string;
  deploys: string[];
  retire?: string[];
  expect: Record<string, string | null>;
}[] = [
  {
    name: "patch replaces patch; minors and majors coexist",
    deploys: ["1.0.0", "1.1.0", "1.1.1", "2.0.0"],
    expect: {
      "": "2.0.0",
      "/": "2.0.0",
      "/v1": "1.1.1",
      "/v1.0": "1.0.0",
      "/v1.1": "1.1.1",
      "/v1.1.1": "1.1.1",
      "/v1.1.0": null,
      "/v1.0.0": "1.0.0",
      "/v2": "2.0.0",
      "/v2/": "2.0.0",
      "/v3": null,
      "/v1.2": null,
      "/v2.0.0": "2.0.0",
    },
  },
  {
    name: "prereleases only by exact request",
    deploys: ["1.0.0", "2.0.0-beta.1"],
    expect: { "": "1.0.0", "/v2": null, "/v2.0": null, "/v2.0.0-beta.1": "2.0.0-beta.1" },
  },
  {
    name: "retired versions are not live",
    deploys: ["1.0.0", "1.2.0", "2.0.0"],
    retire: ["2.0.0", "1.2.0"],
    expect: { "": "1.0.0", "/v1": "1.0.0", "/v2": null, "/v1.2.0": null, "/v1.0.0": "1.0.0" },
  },
  {
    name: "highest major wins for / even when deployed first",
    deploys: ["3.0.0", "1.0.0", "2.5.9"],
    expect: { "": "3.0.0", "/v2": "2.5.9", "/v2.5": "2.5.9", "/v0": null },
  },
  {
    name: "nothing live",
    deploys: [],
    expect: { "": null, "/v1": null, "/v1.0.0": null },
  },
];

Deno.test("version resolution over deploy histories (SPEC 9)", async (t) => {
  for (const h of HISTORIES) {
    await t.step(h.name, async () => {
      const s = await setup(h.deploys);
      for (const v of h.retire ?? []) await retireVersion(s.env.deps, s.server.slug, s.owner.id, v);
      const latest = h.expect[""];
      for (const [path, want] of Object.entries(h.expect)) {
        const res = await mcp(s.env, `${s.base}${path}`, { secret: s.secret });
        const body = await res.json();
        assert.equal(res.headers.get("x-mcp-latest-version"), latest, `${path} latest`);
        if (want === null) {
          assert.equal(res.status, 404, path);
          assert.equal(res.headers.get("x-mcp-version"), null, path);
          assert.equal(body.error.code, -32004);
          assert.equal(body.error.data.latest_version, latest);
        } else {
          assert.equal(res.status, 200, path);
          assert.equal(res.headers.get("x-mcp-version"), want, path);
          assert.equal(body.result.version, want, `${path} reached the wrong upstream`);
        }
      }
      await s.done();
    });
  }
});

Deno.test("session lock: a deploy does not move a session; a new initialize re-resolves", async () => {
  const s = await setup(["1.0.0", "1.1.0"]);
  const init = await mcp(s.env, `${s.base}/v1`, { secret: s.secret, body: INITIALIZE });
  assert.equal(init.status, 200);
  assert.equal(init.headers.get("x-mcp-version"), "1.1.0");
  const sid = init.headers.get("mcp-session-id")!;
  assert.match(sid, /^[\x21-\x7e]{16,}$/);
  assert.doesNotMatch(sid, /^up-/, "the upstream's session id must stay behind ours");
  await init.body?.cancel();
  assert.equal(s.up.seen.at(-1)!.headers.get("mcp-session-id"), null);

  await s.deploy("1.1.1"); // replaces 1.1.0: no longer live
  const inSession = await mcp(s.env, `${s.base}/v1`, {
    secret: s.secret,
    headers: { "mcp-session-id": sid },
  });
  assert.equal(inSession.status, 200);
  assert.equal(inSession.headers.get("x-mcp-version"), "1.1.0");
  assert.equal(inSession.headers.get("x-mcp-latest-version"), "1.1.1");
  assert.equal((await inSession.json()).result.version, "1.1.0");
  assert.match(s.up.seen.at(-1)!.headers.get("mcp-session-id")!, /^up-1\.1\.0-/);

  const fresh = await mcp(s.env, `${s.base}/v1`, { secret: s.secret });
  assert.equal(fresh.headers.get("x-mcp-version"), "1.1.1", "no session: resolves afresh");
  await fresh.body?.cancel();

  const again = await mcp(s.env, `${s.base}/v1`, { secret: s.secret, body: INITIALIZE });
  assert.equal(again.headers.get("x-mcp-version"), "1.1.1");
  assert.notEqual(again.headers.get("mcp-session-id"), sid);
  await again.body?.cancel();
  await s.done();
});

Deno.test("sessions: exact pattern keeps working after its version stops being live", async () => {
  const s = await setup(["1.0.0"]);
  const init = await mcp(s.env, `${s.base}/v1.0.0`, { secret: s.secret, body: INITIALIZE });
  const sid = init.headers.get("mcp-session-id")!;
  await init.body?.cancel();
  await s.deploy("1.0.1");
  const res = await mcp(s.env, `${s.base}/v1.0.0`, {
    secret: s.secret,
    headers: { "mcp-session-id": sid },
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("x-mcp-version"), "1.0.0");
  await res.body?.cancel();
  await s.done();
});

Deno.test("sessions: unknown, foreign, ended and idle sessions are 404 so clients re-initialize", async (t) => {
  const s = await setup(["1.0.0"]);
  const init = await mcp(s.env, s.base, { secret: s.secret, body: INITIALIZE });
  const sid = init.headers.get("mcp-session-id")!;
  await init.body?.cancel();
  const expect404 = async (res: Response) => {
    assert.equal(res.status, 404);
    assert.equal(res.headers.get("x-mcp-latest-version"), "1.0.0");
    const body = await res.json();
    assert.equal(body.error.data.error, "session_not_found");
  };
  await t.step("unknown", async () => {
    await expect404(
      await mcp(s.env, s.base, { secret: s.secret, headers: { "mcp-session-id": "nope" } }),
    );
  });
  await t.step("another caller", async () => {
    const other = await randomUser(s.env.deps);
    await subscribe(s.env.deps, other.id, s.server.id);
    const { secret } = await tokenFor(s.env.deps, other.id, [s.server.id]);
    await expect404(await mcp(s.env, s.base, { secret, headers: { "mcp-session-id": sid } }));
  });
  await t.step("another server of the same caller", async () => {
    const second = await serverWith(s.env.deps, s.owner.id, ["1.0.0"], s.up.url + "/1.0.0");
    const { secret } = await tokenFor(s.env.deps, s.owner.id, [s.server.id, second.id]);
    const res = await mcp(s.env, `/s/${second.slug}`, {
      secret,
      headers: { "mcp-session-id": sid },
    });
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });
  await t.step("DELETE ends ours and the upstream's", async () => {
    const del = await mcp(s.env, s.base, {
      secret: s.secret,
      method: "DELETE",
      headers: { "mcp-session-id": sid },
    });
    assert.equal(del.status, 200);
    assert.equal(del.headers.get("x-mcp-version"), "1.0.0");
    await del.body?.cancel();
    const seen = s.up.seen.at(-1)!;
    assert.equal(seen.method, "DELETE");
    assert.match(seen.headers.get("mcp-session-id")!, /^up-1\.0\.0-/);
    await expect404(
      await mcp(s.env, s.base, { secret: s.secret, headers: { "mcp-session-id": sid } }),
    );
  });
  await t.step("idle too long", async () => {
    const res = await mcp(s.env, s.base, { secret: s.secret, body: INITIALIZE });
    const id = res.headers.get("mcp-session-id")!;
    await res.body?.cancel();
    (s.env.clock as { advance(ms: number): void }).advance(31 * 60_000);
    await expect404(
      await mcp(s.env, s.base, { secret: s.secret, headers: { "mcp-session-id": id } }),
    );
  });
  await s.done();
});

Deno.test("forwarding: transport headers pass, credentials never do, an identity JWT does", async () => {
  const s = await setup(["1.0.0"]);
  const res = await mcp(s.env, `${s.base}/v1`, {
    secret: s.secret,
    headers: {
      "mcp-protocol-version": "2025-06-18",
      "last-event-id": "ev-7",
      cookie: "tg_session=secret",
      "x-custom": "no",
    },
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  const seen: Seen = s.up.seen.at(-1)!;
  assert.equal(seen.headers.get("mcp-protocol-version"), "2025-06-18");
  assert.equal(seen.headers.get("last-event-id"), "ev-7");
  assert.equal(seen.headers.get("accept"), "application/json, text/event-stream");
  assert.equal(seen.headers.get("content-type"), "application/json");
  assert.equal(seen.headers.get("cookie"), null);
  assert.equal(seen.headers.get("x-custom"), null);
  const auth = seen.headers.get("authorization")!;
  assert.ok(!auth.includes(s.secret), "the client's token must not reach the upstream");
  const jwt = auth.replace(/^Bearer /, "");

  const jwks = await s.env.app.request("http://localhost:8000/.well-known/jwks.json");
  assert.equal(jwks.status, 200);
  const { payload, protectedHeader } = await jwtVerify(jwt, createLocalJWKSet(await jwks.json()), {
    issuer: "http://localhost:8000",
    audience: `${s.up.url}/1.0.0`,
    currentDate: new Date(s.env.clock.now()),
  });
  assert.equal(protectedHeader.alg, "ES256");
  assert.equal(payload.sub, s.owner.id);
  assert.equal(payload.credential_kind, "api_token");
  assert.equal(payload.server_id, s.server.id);
  assert.equal(payload.server_slug, s.server.slug);
  assert.equal(payload.version, "1.0.0");
  assert.equal(payload.exp! - payload.iat!, 300);

  // The signed assertion is reused, not signed per request.
  const again = await mcp(s.env, `${s.base}/v1`, { secret: s.secret });
  await again.body?.cancel();
  assert.equal(s.up.seen.at(-1)!.headers.get("authorization"), auth);
  await s.done();
});

Deno.test("forwarding streams text/event-stream without buffering", async () => {
  const e = await testEnv();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const up = recordingUpstream(() => {
    const enc = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async start(c) {
        c.enqueue(enc.encode('event: message\ndata: {"first":true}\n\n'));
        await held;
        c.enqueue(enc.encode('event: message\ndata: {"second":true}\n\n'));
        c.close();
      },
    });
    return new Response(body, { headers: { "content-type": "text/event-stream" } });
  });
  const owner = await randomUser(e.deps);
  const server = await serverWith(e.deps, owner.id, ["1.0.0"], up.url);
  const { secret } = await tokenFor(e.deps, owner.id, [server.id]);
  const res = await mcp(e, `/s/${server.slug}`, { secret, method: "GET" });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/event-stream");
  assert.equal(res.headers.get("x-mcp-version"), "1.0.0");
  const reader = res.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.match(first, /first/, "the first event arrives while the upstream still holds the rest");
  release();
  let rest = "";
  for (let r = await reader.read(); !r.done; r = await reader.read()) {
    rest += new TextDecoder().decode(r.value);
  }
  assert.match(rest, /second/);
  await closeEnv(e);
  await up.close();
});

Deno.test("upstream down → 502, too slow → 504, both with X-MCP-Version", async () => {
  const e = await testEnv({ env: { UPSTREAM_TIMEOUT_MS: "100" } });
  const slow = recordingUpstream(async () => {
    await new Promise((r) => setTimeout(r, 400));
    return new Response("{}");
  });
  const owner = await randomUser(e.deps);
  const down = await serverWith(e.deps, owner.id, ["1.0.0"], "http://127.0.0.1:9/mcp");
  const late = await serverWith(e.deps, owner.id, ["2.0.0"], slow.url);
  const { secret } = await tokenFor(e.deps, owner.id, [down.id, late.id]);
  for (
    const [slug, status, kind, version] of [
      [down.slug, 502, "upstream_unavailable", "1.0.0"],
      [late.slug, 504, "upstream_timeout", "2.0.0"],
    ] as const
  ) {
    const res = await mcp(e, `/s/${slug}`, { secret });
    assert.equal(res.status, status);
    assert.equal(res.headers.get("x-mcp-version"), version);
    assert.equal(res.headers.get("x-mcp-latest-version"), version);
    const body = await res.json();
    assert.equal(body.jsonrpc, "2.0");
    assert.equal(body.id, null);
    assert.equal(body.error.code, -32603);
    assert.equal(body.error.data.error, kind);
  }
  await closeEnv(e);
  await slow.close();
});

Deno.test("bad bodies: 413 too large, 400 -32700 unparseable, 400 -32600 not JSON-RPC", async (t) => {
  const s = await setup(["1.0.0"], { MAX_BODY_BYTES: "1024" });
  const cases: [string, string, number, number][] = [
    ["too large", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "x".repeat(2000) }), 413, -32600],
    ["not JSON", "{nope", 400, -32700],
    ["empty", "", 400, -32700],
    ["not JSON-RPC", JSON.stringify({ hello: 1 }), 400, -32600],
    ["empty batch", "[]", 400, -32600],
    ["scalar", "42", 400, -32600],
  ];
  for (const [name, body, status, code] of cases) {
    await t.step(name, async () => {
      const res = await mcp(s.env, s.base, { secret: s.secret, body });
      assert.equal(res.status, status);
      assert.equal(res.headers.get("x-mcp-version"), "1.0.0");
      assert.equal((await res.json()).error.code, code);
    });
  }
  assert.equal(s.up.seen.length, 0, "nothing reached the upstream");
  await s.done();
});

Deno.test("a warm request path reads and writes no KV", async () => {
  const real = await Deno.openKv(":memory:");
  const calls: string[] = [];
  const kv = new Proxy(real, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (typeof v !== "function") return v;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return v.apply(target, args);
      };
    },
  });
  const e = await testEnv({ kv });
  const up = recordingUpstream();
  const owner = await randomUser(e.deps);
  const user = await randomUser(e.deps);
  const server = await serverWith(e.deps, owner.id, ["1.0.0"], up.url);
  await subscribe(e.deps, user.id, server.id);
  const { secret } = await tokenFor(e.deps, user.id, [server.id]);
  const warm = await mcp(e, `/s/${server.slug}`, { secret });
  assert.equal(warm.status, 200);
  await warm.body?.cancel();
  calls.length = 0;
  for (let i = 0; i < 100; i++) {
    const res = await mcp(e, `/s/${server.slug}`, { secret });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  // Only the batched rate-limit flushes may touch KV (a few per 100 ms), never one per request.
  assert.ok(calls.length < 10, `KV calls on the warm path: ${calls.join(", ")}`);
  await closeEnv(e);
  await up.close();
  real.close();
});
