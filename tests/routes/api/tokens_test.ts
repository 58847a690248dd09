/** `/api/tokens*` through `app.request()`: every rule of SPEC 2.1/3.1/4.3/4.4 and DESIGN 4. */
import assert from "node:assert/strict";
import { randomUser, serverWith, signedIn, testEnv } from "../../helpers.ts";
import { bearer, errorOf, manual, owner } from "../../lib/tokens/fixtures.ts";
import { isWellFormedSecret } from "../../../lib/tokens/secret.ts";
import { subscribe } from "../../../lib/servers/subscriptions.ts";
import { TokenResolver } from "../../../lib/tokens/resolver.ts";
import { outboxPrefix } from "../../../lib/kv/keys.ts";
import type { OutboxMessage } from "../../../lib/accounts/password.ts";
import type { TokenWithSecret } from "../../../lib/tokens/views.ts";

const DAY = 24 * 3600 * 1000;
const SPEC_FIELDS = [
  "allowed_ips",
  "created_at",
  "expires_at",
  "id",
  "last_used_at",
  "name",
  "prefix",
  "scopes",
];

Deno.test("POST /api/tokens answers 201 with every SPEC 2.1 field and the secret", async () => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const t = await o.createToken({ name: "  deploy bot  " });
    assert.deepEqual(Object.keys(t).sort(), ["token", ...SPEC_FIELDS].sort());
    assert.ok(isWellFormedSecret(t.token));
    assert.equal(t.token.length, 48);
    assert.equal(t.prefix, t.token.slice(0, 12));
    assert.match(t.id, /^[0-9a-f-]{36}$/);
    assert.equal(t.name, "deploy bot");
    assert.equal(t.allowed_ips, null);
    assert.equal(t.last_used_at, null);
    assert.equal(t.created_at, new Date(env.clock.now()).toISOString());
    assert.equal(t.expires_at, new Date(env.clock.now() + 30 * DAY).toISOString());
    assert.deepEqual(t.scopes, [{
      server_id: o.server.id,
      server_name: o.server.name,
      server_slug: o.server.slug,
    }]);
  } finally {
    env.close();
  }
});

Deno.test("POST /api/tokens accepts owned and subscribed servers, dedupes, normalises IPs", async () => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const other = await randomUser(env.deps);
    const theirs = await serverWith(env.deps, other.id);
    await subscribe(env.deps, o.client.user.id, theirs.id);
    const t = await o.createToken({
      server_ids: [theirs.id, o.server.id, theirs.id],
      expires_in_days: 90,
      allowed_ips: [" 10.1.2.3/8 ", "::ffff:192.0.2.1", "2001:DB8::/32", "10.0.0.0/8"],
    });
    assert.deepEqual(t.scopes.map((s) => s.server_id), [theirs.id, o.server.id]);
    assert.deepEqual(t.allowed_ips, ["10.0.0.0/8", "192.0.2.1", "2001:db8::/32"]);
    assert.equal(t.expires_at, new Date(env.clock.now() + 90 * DAY).toISOString());
  } finally {
    env.close();
  }
});

