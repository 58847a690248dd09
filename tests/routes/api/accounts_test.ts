import assert from "node:assert/strict";
import { randomUser, signedIn, type TestEnv, testEnv } from "../../helpers.ts";
import { signInFailuresKey } from "../../../lib/kv/keys.ts";
import { FAILURE_WINDOW_MS, MAX_FAILURES_PER_ACCOUNT } from "../../../lib/accounts/sign_in.ts";
import { RESET_TTL_MS } from "../../../lib/accounts/password.ts";
import type { ManualClock } from "../../../lib/clock.ts";

/** Asserts an API error: status, JSON content type, `{"error": {code, message, ...}}`. */
async function expectError(res: Response, status: number, code: string, mentions?: string) {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const body = JSON.parse(text);
  assert.deepEqual(Object.keys(body), ["error"]);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, "string");
  assert.ok(body.error.message.length > 0);
  if (mentions) assert.ok(body.error.message.includes(mentions), body.error.message);
  return body.error;
}

function send(
  env: TestEnv,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return Promise.resolve(env.app.request(path, {
    method,
    headers: body === undefined ? headers : { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  }));
}

const cookieOf = (res: Response) => res.headers.get("set-cookie")!.split(";")[0];

Deno.test("POST /api/users signs up and refuses a taken email", async () => {
  const env = await testEnv();
  try {
    const res = await send(env, "POST", "/api/users", {
      email: "New@Example.com",
      password: "password123",
    });
    assert.equal(res.status, 201);
    const body = await res.json();
    assert.deepEqual(Object.keys(body).sort(), ["email", "id"]);
    assert.equal(body.email, "new@example.com");
    assert.equal(res.headers.get("cache-control"), "no-store");
    await expectError(
      await send(env, "POST", "/api/users", { email: "new@example.com", password: "password456" }),
      409,
      "conflict",
    );
  } finally {
    env.close();
  }
});

Deno.test("POST /api/users refuses bad input with a 400 naming the problem", async (t) => {
  const env = await testEnv();
  try {
    const cases: [string, unknown, string, string][] = [
      ["missing email", { password: "password123" }, "invalid_request", '"email"'],
      ["missing password", { email: "a@example.com" }, "invalid_request", '"password"'],
      ["email not a string", { email: 5, password: "password123" }, "invalid_request", '"email"'],
      [
        "password not a string",
        { email: "a@example.com", password: ["x"] },
        "invalid_request",
        '"password"',
      ],
      ["not an email", { email: "nope", password: "password123" }, "invalid_request", "email"],
      [
        "weak password",
        { email: "a@example.com", password: "short" },
        "invalid_request",
        "Password",
      ],
      [
        "unknown field",
        { email: "a@example.com", password: "password123", admin: true },
        "unknown_field",
        '"admin"',
      ],
      ["array body", [], "invalid_request", "object"],
      ["malformed JSON", '{"email":', "invalid_json", ""],
    ];
    for (const [name, body, code, mentions] of cases) {
      await t.step(name, async () => {
        await expectError(await send(env, "POST", "/api/users", body), 400, code, mentions);
      });
    }
  } finally {
    env.close();
  }
});

Deno.test("POST /api/session signs in with an HttpOnly, SameSite=Lax cookie and a CSRF token", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const res = await send(env, "POST", "/api/session", {
      email: u.email,
      password: "password123",
    });
    assert.equal(res.status, 200);
    const body = await res.json();
    assert.deepEqual(body.user, { id: u.id, email: u.email });
    assert.match(body.csrf_token, /^[A-Za-z0-9_-]{20,}$/);
    const cookie = res.headers.get("set-cookie")!;
    assert.match(cookie, /^tg_session=[A-Za-z0-9_-]{43};/);
    assert.match(cookie, /; HttpOnly/i);
    assert.match(cookie, /; SameSite=Lax/i);
    assert.match(cookie, /; Path=\//i);
    assert.doesNotMatch(cookie, /Secure/i, "no Secure flag on http");
    const me = await send(env, "GET", "/api/session", undefined, { cookie: cookieOf(res) });
    assert.equal(me.status, 200);
    assert.deepEqual(await me.json(), body);
  } finally {
    env.close();
  }
});

