/**
 * The MCP pipeline through `app.request()`: every refusal row of SPEC 7 / DESIGN 4 in order, with
 * exact bodies and headers, both base-URL forms, metadata and CORS.
 */
import assert from "node:assert/strict";
import { randomUser, serverWith, testEnv } from "../helpers.ts";
import { closeEnv, mcp, recordingUpstream, tokenFor } from "../lib/mcp/fixtures.ts";
import { createServer, deployVersion } from "../../lib/servers/servers.ts";
import { cancelSubscription, subscribe } from "../../lib/servers/subscriptions.ts";
import { createToken, revokeToken } from "../../lib/tokens/lifecycle.ts";
import { generateSecret } from "../../lib/tokens/secret.ts";
import type { ManualClock } from "../../lib/clock.ts";

const ORIGIN = { ip: null, user_agent: null };

async function setup(opts: { env?: Record<string, string> } = {}) {
  const env = await testEnv({ env: opts.env });
  const up = recordingUpstream();
  const owner = await randomUser(env.deps);
  const server = await serverWith(env.deps, owner.id, ["1.0.0", "1.1.0", "2.0.0"], up.url);
  const token = await tokenFor(env.deps, owner.id, [server.id]);
  const done = async () => {
    await closeEnv(env);
    await up.close();
  };
  return { env, up, owner, server, token, base: `/s/${server.slug}`, done };
}

type Body = {
  jsonrpc: string;
  id: null;
  error: { code: number; message: string; data?: Record<string, string> };
};

/** Asserts a pre-MCP refusal: status, JSON-RPC code/message, no X-MCP-Version. */
async function refused(res: Response, status: number, code: number, message: string) {
  assert.equal(res.status, status);
  assert.equal(res.headers.get("x-mcp-version"), null);
  assert.equal(res.headers.get("x-mcp-latest-version"), null);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const body = await res.json() as Body;
  assert.equal(body.jsonrpc, "2.0");
  assert.equal(body.id, null);
  assert.equal(body.error.code, code);
  assert.equal(body.error.message, message);
  return body;
}

Deno.test("401 for missing, non-Bearer, malformed, unknown, expired and revoked credentials", async (t) => {
  const s = await setup();
  const expired = await tokenFor(s.env.deps, s.owner.id, [s.server.id], { expires_in_days: 7 });
  const revoked = await tokenFor(s.env.deps, s.owner.id, [s.server.id]);
  await revokeToken(s.env.deps, s.owner.id, revoked.id, ORIGIN);
  const cases: [string, Record<string, string>, string][] = [
    ["missing", {}, "Missing Authorization header"],
    ["basic", { authorization: "Basic dXNlcjpwdw==" }, "Authorization must be a Bearer token"],
    ["malformed", { authorization: "Bearer svc_short" }, "malformed"],
    ["look-alike", { authorization: `Bearer ${s.token.secret.slice(0, -1)}x` }, "malformed"],
    ["unknown", { authorization: `Bearer ${generateSecret()}` }, "not valid"],
    ["other scheme", { authorization: "Bearer eyJhbGciOi.x.y" }, "not recognised"],
    ["revoked", { authorization: `Bearer ${revoked.secret}` }, "revoked"],
  ];
  for (const [name, headers, why] of cases) {
    await t.step(name, async () => {
      const res = await mcp(s.env, s.base, { headers });
      assert.equal(
        res.headers.get("www-authenticate"),
        `Bearer resource_metadata="http://localhost:8000${s.base}/.well-known/oauth-protected-resource"`,
      );
      const body = await refused(res, 401, -32001, "Unauthorized");
      assert.equal(body.error.data?.error, "unauthorized");
      assert.match(body.error.data?.description ?? "", new RegExp(why));
    });
  }
  await t.step("expired (clock moves past expires_at)", async () => {
    assert.equal((await mcp(s.env, s.base, { secret: expired.secret })).status, 200);
    (s.env.clock as ManualClock).advance(7 * 24 * 3600 * 1000 + 1);
    const body = await refused(
      await mcp(s.env, s.base, { secret: expired.secret }),
      401,
      -32001,
      "Unauthorized",
    );
    assert.match(body.error.data?.description ?? "", /expired/);
  });
  await s.done();
});

Deno.test("403 outside the allowlist; IPv4-mapped IPv6 matches IPv4 rules", async () => {
  const s = await setup();
  const { secret } = await tokenFor(s.env.deps, s.owner.id, [s.server.id], {
    allowed_ips: ["10.0.0.0/8"],
  });
  const body = await refused(
    await mcp(s.env, s.base, { secret, ip: "192.168.1.1" }),
    403,
    -32003,
    "Forbidden",
  );
  assert.equal(body.error.data?.error, "ip_not_allowed");
  await refused(await mcp(s.env, s.base, { secret }), 403, -32003, "Forbidden"); // unknown IP
  assert.equal((await mcp(s.env, s.base, { secret, ip: "10.1.2.3" })).status, 200);
  assert.equal((await mcp(s.env, s.base, { secret, ip: "::ffff:10.1.2.3" })).status, 200);
  await s.done();
});