Deno.test("POST /api/tokens refuses bad input with a well-formed 4xx", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const stranger = await serverWith(env.deps, (await randomUser(env.deps)).id);
    const good = { name: "ci", server_ids: [o.server.id], expires_in_days: 30 };
    const cases: [string, unknown, number, string, RegExp?][] = [
      ["missing name", { ...good, name: undefined }, 400, "invalid_request", /name/],
      ["blank name", { ...good, name: "   " }, 400, "invalid_request", /1 to 100/],
      ["name of 101 chars", { ...good, name: "x".repeat(101) }, 400, "invalid_request"],
      ["name with a newline", { ...good, name: "a\nb" }, 400, "invalid_request", /control/],
      ["name not a string", { ...good, name: 42 }, 400, "invalid_request"],
      ["no server_ids", { ...good, server_ids: undefined }, 400, "invalid_request"],
      ["empty server_ids", { ...good, server_ids: [] }, 400, "invalid_request", /at least one/],
      ["blank server id", { ...good, server_ids: [""] }, 400, "invalid_request"],
      ["server_ids not a list", { ...good, server_ids: o.server.id }, 400, "invalid_request"],
      ["server_ids of numbers", { ...good, server_ids: [1] }, 400, "invalid_request"],
      [
        "a server not owned nor subscribed",
        { ...good, server_ids: [o.server.id, stranger.id] },
        400,
        "invalid_request",
        new RegExp(stranger.id),
      ],
      ["an unknown server", { ...good, server_ids: ["nope"] }, 400, "invalid_request", /"nope"/],
      ["expires_in_days 1", { ...good, expires_in_days: 1 }, 400, "invalid_request", /7, 30/],
      ["expires_in_days 365", { ...good, expires_in_days: 365 }, 400, "invalid_request"],
      ["expires_in_days 0", { ...good, expires_in_days: 0 }, 400, "invalid_request"],
      ["expires_in_days as text", { ...good, expires_in_days: "30" }, 400, "invalid_request"],
      ["expires_in_days 30.5", { ...good, expires_in_days: 30.5 }, 400, "invalid_request"],
      ["expires_in_days null", { ...good, expires_in_days: null }, 400, "invalid_request"],
      ["no expires_in_days", { ...good, expires_in_days: undefined }, 400, "invalid_request"],
      ["allowlist garbage", { ...good, allowed_ips: ["nope"] }, 400, "invalid_request", /nope/],
      ["allowlist bad CIDR", { ...good, allowed_ips: ["10.0.0.0/33"] }, 400, "invalid_request"],
      ["allowlist a string", { ...good, allowed_ips: "1.2.3.4" }, 400, "invalid_request"],
      ["allowlist of numbers", { ...good, allowed_ips: [1] }, 400, "invalid_request"],
      [
        "allowlist of 101",
        { ...good, allowed_ips: Array.from({ length: 101 }, (_, i) => `10.0.0.${i}`) },
        400,
        "invalid_request",
      ],
      ["unknown field", { ...good, owner: "me" }, 400, "unknown_field", /"owner"/],
      ["an array body", [good], 400, "invalid_request"],
      ["a string body", "hello", 400, "invalid_request"],
      ["an empty body", undefined, 400, "invalid_request"],
    ];
    for (const [name, payload, status, code, message] of cases) {
      await t.step(name, async () => {
        const res = await o.client.request("POST", "/api/tokens", payload ?? undefined);
        assert.equal(res.status, status);
        const err = await errorOf(res);
        assert.equal(err.code, code);
        if (message) assert.match(err.message, message);
      });
    }
    await t.step("not JSON", async () => {
      const res = await o.client.request("POST", "/api/tokens", undefined, {
        "content-type": "application/json",
      });
      assert.equal(res.status, 400);
      const raw = await env.app.request("/api/tokens", {
        method: "POST",
        headers: {
          cookie: o.client.cookie,
          "x-csrf-token": o.client.csrf,
          "content-type": "application/json",
        },
        body: "{name:",
      });
      assert.equal(raw.status, 400);
      assert.equal((await errorOf(raw)).code, "invalid_json");
    });
    await t.step("nothing was created", async () => {
      const list = await (await o.client.request("GET", "/api/tokens")).json();
      assert.equal(list.tokens.length, 0);
    });
  } finally {
    env.close();
  }
});

Deno.test("POST /api/tokens needs a session and its CSRF token, never a Bearer", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const { token } = await o.createToken();
    const payload = JSON.stringify({ name: "x", server_ids: [o.server.id], expires_in_days: 7 });
    const cases: [string, HeadersInit, number][] = [
      ["no credentials", {}, 401],
      ["cookie without CSRF", { cookie: o.client.cookie }, 403],
      ["cookie with a wrong CSRF", { cookie: o.client.cookie, "x-csrf-token": "nope" }, 403],
      ["a Bearer API token", { authorization: `Bearer ${token}` }, 401],
    ];
    for (const [name, headers, status] of cases) {
      await t.step(name, async () => {
        const res = await env.app.request("/api/tokens", {
          method: "POST",
          headers: { "content-type": "application/json", ...headers },
          body: payload,
        });
        assert.equal(res.status, status);
        await errorOf(res);
      });
    }
  } finally {
    env.close();
  }
});

