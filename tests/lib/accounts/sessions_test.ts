import assert from "node:assert/strict";
import { randomUser, testEnv } from "../../helpers.ts";
import {
  createSession,
  deleteSession,
  deleteUserSessions,
  getSession,
  SESSION_TTL_MS,
} from "../../../lib/accounts/sessions.ts";
import { sessionByUserPrefix, sessionKey } from "../../../lib/kv/keys.ts";
import { sha256Hex } from "../../../lib/ids.ts";
import type { ManualClock } from "../../../lib/clock.ts";

Deno.test("createSession() stores only the hash of the id, with a CSRF token and expiry", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const { id, session } = await createSession(env.deps, u.id);
    assert.match(id, /^[A-Za-z0-9_-]{43}$/);
    assert.match(session.csrf_token, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(session.user_id, u.id);
    assert.equal(
      Date.parse(session.expires_at) - Date.parse(session.created_at),
      SESSION_TTL_MS,
    );
    assert.equal((await env.kv.get(["sessions", id])).value, null, "the raw id is not a key");
    assert.deepEqual((await env.kv.get(sessionKey(await sha256Hex(id)))).value, session);
    const found = await getSession(env.deps, id);
    assert.deepEqual(found, { hash: await sha256Hex(id), session });
    const again = await createSession(env.deps, u.id);
    assert.notEqual(again.id, id);
    assert.notEqual(again.session.csrf_token, session.csrf_token);
  } finally {
    env.close();
  }
});

Deno.test("getSession() is null for unknown, malformed and expired ids", async (t) => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const { id } = await createSession(env.deps, u.id);
    for (
      const bad of ["", "x", "a".repeat(43), id + "!", id.slice(1), "../../etc", "a".repeat(500)]
    ) {
      await t.step(JSON.stringify(bad.slice(0, 20)), async () => {
        assert.equal(await getSession(env.deps, bad), null);
      });
    }
    await t.step("expired by the clock", async () => {
      const clock = env.clock as ManualClock;
      clock.advance(SESSION_TTL_MS - 1);
      assert.notEqual(await getSession(env.deps, id), null);
      clock.advance(1);
      assert.equal(await getSession(env.deps, id), null);
    });
  } finally {
    env.close();
  }
});

Deno.test("deleteSession() ends one session; deleteUserSessions() ends all but the kept one", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const other = await randomUser(env.deps);
    const s = await Promise.all([1, 2, 3, 4].map(() => createSession(env.deps, u.id)));
    const foreign = await createSession(env.deps, other.id);
    const hash = async (i: number) => await sha256Hex(s[i].id);
    await deleteSession(env.kv, await hash(0), u.id);
    assert.equal(await getSession(env.deps, s[0].id), null);
    assert.notEqual(await getSession(env.deps, s[1].id), null);

    assert.equal(await deleteUserSessions(env.kv, u.id, await hash(1)), 2);
    assert.notEqual(await getSession(env.deps, s[1].id), null);
    assert.equal(await getSession(env.deps, s[2].id), null);
    assert.equal(await getSession(env.deps, s[3].id), null);
    assert.notEqual(await getSession(env.deps, foreign.id), null, "other users keep theirs");
    const left = [];
    for await (const e of env.kv.list({ prefix: sessionByUserPrefix(u.id) })) left.push(e.key);
    assert.equal(left.length, 1, "the by-user index follows");

    assert.equal(await deleteUserSessions(env.kv, u.id), 1);
    assert.equal(await getSession(env.deps, s[1].id), null);
  } finally {
    env.close();
  }
});