Deno.test("POST /api/session on https sets a Secure __Host- cookie that then works", async () => {
  const env = await testEnv({ env: { PLATFORM_URL: "https://tools.example.com" } });
  try {
    const u = await randomUser(env.deps);
    const res = await send(env, "POST", "/api/session", {
      email: u.email,
      password: "password123",
    });
    assert.equal(res.status, 200);
    const { csrf_token } = await res.json();
    const cookie = res.headers.get("set-cookie")!;
    assert.match(cookie, /^__Host-tg_session=[A-Za-z0-9_-]{43};/);
    assert.match(cookie, /; Secure/i);
    assert.match(cookie, /; HttpOnly/i);
    assert.match(cookie, /; SameSite=Lax/i);
    assert.match(cookie, /; Path=\/(;|$)/i);
    assert.doesNotMatch(cookie, /Domain=/i);
    const me = await send(env, "GET", "/api/session", undefined, { cookie: cookieOf(res) });
    assert.equal(me.status, 200);
    const out = await send(env, "DELETE", "/api/session", undefined, {
      cookie: cookieOf(res),
      "x-csrf-token": csrf_token,
    });
    assert.equal(out.status, 204);
    assert.match(out.headers.get("set-cookie")!, /^__Host-tg_session=;.*Max-Age=0/i);
  } finally {
    env.close();
  }
});

Deno.test("POST /api/session refuses wrong credentials with 401, bad bodies with 400", async (t) => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    await t.step("wrong password", async () => {
      const res = await send(env, "POST", "/api/session", {
        email: u.email,
        password: "wrong-pass",
      });
      await expectError(res, 401, "unauthorized");
      assert.equal(res.headers.get("set-cookie"), null);
    });
    await t.step("unknown account", async () => {
      await expectError(
        await send(env, "POST", "/api/session", { email: "nobody@example.com", password: "x" }),
        401,
        "unauthorized",
      );
    });
    await t.step("missing password", async () => {
      await expectError(
        await send(env, "POST", "/api/session", { email: u.email }),
        400,
        "invalid_request",
        '"password"',
      );
    });
    await t.step("unknown field", async () => {
      await expectError(
        await send(env, "POST", "/api/session", {
          email: u.email,
          password: "password123",
          remember: true,
        }),
        400,
        "unknown_field",
        '"remember"',
      );
    });
  } finally {
    env.close();
  }
});

Deno.test("POST /api/session answers 429 with Retry-After once an account is locked out", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const window = Math.floor(env.clock.now() / FAILURE_WINDOW_MS);
    await env.kv.set(
      signInFailuresKey("email", u.email, window),
      MAX_FAILURES_PER_ACCOUNT,
    );
    const res = await send(env, "POST", "/api/session", {
      email: u.email,
      password: "password123",
    });
    await expectError(res, 429, "rate_limited");
    const ra = Number(res.headers.get("retry-after"));
    assert.ok(ra >= 1 && ra <= FAILURE_WINDOW_MS / 1000, String(ra));
    (env.clock as ManualClock).advance(FAILURE_WINDOW_MS);
    assert.equal(
      (await send(env, "POST", "/api/session", { email: u.email, password: "password123" })).status,
      200,
    );
  } finally {
    env.close();
  }
});

Deno.test("POST /api/session counts failures per IP behind a trusted proxy", async () => {
  const env = await testEnv({ env: { TRUST_PROXY: "true" } });
  try {
    const u = await randomUser(env.deps);
    const window = Math.floor(env.clock.now() / FAILURE_WINDOW_MS);
    await env.kv.set(signInFailuresKey("ip", "198.51.100.4", window), 1000);
    const creds = { email: u.email, password: "password123" };
    await expectError(
      await send(env, "POST", "/api/session", creds, { "x-forwarded-for": "198.51.100.4" }),
      429,
      "rate_limited",
    );
    assert.equal(
      (await send(env, "POST", "/api/session", creds, { "x-forwarded-for": "198.51.100.5" }))
        .status,
      200,
    );
  } finally {
    env.close();
  }
});