Deno.test("GET /api/tokens lists newest first, paginates, and shows no secret", async () => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push(await o.createToken({ name: `t${i}` }));
      manual(env).advance(1000);
    }
    const other = await owner(env);
    await other.createToken({ name: "theirs" });
    const res = await o.client.request("GET", "/api/tokens?limit=2");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const p1 = await res.json();
    assert.deepEqual(p1.tokens.map((t: { name: string }) => t.name), ["t4", "t3"]);
    assert.deepEqual(Object.keys(p1.tokens[0]).sort(), SPEC_FIELDS);
    assert.equal(typeof p1.cursor, "string");
    const p2 = await (await o.client.request("GET", `/api/tokens?limit=2&cursor=${p1.cursor}`))
      .json();
    assert.deepEqual(p2.tokens.map((t: { name: string }) => t.name), ["t2", "t1"]);
    const p3 = await (await o.client.request("GET", `/api/tokens?limit=2&cursor=${p2.cursor}`))
      .json();
    assert.deepEqual(p3.tokens.map((t: { name: string }) => t.name), ["t0"]);
    assert.equal(p3.cursor, null);
    const all = await (await o.client.request("GET", "/api/tokens")).json();
    assert.equal(all.tokens.length, 5);
    const text = JSON.stringify(all);
    for (const t of made) assert.ok(!text.includes(t.token), "no secret in the listing");
  } finally {
    env.close();
  }
});

Deno.test("GET /api/tokens refuses a bad limit or cursor with 400", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    for (const q of ["limit=0", "limit=201", "limit=abc", "limit=-1", "limit=1.5", "cursor=%%%"]) {
      await t.step(q, async () => {
        const res = await o.client.request("GET", `/api/tokens?${q}`);
        assert.equal(res.status, 400);
        await errorOf(res);
      });
    }
  } finally {
    env.close();
  }
});

Deno.test("GET /api/tokens/:id answers own tokens only; others are 404", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const mine = await o.createToken();
    const other = await owner(env);
    const theirs = await other.createToken();
    await t.step("own token, no secret", async () => {
      const res = await o.client.request("GET", `/api/tokens/${mine.id}`);
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.deepEqual(Object.keys(body).sort(), SPEC_FIELDS);
      assert.equal(body.prefix, mine.prefix);
    });
    for (
      const [name, id] of [
        ["another user's token", theirs.id],
        ["a random id", crypto.randomUUID()],
        ["a garbage id", "../../etc"],
      ]
    ) {
      await t.step(name, async () => {
        const res = await o.client.request("GET", `/api/tokens/${encodeURIComponent(id)}`);
        assert.equal(res.status, 404);
        assert.equal((await errorOf(res)).code, "not_found");
      });
    }
  } finally {
    env.close();
  }
});

Deno.test("GET /api/tokens/self answers a Bearer token with its own record", async () => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const t = await o.createToken();
    const res = await bearer(env, "GET", "/api/tokens/self", t.token);
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.equal(body.id, t.id);
    assert.equal(body.token, undefined);
    const anon = await env.app.request("/api/tokens/self");
    assert.equal(anon.status, 401);
    const withCookie = await o.client.request("GET", "/api/tokens/self");
    assert.equal(withCookie.status, 401);
  } finally {
    env.close();
  }
});

Deno.test("PATCH /api/tokens/:id edits name, expiry from now and allowlist", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tok = await o.createToken({ expires_in_days: 7 });
    manual(env).advance(3 * DAY);
    await t.step("session edit", async () => {
      const res = await o.client.request("PATCH", `/api/tokens/${tok.id}`, {
        name: " renamed ",
        expires_in_days: 90,
        allowed_ips: ["192.0.2.0/24"],
      });
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal(body.name, "renamed");
      assert.equal(body.expires_at, new Date(env.clock.now() + 90 * DAY).toISOString());
      assert.deepEqual(body.allowed_ips, ["192.0.2.0/24"]);
      assert.equal(body.token, undefined);
      assert.deepEqual(body.scopes, tok.scopes);
      assert.equal(body.prefix, tok.prefix);
    });
    await t.step("null clears the allowlist, other fields stay", async () => {
      const res = await o.client.request("PATCH", `/api/tokens/${tok.id}`, { allowed_ips: null });
      const body = await res.json();
      assert.equal(body.allowed_ips, null);
      assert.equal(body.name, "renamed");
    });
    await t.step("never beyond 90 days from now", async () => {
      manual(env).advance(80 * DAY);
      const client = await signedIn(env, o.client.user); // the old session expired meanwhile
      const body = await (await client.request("PATCH", `/api/tokens/${tok.id}`, {
        expires_in_days: 90,
      })).json();
      assert.equal(Date.parse(body.expires_at) - env.clock.now(), 90 * DAY);
    });
    await t.step("the secret still works after edits", async () => {
      const res = await bearer(env, "GET", "/api/tokens/self", tok.token);
      assert.equal(res.status, 200);
    });
  } finally {
    env.close();
  }
});

