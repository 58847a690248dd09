import assert from "node:assert/strict";
import { randomUser, testEnv } from "../../helpers.ts";
import {
  changePassword,
  confirmPasswordReset,
  type OutboxMessage,
  requestPasswordReset,
  RESET_TTL_MS,
} from "../../../lib/accounts/password.ts";
import { createSession, getSession } from "../../../lib/accounts/sessions.ts";
import { getUser } from "../../../lib/accounts/users.ts";
import { verifyPassword } from "../../../lib/accounts/passwords.ts";
import { listAudit } from "../../../lib/audit/log.ts";
import { outboxPrefix } from "../../../lib/kv/keys.ts";
import { sha256Hex } from "../../../lib/ids.ts";
import { HttpError } from "../../../lib/http/errors.ts";
import type { ManualClock } from "../../../lib/clock.ts";
import type { AppDeps } from "../../../lib/context.ts";

const origin = { ip: "192.0.2.1", user_agent: "test" };
const status = (code: number) => (e: unknown) => e instanceof HttpError && e.status === code;

async function outbox(kv: Deno.Kv): Promise<OutboxMessage[]> {
  const out: OutboxMessage[] = [];
  for await (const e of kv.list<OutboxMessage>({ prefix: outboxPrefix() })) out.push(e.value);
  return out;
}

async function resetToken(deps: AppDeps, email: string): Promise<string> {
  await requestPasswordReset(deps, email);
  const msgs = await outbox(deps.kv);
  const link = new URL(msgs[msgs.length - 1].link);
  return link.searchParams.get("token")!;
}

Deno.test("changePassword() with the wrong current password is 403 and changes nothing", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const keep = await createSession(env.deps, u.id);
    const other = await createSession(env.deps, u.id);
    await assert.rejects(
      () => changePassword(env.deps, u.id, "not-my-password", "new-password-1", keep.id, origin),
      status(403),
    );
    assert.equal((await getUser(env.kv, u.id))!.password_hash, u.password_hash);
    assert.notEqual(await getSession(env.deps, other.id), null);
  } finally {
    env.close();
  }
});

Deno.test("changePassword() sets the new password, ends other sessions, keeps the current one", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const keep = await createSession(env.deps, u.id);
    const others = await Promise.all([1, 2].map(() => createSession(env.deps, u.id)));
    const result = await changePassword(
      env.deps,
      u.id,
      "password123",
      "brand-new-password",
      await sha256Hex(keep.id),
      origin,
    );
    assert.deepEqual(result, { tokens_revoked: 0 });
    const stored = (await getUser(env.kv, u.id))!;
    assert.equal(await verifyPassword("brand-new-password", stored.password_hash), true);
    assert.equal(await verifyPassword("password123", stored.password_hash), false);
    assert.notEqual(await getSession(env.deps, keep.id), null);
    for (const s of others) assert.equal(await getSession(env.deps, s.id), null);
    const { entries } = await listAudit(env.kv, u.id);
    assert.deepEqual(entries.map((e) => e.event), ["password_changed"]);
    assert.equal(entries[0].ip, "192.0.2.1");
  } finally {
    env.close();
  }
});

Deno.test("changePassword() refuses a weak new password with RangeError", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    await assert.rejects(
      () => changePassword(env.deps, u.id, "password123", "short", "x", origin),
      RangeError,
    );
  } finally {
    env.close();
  }
});

Deno.test("requestPasswordReset() for an unknown email leaves no trace", async () => {
  const env = await testEnv();
  try {
    await requestPasswordReset(env.deps, "nobody@example.com");
    await requestPasswordReset(env.deps, "not an email");
    assert.deepEqual(await outbox(env.kv), []);
    assert.deepEqual(env.log, []);
  } finally {
    env.close();
  }
});

Deno.test("requestPasswordReset() writes a link to the outbox and the log, never the raw token in KV", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    await requestPasswordReset(env.deps, u.email.toUpperCase());
    const [msg] = await outbox(env.kv);
    assert.equal(msg.to, u.email);
    const link = new URL(msg.link);
    assert.equal(link.origin, env.deps.config.platformUrl.origin);
    assert.equal(link.pathname, "/reset-password");
    const token = link.searchParams.get("token")!;
    assert.match(token, /^[A-Za-z0-9_-]{40,}$/);
    assert.ok(msg.body.includes(msg.link));
    assert.equal(env.log.length, 1);
    assert.ok(env.log[0].includes(msg.link) && env.log[0].startsWith("[outbox]"));
    assert.equal((await env.kv.get(["password_resets", token])).value, null);
  } finally {
    env.close();
  }
});

Deno.test("confirmPasswordReset() sets the password once and ends every session", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const sessions = await Promise.all([1, 2].map(() => createSession(env.deps, u.id)));
    const token = await resetToken(env.deps, u.email);
    assert.deepEqual(
      await confirmPasswordReset(env.deps, token, "reset-password-1", origin),
      { tokens_revoked: 0 },
    );
    const stored = (await getUser(env.kv, u.id))!;
    assert.equal(await verifyPassword("reset-password-1", stored.password_hash), true);
    for (const s of sessions) assert.equal(await getSession(env.deps, s.id), null);
    // One-time: the same link fails the second time.
    await assert.rejects(
      () => confirmPasswordReset(env.deps, token, "reset-password-2", origin),
      (e) =>
        e instanceof HttpError && e.status === 400 && /invalid, used or expired/.test(e.message),
    );
    assert.equal(
      await verifyPassword("reset-password-1", (await getUser(env.kv, u.id))!.password_hash),
      true,
    );
    const { entries } = await listAudit(env.kv, u.id);
    assert.ok(entries.some((e) => e.event === "password_reset"));
  } finally {
    env.close();
  }
});

Deno.test("confirmPasswordReset() link expires after 30 minutes", async () => {
  const env = await testEnv();
  try {
    const clock = env.clock as ManualClock;
    const u = await randomUser(env.deps);
    const early = await resetToken(env.deps, u.email);
    const late = await resetToken(env.deps, u.email);
    clock.advance(RESET_TTL_MS - 1000);
    await confirmPasswordReset(env.deps, early, "in-time-password", origin);
    clock.advance(1000);
    await assert.rejects(
      () => confirmPasswordReset(env.deps, late, "too-late-password", origin),
      status(400),
    );
    assert.equal(
      await verifyPassword("in-time-password", (await getUser(env.kv, u.id))!.password_hash),
      true,
    );
  } finally {
    env.close();
  }
});

Deno.test("confirmPasswordReset() refuses bad tokens and weak passwords", async (t) => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const token = await resetToken(env.deps, u.email);
    const cases: [string, string, string, (e: unknown) => boolean][] = [
      ["weak password", token, "short", (e) => e instanceof RangeError],
      ["unknown token", "A".repeat(43), "good-password", status(400)],
      ["malformed token", "not a token!", "good-password", status(400)],
      ["empty token", "", "good-password", status(400)],
    ];
    for (const [name, tok, pw, check] of cases) {
      await t.step(name, async () => {
        await assert.rejects(() => confirmPasswordReset(env.deps, tok, pw, origin), check);
      });
    }
    // The weak attempt did not use up the link.
    await confirmPasswordReset(env.deps, token, "good-password", origin);
  } finally {
    env.close();
  }
});