Deno.test("GET /api/session and DELETE /api/session need a session; sign-out ends it", async () => {
  const env = await testEnv();
  try {
    await expectError(await send(env, "GET", "/api/session"), 401, "unauthorized");
    await expectError(
      await send(env, "GET", "/api/session", undefined, {
        cookie: "tg_session=forged-session-id-000000000",
      }),
      401,
      "unauthorized",
    );
    const c = await signedIn(env);
    await expectError(
      await send(env, "DELETE", "/api/session", undefined, { cookie: c.cookie }),
      403,
      "csrf_failed",
    );
    const out = await c.request("DELETE", "/api/session");
    assert.equal(out.status, 204);
    assert.match(out.headers.get("set-cookie")!, /^tg_session=;/);
    await expectError(await c.request("GET", "/api/session"), 401, "unauthorized");
    await expectError(await c.request("DELETE", "/api/session"), 401, "unauthorized");
  } finally {
    env.close();
  }
});

Deno.test("POST /api/password changes the password, ends other sessions, keeps this one", async () => {
  const env = await testEnv();
  try {
    const c = await signedIn(env);
    const other = await signedIn(env, c.user);
    await expectError(
      await c.request("POST", "/api/password", {
        current_password: "wrong-one",
        new_password: "new-password-1",
      }),
      403,
      "forbidden",
    );
    await expectError(
      await c.request("POST", "/api/password", {
        current_password: "password123",
        new_password: "short",
      }),
      400,
      "invalid_request",
      "8 characters",
    );
    await expectError(
      await c.request("POST", "/api/password", { current_password: "password123" }),
      400,
      "invalid_request",
      '"new_password"',
    );
    await expectError(
      await c.request("POST", "/api/password", {
        current_password: "password123",
        new_password: "new-password-1",
        email: "x@example.com",
      }),
      400,
      "unknown_field",
      '"email"',
    );
    const res = await c.request("POST", "/api/password", {
      current_password: "password123",
      new_password: "new-password-1",
    });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true, tokens_revoked: 0 });
    assert.equal((await c.request("GET", "/api/session")).status, 200);
    await expectError(await other.request("GET", "/api/session"), 401, "unauthorized");
    await expectError(
      await send(env, "POST", "/api/session", { email: c.user.email, password: "password123" }),
      401,
      "unauthorized",
    );
    assert.equal(
      (await send(env, "POST", "/api/session", { email: c.user.email, password: "new-password-1" }))
        .status,
      200,
    );
    const audit = await (await c.request("GET", "/api/audit")).json();
    assert.ok(audit.entries.some((e: { event: string }) => e.event === "password_changed"));
  } finally {
    env.close();
  }
});