Deno.test("PATCH /api/tokens/:id refuses scopes and other fixed or unknown fields", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tok = await o.createToken();
    const fixed: [string, Record<string, unknown>][] = [
      ["scopes", { scopes: [{ server_id: o.server.id }] }],
      ["server_ids", { server_ids: [o.server.id] }],
      ["id", { id: crypto.randomUUID() }],
      ["token", { token: tok.token }],
      ["prefix", { prefix: "svc_xxxxxxxx" }],
      ["scopes with a name", { name: "ok", scopes: [] }],
    ];
    for (const [name, payload] of fixed) {
      await t.step(`fixed: ${name}`, async () => {
        const res = await o.client.request("PATCH", `/api/tokens/${tok.id}`, payload);
        assert.equal(res.status, 400);
        const err = await errorOf(res);
        assert.equal(err.code, "unknown_field");
        assert.match(err.message, /fixed at creation/);
        assert.match(err.message, /create a new token/);
      });
    }
    await t.step("unknown fields are all named", async () => {
      const res = await o.client.request("PATCH", `/api/tokens/${tok.id}`, {
        colour: "red",
        expires_at: "2030-01-01T00:00:00Z",
      });
      assert.equal(res.status, 400);
      const err = await errorOf(res);
      assert.equal(err.code, "unknown_field");
      assert.match(err.message, /"colour"/);
      assert.match(err.message, /"expires_at"/);
    });
    const bad: [string, unknown][] = [
      ["empty object", {}],
      ["no body", undefined],
      ["expires_in_days 45", { expires_in_days: 45 }],
      ["expires_in_days 91", { expires_in_days: 91 }],
      ["name blank", { name: " " }],
      ["name null", { name: null }],
      ["allowlist garbage", { allowed_ips: ["300.1.1.1"] }],
      ["array body", [{ name: "x" }]],
    ];
    for (const [name, payload] of bad) {
      await t.step(`invalid: ${name}`, async () => {
        const res = await o.client.request("PATCH", `/api/tokens/${tok.id}`, payload);
        assert.equal(res.status, 400);
        assert.equal((await errorOf(res)).code, "invalid_request");
      });
    }
    await t.step("the token did not change", async () => {
      const body = await (await o.client.request("GET", `/api/tokens/${tok.id}`)).json();
      assert.equal(body.name, tok.name);
      assert.equal(body.expires_at, tok.expires_at);
    });
  } finally {
    env.close();
  }
});

