import assert from "node:assert/strict";
import { testEnv } from "../../helpers.ts";
import {
  createUser,
  getUser,
  getUserByEmail,
  normalizeEmail,
  publicUser,
} from "../../../lib/accounts/users.ts";
import { HttpError } from "../../../lib/http/errors.ts";
import { userByEmailKey, userKey } from "../../../lib/kv/keys.ts";
import { verifyPassword } from "../../../lib/accounts/passwords.ts";

Deno.test("createUser() stores the user, its email index and a password hash", async () => {
  const env = await testEnv();
  try {
    const u = await createUser(env.deps, "  Alice@Example.COM ", "password123");
    assert.equal(u.email, "alice@example.com");
    assert.deepEqual((await env.kv.get(userKey(u.id))).value, u);
    assert.equal((await env.kv.get(userByEmailKey("alice@example.com"))).value, u.id);
    assert.notEqual(u.password_hash, "password123");
    assert.equal(await verifyPassword("password123", u.password_hash), true);
    assert.deepEqual(await getUser(env.kv, u.id), u);
    assert.deepEqual(await getUserByEmail(env.kv, "ALICE@example.com"), u);
    assert.deepEqual(publicUser(u), { id: u.id, email: "alice@example.com" });
  } finally {
    env.close();
  }
});

Deno.test("createUser() refuses a taken email", async () => {
  const env = await testEnv();
  try {
    await createUser(env.deps, "bob@example.com", "password123");
    await assert.rejects(
      () => createUser(env.deps, "BOB@example.com", "another-password"),
      (e: unknown) => e instanceof HttpError && e.status === 409,
    );
  } finally {
    env.close();
  }
});

Deno.test("createUser() refuses bad emails and weak passwords with RangeError", async (t) => {
  const env = await testEnv();
  try {
    const cases: [string, string, string][] = [
      ["no at sign", "bob.example.com", "password123"],
      ["no domain dot", "bob@example", "password123"],
      ["spaces", "bo b@example.com", "password123"],
      ["too long", `${"b".repeat(250)}@example.com`, "password123"],
      ["empty", "", "password123"],
      ["short password", "bob@example.com", "short"],
      ["7 characters", "bob@example.com", "1234567"],
      ["257 characters", "bob@example.com", "x".repeat(257)],
    ];
    for (const [name, email, password] of cases) {
      await t.step(name, async () => {
        await assert.rejects(() => createUser(env.deps, email, password), RangeError);
      });
    }
    assert.equal(await getUserByEmail(env.kv, "bob@example.com"), null);
  } finally {
    env.close();
  }
});

Deno.test("normalizeEmail() trims and lower-cases", () => {
  assert.equal(normalizeEmail(" A@B.CO "), "a@b.co");
});

Deno.test("getUserByEmail() is null for unknown or malformed emails", async () => {
  const env = await testEnv();
  try {
    assert.equal(await getUserByEmail(env.kv, "nobody@example.com"), null);
    assert.equal(await getUserByEmail(env.kv, "not an email"), null);
    assert.equal(await getUser(env.kv, "no-such-id"), null);
  } finally {
    env.close();
  }
});

Deno.test("createUser() under 20 concurrent sign-ups of one email: exactly one wins", async () => {
  const env = await testEnv();
  try {
    const results = await Promise.allSettled(
      Array.from(
        { length: 20 },
        (_, i) =>
          createUser(env.deps, i % 2 ? "race@example.com" : "RACE@example.com", `password-${i}`),
      ),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected");
    assert.equal(won.length, 1);
    assert.equal(lost.length, 19);
    for (const r of lost) {
      const e = (r as PromiseRejectedResult).reason;
      assert.ok(e instanceof HttpError && e.status === 409, String(e));
    }
    const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof createUser>>>)
      .value;
    // Indexes are consistent: the email points at the winner, and only one user record exists.
    assert.equal((await env.kv.get(userByEmailKey("race@example.com"))).value, winner.id);
    const users = [];
    for await (const e of env.kv.list({ prefix: ["users"] })) users.push(e.value);
    assert.equal(users.length, 1);
    assert.deepEqual(users[0], winner);
  } finally {
    env.close();
  }
});
