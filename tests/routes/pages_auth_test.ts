/** Signed-out pages work without JavaScript: classic form posts, redirects, cross-site refusal. */
import assert from "node:assert/strict";
import { randomUser, signedIn, type TestEnv, testEnv } from "../helpers.ts";

/** Posts an urlencoded form as a same-origin browser would (unless `headers` say otherwise). */
function post(env: TestEnv, path: string, fields: Record<string, string>, headers = {}) {
  return env.app.request(path, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: "http://localhost",
      "sec-fetch-site": "same-origin",
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

const cookieOf = (res: Response) => res.headers.get("set-cookie")?.split(";")[0] ?? "";

Deno.test("dashboard pages redirect to sign-in without a session", async (t) => {
  const env = await testEnv();
  try {
    for (const path of ["/tokens", "/servers", "/servers/demo", "/account", "/security", "/"]) {
      await t.step(path, async () => {
        const res = await env.app.request(path);
        assert.equal(res.status, 303);
        const to = res.headers.get("location")!;
        assert.ok(to.startsWith("/sign-in"), to);
        if (path !== "/") assert.equal(new URL(to, "http://x").searchParams.get("next"), path);
      });
    }
  } finally {
    env.close();
  }
});

Deno.test("sign-in page: a form without scripts that posts back and redirects", async (t) => {
  const env = await testEnv();
  const user = await randomUser(env.deps);
  try {
    await t.step("the page ships no JavaScript", async () => {
      const res = await env.app.request("/sign-in");
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, /<form method="post" action="\/sign-in"/);
      assert.ok(!html.includes("<script"), "no script on a page without islands");
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.match(res.headers.get("content-security-policy")!, /script-src 'self'/);
    });
    await t.step("right password → 303 to next, with the session cookie", async () => {
      const res = await post(env, "/sign-in", {
        email: user.email,
        password: "password123",
        next: "/servers",
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/servers");
      const page = await env.app.request("/servers", { headers: { cookie: cookieOf(res) } });
      assert.equal(page.status, 200);
    });
    await t.step("next pointing off-site falls back to /tokens", async () => {
      for (const next of ["//evil.example/x", "https://evil.example", "/\\evil.example"]) {
        const res = await post(env, "/sign-in", {
          email: user.email,
          password: "password123",
          next,
        });
        assert.equal(res.headers.get("location"), "/tokens");
      }
    });
    await t.step("wrong password → the form again with the message, no cookie", async () => {
      const res = await post(env, "/sign-in", { email: user.email, password: "nope-nope-nope" });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get("set-cookie"), null);
      const html = await res.text();
      assert.match(html, /role="alert"[^>]*>Wrong email or password/);
      assert.ok(html.includes(`value="${user.email}"`), "the email is kept");
    });
    await t.step("cross-site posts are refused", async () => {
      const fields = { email: user.email, password: "password123" };
      for (
        const headers of [
          { origin: "https://evil.example", "sec-fetch-site": "" },
          { "sec-fetch-site": "cross-site" },
          { "sec-fetch-site": "same-site" },
          { origin: "null", "sec-fetch-site": "" },
        ]
      ) {
        const res = await post(env, "/sign-in", fields, headers);
        assert.equal(res.status, 403, JSON.stringify(headers));
        assert.equal(res.headers.get("set-cookie"), null);
      }
    });
    await t.step("a signed-in visit to /sign-in goes to the dashboard", async () => {
      const client = await signedIn(env, user);
      const res = await env.app.request("/sign-in", { headers: { cookie: client.cookie } });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/tokens");
    });
  } finally {
    env.close();
  }
});

Deno.test("sign-up page creates the account and signs in; duplicates are explained", async () => {
  const env = await testEnv();
  try {
    const email = `new-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const res = await post(env, "/sign-up", { email, password: "long-enough-pw" });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/tokens");
    const tokens = await env.app.request("/tokens", { headers: { cookie: cookieOf(res) } });
    assert.equal(tokens.status, 200);
    const again = await post(env, "/sign-up", { email, password: "long-enough-pw" });
    assert.equal(again.status, 409);
    assert.match(await again.text(), /already exists/);
    const short = await post(env, "/sign-up", { email: `x${email}`, password: "short" });
    assert.equal(short.status, 400);
    assert.match(await short.text(), /at least 8 characters/);
  } finally {
    env.close();
  }
});

Deno.test("password reset by form: request, link page, new password, single use", async () => {
  const env = await testEnv();
  const user = await randomUser(env.deps);
  try {
    const asked = await post(env, "/forgot-password", { email: user.email });
    assert.equal(asked.status, 200);
    assert.match(await asked.text(), /If an account exists/);
    const unknown = await post(env, "/forgot-password", { email: "nobody@example.com" });
    assert.match(await unknown.text(), /If an account exists/);
    const link = env.log.map((l) => l.match(/link=(\S+)/)?.[1]).find(Boolean)!;
    const path = new URL(link).pathname + new URL(link).search;
    const token = new URL(link).searchParams.get("token")!;

    const page = await env.app.request(path);
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("referrer-policy"), "no-referrer");
    assert.ok((await page.text()).includes(`value="${token}"`));

    const done = await post(env, "/reset-password", { token, new_password: "brand-new-pass" });
    assert.equal(done.status, 200);
    assert.match(await done.text(), /Password changed/);
    const reused = await post(env, "/reset-password", { token, new_password: "another-pass1" });
    assert.equal(reused.status, 400);
    assert.match(await reused.text(), /invalid, used or expired/);

    const old = await post(env, "/sign-in", { email: user.email, password: "password123" });
    assert.equal(old.status, 401);
    const fresh = await post(env, "/sign-in", { email: user.email, password: "brand-new-pass" });
    assert.equal(fresh.status, 303);
  } finally {
    env.close();
  }
});

Deno.test("sign-out form needs the session's CSRF token", async () => {
  const env = await testEnv();
  try {
    const client = await signedIn(env);
    const refused = await post(env, "/sign-out", { _csrf: "wrong" }, { cookie: client.cookie });
    assert.equal(refused.status, 403);
    const res = await post(env, "/sign-out", { _csrf: client.csrf }, { cookie: client.cookie });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), "/sign-in");
    const after = await env.app.request("/tokens", { headers: { cookie: client.cookie } });
    assert.equal(after.status, 303, "the session is gone");
  } finally {
    env.close();
  }
});