Deno.test("POST /api/password-reset is 202 always; the link works once, within 30 minutes", async () => {
  const env = await testEnv();
  try {
    const c = await signedIn(env);
    for (const email of ["nobody@example.com", "not-an-email", c.user.email]) {
      const res = await send(env, "POST", "/api/password-reset", { email });
      assert.equal(res.status, 202);
      const body = await res.json();
      assert.equal(body.ok, true);
      assert.match(body.message, /If an account exists/);
    }
    assert.equal(env.log.length, 1, "only the real account gets a message");
    const link = env.log[0].match(/link=(\S+)/)![1];
    const token = new URL(link).searchParams.get("token")!;

    await expectError(
      await send(env, "POST", "/api/password-reset/confirm", { token, new_password: "short" }),
      400,
      "invalid_request",
      "8 characters",
    );
    await expectError(
      await send(env, "POST", "/api/password-reset/confirm", { token }),
      400,
      "invalid_request",
      '"new_password"',
    );
    const ok = await send(env, "POST", "/api/password-reset/confirm", {
      token,
      new_password: "after-reset-1",
    });
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { ok: true, tokens_revoked: 0 });
    await expectError(await c.request("GET", "/api/session"), 401, "unauthorized");
    await expectError(
      await send(env, "POST", "/api/password-reset/confirm", {
        token,
        new_password: "after-reset-2",
      }),
      400,
      "invalid_request",
      "invalid, used or expired",
    );
    assert.equal(
      (await send(env, "POST", "/api/session", { email: c.user.email, password: "after-reset-1" }))
        .status,
      200,
    );

    await send(env, "POST", "/api/password-reset", { email: c.user.email });
    const late = new URL(env.log[1].match(/link=(\S+)/)![1]).searchParams.get("token")!;
    (env.clock as ManualClock).advance(RESET_TTL_MS);
    await expectError(
      await send(env, "POST", "/api/password-reset/confirm", {
        token: late,
        new_password: "too-late-1",
      }),
      400,
      "invalid_request",
      "expired",
    );
  } finally {
    env.close();
  }
});

Deno.test("POST /api/password-reset refuses bad bodies", async (t) => {
  const env = await testEnv();
  try {
    const cases: [string, string, unknown, string][] = [
      ["/api/password-reset", "missing email", {}, "invalid_request"],
      ["/api/password-reset", "email number", { email: 1 }, "invalid_request"],
      ["/api/password-reset", "unknown field", { email: "a@example.com", x: 1 }, "unknown_field"],
      [
        "/api/password-reset/confirm",
        "token number",
        { token: 1, new_password: "x".repeat(9) },
        "invalid_request",
      ],
      ["/api/password-reset/confirm", "token too long", {
        token: "a".repeat(201),
        new_password: "x".repeat(9),
      }, "invalid_request"],
      ["/api/password-reset/confirm", "unknown field", {
        token: "a",
        new_password: "b",
        email: "c",
      }, "unknown_field"],
    ];
    for (const [path, name, body, code] of cases) {
      await t.step(`${path} ${name}`, async () => {
        await expectError(await send(env, "POST", path, body), 400, code);
      });
    }
  } finally {
    env.close();
  }
});

Deno.test("GET /api/audit lists the user's sign-ins newest first, paged", async () => {
  const env = await testEnv();
  try {
    const c = await signedIn(env);
    (env.clock as ManualClock).advance(1000);
    await signedIn(env, c.user);
    await expectError(await send(env, "GET", "/api/audit"), 401, "unauthorized");
    const res = await c.request("GET", "/api/audit", undefined, { "user-agent": "tests/1" });
    assert.equal(res.status, 200);
    const page = await res.json();
    assert.deepEqual(page.entries.map((e: { event: string }) => e.event), ["sign_in", "sign_in"]);
    assert.ok(Date.parse(page.entries[0].at) > Date.parse(page.entries[1].at));
    assert.equal(page.cursor, null);
    const first = await (await c.request("GET", "/api/audit?limit=1")).json();
    assert.equal(first.entries.length, 1);
    assert.ok(first.cursor);
    const second = await (await c.request(
      "GET",
      `/api/audit?limit=1&cursor=${encodeURIComponent(first.cursor)}`,
    )).json();
    assert.equal(second.entries.length, 1);
    assert.notEqual(second.entries[0].id, first.entries[0].id);
    for (
      const q of ["limit=0", "limit=201", "limit=abc", "limit=1.5", "limit=", "cursor=%25%25bad"]
    ) {
      await expectError(await c.request("GET", `/api/audit?${q}`), 400, "invalid_request");
    }
    // Other users' logs are not visible.
    const d = await signedIn(env);
    const theirs = await (await d.request("GET", "/api/audit")).json();
    assert.equal(theirs.entries.length, 1);
  } finally {
    env.close();
  }
});
