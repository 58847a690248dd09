/** Token lifecycle in lib: what each change writes to KV, the feed and the security log. */
import assert from "node:assert/strict";
import { randomUser, serverWith, testEnv } from "../../helpers.ts";
import { assertIndexConsistent } from "./fixtures.ts";
import { createToken, editToken, revokeToken, rotateToken } from "../../../lib/tokens/lifecycle.ts";
import { getTokenByHash, type TokenRecord } from "../../../lib/tokens/store.ts";
import { hashSecret } from "../../../lib/tokens/secret.ts";
import { changePrefix, tokenByHashKey, tokenKey } from "../../../lib/kv/keys.ts";
import type { Change } from "../../../lib/kv/change_feed.ts";
import { listAudit } from "../../../lib/audit/log.ts";
import { HttpError } from "../../../lib/http/errors.ts";

const origin = { ip: "192.0.2.9", user_agent: "lib-test" };

async function setup() {
  const env = await testEnv();
  const user = await randomUser(env.deps);
  const server = await serverWith(env.deps, user.id);
  const issued = await createToken(env.deps, user.id, {
    name: "lib",
    server_ids: [server.id],
    expires_in_days: 30,
    allowed_ips: ["192.0.2.0/24"],
  }, origin);
  const feed: Change[] = [];
  env.deps.changes.subscribe((c) => feed.push(c));
  return {
    env,
    user,
    server,
    ...issued,
    feed,
    actor: { kind: "session" as const, userId: user.id },
  };
}

async function feedEntries(kv: Deno.Kv): Promise<Change[]> {
  const out: Change[] = [];
  for await (const e of kv.list<Change>({ prefix: changePrefix() })) out.push(e.value);
  return out;
}

Deno.test("createToken() stores only the hash, indexes it, logs and publishes it", async () => {
  const { env, user, secret, record } = await setup();
  try {
    assert.equal(record.hash, await hashSecret(secret));
    const stored = (await env.kv.get<TokenRecord>(tokenKey(record.id))).value!;
    assert.ok(!JSON.stringify(stored).includes(secret));
    assert.deepEqual(await getTokenByHash(env.kv, record.hash), stored);
    const tokenChanges = (await feedEntries(env.kv)).filter((c) => c.kind === "token");
    assert.deepEqual(tokenChanges, [{ kind: "token", hash: record.hash }]);
    const { entries } = await listAudit(env.kv, user.id);
    assert.equal(entries[0].event, "token_created");
    assert.equal(entries[0].ip, origin.ip);
    await assertIndexConsistent(env.kv);
  } finally {
    env.close();
  }
});

Deno.test("rotate() keeps id, scopes and expiry", async () => {
  const { env, record, actor, feed } = await setup();
  try {
    const next = await rotateToken(env.deps, actor, record.id, origin);
    assert.notEqual(next.record.hash, record.hash);
    assert.equal(next.record.hash, await hashSecret(next.secret));
    assert.equal(next.record.prefix, next.secret.slice(0, 12));
    for (
      const k of ["id", "name", "server_ids", "expires_at", "allowed_ips", "created_at"] as const
    ) {
      assert.deepEqual(next.record[k], record[k], k);
    }
    assert.equal((await env.kv.get(tokenByHashKey(record.hash))).value, null, "old index gone");
    assert.equal((await env.kv.get(tokenByHashKey(next.record.hash))).value, record.id);
    assert.deepEqual(feed, [
      { kind: "token", hash: record.hash },
      { kind: "token", hash: next.record.hash },
    ]);
    await assertIndexConsistent(env.kv);
  } finally {
    env.close();
  }
});

Deno.test("editToken() and revokeToken() publish the current hash", async () => {
  const { env, record, actor, user, feed } = await setup();
  try {
    await editToken(env.deps, actor, record.id, { name: "new" }, origin);
    await revokeToken(env.deps, user.id, record.id, origin);
    assert.deepEqual(feed, [{ kind: "token", hash: record.hash }, {
      kind: "token",
      hash: record.hash,
    }]);
    const stored = (await env.kv.get<TokenRecord>(tokenKey(record.id))).value!;
    assert.equal(stored.name, "new");
    assert.equal(stored.revoked_at, new Date(env.clock.now()).toISOString());
    await assertIndexConsistent(env.kv);
  } finally {
    env.close();
  }
});

Deno.test("lib changes refuse other users and Bearer tokens acting on others", async (t) => {
  const { env, record, secret: _secret } = await setup();
  try {
    const stranger = await randomUser(env.deps);
    const cases: [string, () => Promise<unknown>, string][] = [
      [
        "another user's session rotates",
        () => rotateToken(env.deps, { kind: "session", userId: stranger.id }, record.id, origin),
        "not_found",
      ],
      [
        "another user's session revokes",
        () => revokeToken(env.deps, stranger.id, record.id, origin),
        "not_found",
      ],
      [
        "a Bearer token edits another",
        () =>
          editToken(
            env.deps,
            { kind: "bearer", token: { ...record, id: crypto.randomUUID() } },
            record.id,
            {
              name: "x",
            },
            origin,
          ),
        "forbidden",
      ],
      [
        "a Bearer token whose secret was rotated away",
        () =>
          rotateToken(
            env.deps,
            { kind: "bearer", token: { ...record, hash: "0".repeat(64) } },
            record.id,
            origin,
          ),
        "unauthorized",
      ],
    ];
    for (const [name, run, kind] of cases) {
      await t.step(name, async () => {
        await assert.rejects(run, (e: unknown) => e instanceof HttpError && e.kind === kind);
      });
    }
  } finally {
    env.close();
  }
});