Deno.test("TRUST_PROXY decides whether X-Forwarded-For counts for the allowlist", async () => {
  for (const trust of [false, true]) {
    const s = await setup({ env: { TRUST_PROXY: String(trust) } });
    const { secret } = await tokenFor(s.env.deps, s.owner.id, [s.server.id], {
      allowed_ips: ["10.0.0.0/8"],
    });
    const res = await mcp(s.env, s.base, {
      secret,
      ip: "192.168.1.1",
      headers: { "x-forwarded-for": "10.9.9.9, 192.168.1.1" },
    });
    assert.equal(res.status, trust ? 200 : 403);
    await res.body?.cancel();
    await s.done();
  }
});

Deno.test("403 -32003 without data for a token not scoped to the server", async () => {
  const s = await setup();
  const other = await serverWith(s.env.deps, s.owner.id, ["1.0.0"], s.up.url);
  const body = await refused(
    await mcp(s.env, `/s/${other.slug}`, { secret: s.token.secret }),
    403,
    -32003,
    "Forbidden",
  );
  assert.equal(body.error.data, undefined);
  await s.done();
});

Deno.test("402 naming the server without a subscription; owners need none; the cache follows", async () => {
  const s = await setup();
  const user = await randomUser(s.env.deps);
  await subscribe(s.env.deps, user.id, s.server.id);
  const { secret } = await tokenFor(s.env.deps, user.id, [s.server.id]);
  assert.equal((await mcp(s.env, s.base, { secret })).status, 200);
  await cancelSubscription(s.env.deps, user.id, s.server.id);
  const body = await refused(await mcp(s.env, s.base, { secret }), 402, -32002, "Payment Required");
  assert.equal(body.error.data?.error, "payment_required");
  assert.match(body.error.data?.description ?? "", new RegExp(s.server.slug));
  await subscribe(s.env.deps, user.id, s.server.id);
  assert.equal((await mcp(s.env, s.base, { secret })).status, 200);
  await s.done();
});

Deno.test("429 -32000 with limit, resetAt, retryAfter, windowType and Retry-After", async () => {
  const s = await setup();
  const rl = await createServer(s.env.deps, s.owner.id, {
    slug: `rl-${crypto.randomUUID().slice(0, 6)}`,
    name: "Limited",
    rate_limit: { limit: 3, window: "minute" },
  });
  await deployVersion(s.env.deps, rl.slug, s.owner.id, {
    version: "1.0.0",
    upstream_url: s.up.url,
  });
  const { secret } = await tokenFor(s.env.deps, s.owner.id, [rl.id]);
  const clock = s.env.clock as ManualClock;
  clock.ms = Math.floor(clock.ms / 60_000) * 60_000 + 15_000; // 45 s left in the window
  for (let i = 0; i < 3; i++) {
    assert.equal((await mcp(s.env, `/s/${rl.slug}`, { secret })).status, 200);
  }
  const res = await mcp(s.env, `/s/${rl.slug}`, { secret });
  assert.equal(res.headers.get("retry-after"), "45");
  const body = await refused(res, 429, -32000, "Rate limit exceeded");
  assert.deepEqual(body.error.data, {
    limit: 3,
    resetAt: Math.ceil((clock.ms + 45_000) / 1000),
    retryAfter: 45,
    windowType: "minute",
  });
  clock.advance(45_000);
  assert.equal((await mcp(s.env, `/s/${rl.slug}`, { secret })).status, 200);
  await s.done();
});

Deno.test("the pipeline refuses with the first failing step", async () => {
  const s = await setup();
  const stranger = await randomUser(s.env.deps);
  const own = await serverWith(s.env.deps, stranger.id, ["1.0.0"], s.up.url);
  const { secret } = await tokenFor(s.env.deps, stranger.id, [own.id], {
    allowed_ips: ["10.0.0.1"],
  });
  // Outside the allowlist AND out of scope AND unsubscribed: the allowlist speaks first.
  let body = await refused(
    await mcp(s.env, s.base, { secret, ip: "10.0.0.2" }),
    403,
    -32003,
    "Forbidden",
  );
  assert.equal(body.error.data?.error, "ip_not_allowed");
  // Out of scope AND unsubscribed: scope first.
  body = await refused(
    await mcp(s.env, s.base, { secret, ip: "10.0.0.1" }),
    403,
    -32003,
    "Forbidden",
  );
  assert.equal(body.error.data, undefined);
  await s.done();
});