Deno.test("PATCH /api/tokens/:id by Bearer: only itself, no CSRF; sessions only their own", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const a = await o.createToken({ name: "a" });
    const b = await o.createToken({ name: "b" });
    const other = await owner(env);
    await t.step("Bearer edits itself", async () => {
      const res = await bearer(env, "PATCH", `/api/tokens/${a.id}`, a.token, {
        json: { name: "self-named" },
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).name, "self-named");
    });
    await t.step("Bearer on another token of the same user is 403", async () => {
      const res = await bearer(env, "PATCH", `/api/tokens/${b.id}`, a.token, {
        json: { name: "x" },
      });
      assert.equal(res.status, 403);
      assert.equal((await errorOf(res)).code, "forbidden");
    });
    await t.step("a session on another user's token is 404", async () => {
      const res = await other.client.request("PATCH", `/api/tokens/${a.id}`, { name: "x" });
      assert.equal(res.status, 404);
    });
    await t.step("a session without CSRF is 403", async () => {
      const res = await env.app.request(`/api/tokens/${a.id}`, {
        method: "PATCH",
        headers: { cookie: o.client.cookie, "content-type": "application/json" },
        body: JSON.stringify({ name: "x" }),
      });
      assert.equal(res.status, 403);
      assert.equal((await errorOf(res)).code, "csrf_failed");
    });
    await t.step("no credentials is 401", async () => {
      const res = await env.app.request(`/api/tokens/${a.id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "x" }),
      });
      assert.equal(res.status, 401);
    });
  } finally {
    env.close();
  }
});

Deno.test("rotate() by Bearer replaces the secret and keeps id, scopes and expiry", async () => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const before = await o.createToken({ allowed_ips: ["203.0.113.0/24"] });
    manual(env).advance(5 * DAY);
    const res = await bearer(env, "POST", `/api/tokens/${before.id}/rotate`, before.token);
    assert.equal(res.status, 200);
    const after = await res.json();
    assert.deepEqual(Object.keys(after).sort(), ["token", ...SPEC_FIELDS].sort());
    assert.ok(isWellFormedSecret(after.token));
    assert.notEqual(after.token, before.token);
    assert.equal(after.prefix, after.token.slice(0, 12));
    for (const k of ["id", "name", "scopes", "expires_at", "allowed_ips", "created_at"] as const) {
      assert.deepEqual(after[k], before[k], k);
    }
    const old = await bearer(env, "GET", "/api/tokens/self", before.token);
    assert.equal(old.status, 401);
    assert.match(old.headers.get("www-authenticate") ?? "", /invalid_token/);
    assert.equal((await bearer(env, "GET", "/api/tokens/self", after.token)).status, 200);
    const listed = await (await o.client.request("GET", `/api/tokens/${before.id}`)).json();
    assert.equal(listed.prefix, after.prefix);
  } finally {
    env.close();
  }
});

Deno.test("POST /api/tokens/:id/rotate refuses the wrong caller", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const a = await o.createToken({ name: "a" });
    const b = await o.createToken({ name: "b" });
    const other = await owner(env);
    const cases: [string, () => Promise<Response>, number, string][] = [
      [
        "Bearer for another id",
        () => bearer(env, "POST", `/api/tokens/${b.id}/rotate`, a.token),
        403,
        "forbidden",
      ],
      [
        "Bearer with an unknown well-formed secret",
        async () => {
          const { generateSecret } = await import("../../../lib/tokens/secret.ts");
          return bearer(env, "POST", `/api/tokens/${a.id}/rotate`, generateSecret());
        },
        401,
        "unauthorized",
      ],
      [
        "Bearer with a malformed secret",
        () => bearer(env, "POST", `/api/tokens/${a.id}/rotate`, a.token.slice(0, -1) + "0"),
        401,
        "unauthorized",
      ],
      [
        "Basic auth",
        () =>
          Promise.resolve(env.app.request(`/api/tokens/${a.id}/rotate`, {
            method: "POST",
            headers: { authorization: "Basic dXNlcjpwYXNz", cookie: o.client.cookie },
          })),
        401,
        "unauthorized",
      ],
      [
        "another user's session",
        () => other.client.request("POST", `/api/tokens/${a.id}/rotate`),
        404,
        "not_found",
      ],
      [
        "a session without CSRF",
        () =>
          Promise.resolve(env.app.request(`/api/tokens/${a.id}/rotate`, {
            method: "POST",
            headers: { cookie: o.client.cookie },
          })),
        403,
        "csrf_failed",
      ],
      [
        "nobody",
        () => Promise.resolve(env.app.request(`/api/tokens/${a.id}/rotate`, { method: "POST" })),
        401,
        "unauthorized",
      ],
    ];
    for (const [name, send, status, code] of cases) {
      await t.step(name, async () => {
        const res = await send();
        assert.equal(res.status, status);
        assert.equal((await errorOf(res)).code, code);
      });
    }
    await t.step("both secrets still work", async () => {
      assert.equal((await bearer(env, "GET", "/api/tokens/self", a.token)).status, 200);
      assert.equal((await bearer(env, "GET", "/api/tokens/self", b.token)).status, 200);
    });
    await t.step("the owner's session may rotate any own token", async () => {
      const res = await o.client.request("POST", `/api/tokens/${b.id}/rotate`);
      assert.equal(res.status, 200);
      const body = await res.json();
      assert.equal((await bearer(env, "GET", "/api/tokens/self", b.token)).status, 401);
      assert.equal((await bearer(env, "GET", "/api/tokens/self", body.token)).status, 200);
    });
  } finally {
    env.close();
  }
});

Deno.test("Bearer requests respect the token's IP allowlist", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tok = await o.createToken({ allowed_ips: ["198.51.100.0/24", "2001:db8::/32"] });
    const cases: [string, string | undefined, number][] = [
      ["inside the IPv4 range", "198.51.100.9", 200],
      ["IPv4-mapped inside", "::ffff:198.51.100.10", 200],
      ["inside the IPv6 range", "2001:db8::1", 200],
      ["outside", "203.0.113.7", 403],
      ["outside IPv6", "2001:db9::1", 403],
    ];
    for (const [name, ip, status] of cases) {
      await t.step(name, async () => {
        const res = await bearer(env, "GET", "/api/tokens/self", tok.token, { ip });
        assert.equal(res.status, status);
        if (status === 403) assert.equal((await errorOf(res)).code, "ip_not_allowed");
      });
    }
    await t.step("an unknown client address is refused", async () => {
      const res = await env.app.request("/api/tokens/self", {
        headers: { authorization: `Bearer ${tok.token}` },
      });
      assert.equal(res.status, 403);
    });
    await t.step("rotation from outside is refused and changes nothing", async () => {
      const res = await bearer(env, "POST", `/api/tokens/${tok.id}/rotate`, tok.token, {
        ip: "203.0.113.7",
      });
      assert.equal(res.status, 403);
      const ok = await bearer(env, "GET", "/api/tokens/self", tok.token, { ip: "198.51.100.1" });
      assert.equal(ok.status, 200);
    });
  } finally {
    env.close();
  }
});

Deno.test("a token expires at expires_at to the millisecond", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tok = await o.createToken({ expires_in_days: 7 });
    await t.step("one millisecond before: works", async () => {
      manual(env).advance(7 * DAY - 1);
      assert.equal((await bearer(env, "GET", "/api/tokens/self", tok.token)).status, 200);
    });
    await t.step("at expires_at: 401 expired", async () => {
      manual(env).advance(1);
      const res = await bearer(env, "GET", "/api/tokens/self", tok.token);
      assert.equal(res.status, 401);
      assert.match((await errorOf(res)).message, /expired/);
    });
    const client = await signedIn(env, o.client.user); // a week on, the first session expired
    await t.step("it stays listed, but cannot be rotated or edited", async () => {
      const list = await (await client.request("GET", "/api/tokens")).json();
      assert.equal(list.tokens.length, 1);
      const rot = await client.request("POST", `/api/tokens/${tok.id}/rotate`);
      assert.equal(rot.status, 410);
      assert.equal((await errorOf(rot)).message, "Cannot rotate token: it expired");
      const edit = await client.request("PATCH", `/api/tokens/${tok.id}`, { expires_in_days: 7 });
      assert.equal(edit.status, 410);
      const selfRot = await bearer(env, "POST", `/api/tokens/${tok.id}/rotate`, tok.token);
      assert.equal(selfRot.status, 401);
    });
    await t.step("it can still be revoked", async () => {
      assert.equal((await client.request("DELETE", `/api/tokens/${tok.id}`)).status, 204);
    });
  } finally {
    env.close();
  }
});

Deno.test("DELETE /api/tokens/:id revokes at once and for good", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tok = await o.createToken();
    const keep = await o.createToken({ name: "keep" });
    const other = await owner(env);
    await t.step("Bearer alone cannot revoke (session only)", async () => {
      const res = await bearer(env, "DELETE", `/api/tokens/${tok.id}`, tok.token);
      assert.equal(res.status, 401);
    });
    await t.step("another user's session gets 404", async () => {
      assert.equal((await other.client.request("DELETE", `/api/tokens/${tok.id}`)).status, 404);
    });
    await t.step("owner revokes: 204", async () => {
      const res = await o.client.request("DELETE", `/api/tokens/${tok.id}`);
      assert.equal(res.status, 204);
      assert.equal(await res.text(), "");
    });
    await t.step("its secret is refused as revoked", async () => {
      const res = await bearer(env, "GET", "/api/tokens/self", tok.token);
      assert.equal(res.status, 401);
      assert.match((await errorOf(res)).message, /revoked/);
    });
    await t.step("it left the listing; the other token stays", async () => {
      const list = await (await o.client.request("GET", "/api/tokens")).json();
      assert.deepEqual(list.tokens.map((t: { id: string }) => t.id), [keep.id]);
    });
    await t.step("get, edit, rotate and delete again are 410", async () => {
      for (
        const [method, path, json] of [
          ["GET", `/api/tokens/${tok.id}`],
          ["PATCH", `/api/tokens/${tok.id}`, { name: "x" }],
          ["POST", `/api/tokens/${tok.id}/rotate`],
          ["DELETE", `/api/tokens/${tok.id}`],
        ] as const
      ) {
        const res = await o.client.request(method, path, json);
        assert.equal(res.status, 410, `${method} ${path}`);
        assert.match((await errorOf(res)).message, /revoked/);
      }
    });
    await t.step("time passing does not bring it back", async () => {
      manual(env).advance(400 * DAY);
      assert.equal((await bearer(env, "GET", "/api/tokens/self", tok.token)).status, 401);
    });
  } finally {
    env.close();
  }
});

Deno.test("an API token is not accepted on session-only routes", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tok = await o.createToken();
    const routes: [string, string][] = [
      ["GET", "/api/tokens"],
      ["GET", `/api/tokens/${tok.id}`],
      ["DELETE", `/api/tokens/${tok.id}`],
      ["GET", "/api/servers"],
      ["GET", "/api/audit"],
      ["GET", "/api/session"],
      ["POST", "/api/password"],
    ];
    for (const [method, path] of routes) {
      await t.step(`${method} ${path}`, async () => {
        const res = await bearer(env, method, path, tok.token, {
          json: method === "GET" || method === "DELETE" ? undefined : {},
        });
        assert.equal(res.status, 401);
        await errorOf(res);
      });
    }
  } finally {
    env.close();
  }
});

Deno.test("password change and reset revoke every token of the user", async (t) => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tokens: TokenWithSecret[] = [];
    for (let i = 0; i < 12; i++) tokens.push(await o.createToken({ name: `t${i}` }));
    const other = await owner(env);
    const bystander = await other.createToken();
    await t.step("change", async () => {
      const res = await o.client.request("POST", "/api/password", {
        current_password: "password123",
        new_password: "another-password-456",
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).tokens_revoked, 12);
      for (const tok of tokens) {
        const r = await bearer(env, "GET", "/api/tokens/self", tok.token);
        assert.equal(r.status, 401);
        assert.match((await errorOf(r)).message, /revoked/);
      }
      const list = await (await o.client.request("GET", "/api/tokens")).json();
      assert.equal(list.tokens.length, 0);
      assert.equal((await bearer(env, "GET", "/api/tokens/self", bystander.token)).status, 200);
      const audit = await (await o.client.request("GET", "/api/audit")).json();
      const auto = audit.entries.find((e: { event: string }) => e.event === "tokens_auto_revoked");
      assert.equal(auto.details.count, 12);
    });
    await t.step("reset", async () => {
      const fresh = await o.createToken({ name: "after change" });
      await env.app.request("/api/password-reset", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: o.client.user.email }),
      });
      let link = "";
      for await (const e of env.kv.list<OutboxMessage>({ prefix: outboxPrefix() })) {
        if (e.value.to === o.client.user.email) link = e.value.link;
      }
      const secret = new URL(link).searchParams.get("token");
      const res = await env.app.request("/api/password-reset/confirm", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: secret, new_password: "third-password-789" }),
      });
      assert.equal(res.status, 200);
      assert.equal((await res.json()).tokens_revoked, 1);
      assert.equal((await bearer(env, "GET", "/api/tokens/self", fresh.token)).status, 401);
    });
  } finally {
    env.close();
  }
});

Deno.test("the security log records token events with IP and user agent, never a secret", async () => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tok = await o.createToken();
    await bearer(env, "PATCH", `/api/tokens/${tok.id}`, tok.token, {
      json: { name: "renamed" },
      ip: "198.51.100.4",
      headers: { "user-agent": "ci-runner/1.0" },
    });
    const rotated = await (await bearer(env, "POST", `/api/tokens/${tok.id}/rotate`, tok.token, {
      ip: "198.51.100.4",
      headers: { "user-agent": "ci-runner/1.0" },
    })).json();
    await o.client.request("DELETE", `/api/tokens/${tok.id}`);
    const res = await o.client.request("GET", "/api/audit");
    const { entries } = await res.json();
    const events = entries.map((e: { event: string }) => e.event);
    for (const e of ["token_created", "token_edited", "token_rotated", "token_revoked"]) {
      assert.ok(events.includes(e), e);
    }
    const rot = entries.find((e: { event: string }) => e.event === "token_rotated");
    assert.equal(rot.ip, "198.51.100.4");
    assert.equal(rot.user_agent, "ci-runner/1.0");
    assert.equal(rot.details.token_id, tok.id);
    assert.equal(rot.details.via, "bearer");
    assert.equal(rot.details.prefix, rotated.prefix);
    const text = JSON.stringify(entries);
    assert.ok(!text.includes(tok.token) && !text.includes(rotated.token), "no secret logged");
    assert.ok(!env.log.join("\n").includes(tok.token));
  } finally {
    env.close();
  }
});

Deno.test("last_used_at shows the last authentication after a flush", async () => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tok = await o.createToken();
    const resolver = new TokenResolver(env.deps);
    const found = await resolver.resolve(tok.token);
    assert.ok(found.ok);
    resolver.markUsed(found.token.id);
    const usedAt = env.clock.now();
    manual(env).advance(30_000);
    let body = await (await o.client.request("GET", `/api/tokens/${tok.id}`)).json();
    assert.equal(body.last_used_at, null, "not written on the request path");
    await resolver.flush();
    body = await (await o.client.request("GET", `/api/tokens/${tok.id}`)).json();
    assert.equal(body.last_used_at, new Date(usedAt).toISOString());
  } finally {
    env.close();
  }
});

Deno.test("the token API never answers 5xx to garbage", async () => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tok = await o.createToken();
    const bodies = [
      "",
      "null",
      "[]",
      "0",
      '"x"',
      "{",
      '{"name":{}}',
      '{"expires_in_days":1e309}',
      '{"allowed_ips":[null]}',
      '{"allowed_ips":{"a":1}}',
      '{"server_ids":[{}]}',
      '{"__proto__":{"x":1}}',
      '{"name":"\\u0000"}',
      "\u00ff\u00fe",
      "x".repeat(2_000_000),
    ];
    const paths = [
      ["POST", "/api/tokens"],
      ["PATCH", `/api/tokens/${tok.id}`],
      ["POST", `/api/tokens/${tok.id}/rotate`],
      ["PATCH", "/api/tokens/%00"],
      ["GET", "/api/tokens/%E0%A4%A"],
    ];
    const auths = [
      undefined,
      "Bearer",
      "Bearer ",
      "Bearer svc_",
      `Bearer ${tok.token} extra`,
      `bearer ${"a".repeat(5000)}`,
      `Bearer ${tok.token.toLowerCase()}`,
    ];
    for (const [method, path] of paths) {
      for (const raw of bodies) {
        for (const auth of auths) {
          const headers: Record<string, string> = {
            cookie: o.client.cookie,
            "x-csrf-token": o.client.csrf,
            "content-type": "application/json",
          };
          if (auth !== undefined) headers.authorization = auth;
          const res = await env.app.request(path, {
            method,
            headers,
            body: method === "GET" ? undefined : raw,
          });
          assert.ok(
            res.status >= 200 && res.status < 500,
            `${method} ${path} ${auth}: ${res.status}`,
          );
          if (res.status >= 400) await errorOf(res);
          else await res.body?.cancel();
        }
      }
    }
  } finally {
    env.close();
  }
});