Deno.test("unknown slug is a JSON-RPC 404 in both forms, and unknown paths too", async () => {
  const s = await setup();
  for (const [url, host] of [["/s/nope-nope", undefined], ["/", "nope-nope.localhost:8000"]]) {
    const res = await mcp(s.env, url!, {
      secret: s.token.secret,
      headers: host ? { host } : {},
    });
    const body = await refused(res, 404, -32004, "Not Found");
    assert.match(JSON.stringify(body), /nope-nope/);
  }
  await refused(
    await mcp(s.env, `${s.base}/favicon.ico`, { secret: s.token.secret }),
    404,
    -32004,
    "Not Found",
  );
  await refused(
    await mcp(s.env, `${s.base}/v1.x`, { secret: s.token.secret }),
    404,
    -32004,
    "Not Found",
  );
  await s.done();
});

Deno.test("host form and path form answer identically", async () => {
  const s = await setup();
  for (const path of ["", "/v1", "/v1.0", "/v1.1.0", "/v1.0.7"]) {
    const viaPath = await mcp(s.env, `${s.base}${path}`, { secret: s.token.secret });
    const viaHost = await mcp(s.env, path || "/", {
      secret: s.token.secret,
      headers: { host: `${s.server.slug}.localhost:8000` },
    });
    assert.equal(viaHost.status, viaPath.status, path);
    for (const h of ["x-mcp-version", "x-mcp-latest-version", "content-type"]) {
      assert.equal(viaHost.headers.get(h), viaPath.headers.get(h), `${path} ${h}`);
    }
    assert.deepEqual(await viaHost.json(), await viaPath.json());
  }
  const noAuth = await mcp(s.env, "/", { headers: { host: `${s.server.slug}.localhost:8000` } });
  assert.equal(
    noAuth.headers.get("www-authenticate"),
    `Bearer resource_metadata="http://${s.server.slug}.localhost:8000/.well-known/oauth-protected-resource"`,
  );
  await noAuth.body?.cancel();
  await s.done();
});

Deno.test("protected-resource metadata: base form, host form, RFC 9728 path-aware form", async (t) => {
  const s = await setup();
  const expectDoc = async (res: Response, resource: string) => {
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.equal(res.headers.get("x-mcp-version"), null);
    assert.deepEqual(await res.json(), {
      resource,
      authorization_servers: ["http://localhost:8000"],
      bearer_methods_supported: ["header"],
      scopes_supported: ["openid", "profile", "email"],
    });
  };
  const get = (path: string, host?: string) =>
    Promise.resolve(s.env.app.request(`http://localhost:8000${path}`, {
      headers: host ? { host } : {},
    }));
  const hostForm = `${s.server.slug}.localhost:8000`;
  await t.step("path form", async () => {
    await expectDoc(
      await get(`${s.base}/.well-known/oauth-protected-resource`),
      `http://localhost:8000${s.base}`,
    );
  });
  await t.step("host form", async () => {
    await expectDoc(
      await get("/.well-known/oauth-protected-resource", hostForm),
      `http://${hostForm}`,
    );
    await expectDoc(
      await get("/.well-known/oauth-protected-resource/v1", hostForm),
      `http://${hostForm}/v1`,
    );
  });
  await t.step("path-aware on the platform origin", async () => {
    await expectDoc(
      await get(`/.well-known/oauth-protected-resource${s.base}`),
      `http://localhost:8000${s.base}`,
    );
    await expectDoc(
      await get(`/.well-known/oauth-protected-resource${s.base}/v1.1`),
      `http://localhost:8000${s.base}/v1.1`,
    );
  });
  await t.step("unknown server → 404", async () => {
    await refused(
      await get("/.well-known/oauth-protected-resource/s/nope-nope"),
      404,
      -32004,
      "Not Found",
    );
  });
  await t.step("CORS preflight", async () => {
    const res = await s.env.app.request(`${s.base}/v1`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example", "access-control-request-method": "POST" },
    });
    assert.equal(res.status, 204);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.match(res.headers.get("access-control-allow-headers")!, /Authorization/);
    assert.match(res.headers.get("access-control-allow-headers")!, /Mcp-Session-Id/);
    assert.match(res.headers.get("access-control-allow-methods")!, /DELETE/);
  });
  await s.done();
});

Deno.test("405 for other methods, with Allow", async () => {
  const s = await setup();
  const res = await mcp(s.env, s.base, { method: "PUT", secret: s.token.secret });
  assert.equal(res.headers.get("allow"), "GET, POST, DELETE, OPTIONS");
  await refused(res, 405, -32600, "Method not allowed");
  await s.done();
});

Deno.test("a token created for one user cannot reach another user's server it was never scoped to", async () => {
  const s = await setup();
  const other = await randomUser(s.env.deps);
  await subscribe(s.env.deps, other.id, s.server.id);
  const mine = await serverWith(s.env.deps, other.id, ["1.0.0"], s.up.url);
  const issued = await createToken(s.env.deps, other.id, {
    name: "only mine",
    server_ids: [mine.id],
    expires_in_days: 7,
  }, ORIGIN);
  await refused(await mcp(s.env, s.base, { secret: issued.secret }), 403, -32003, "Forbidden");
  assert.equal((await mcp(s.env, `/s/${mine.slug}`, { secret: issued.secret })).status, 200);
  await s.done();
});
