/**
 * Issue 3 point 7: many simultaneous rotations of one token leave exactly one working secret and a
 * consistent key space — through `app.request()` and against a real server.
 */
import assert from "node:assert/strict";
import { freePort, TEST_ITERATIONS, testEnv } from "../../helpers.ts";
import { assertIndexConsistent, bearer, owner } from "../../lib/tokens/fixtures.ts";
import { loadConfig } from "../../../lib/config.ts";
import { startToolgate } from "../../../lib/start.ts";
import { lookupSecret } from "../../../lib/tokens/lookup.ts";
import { listAudit } from "../../../lib/audit/log.ts";

const N = 25;

Deno.test("N simultaneous Bearer rotations: exactly one succeeds, the rest get 401", async () => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tok = await o.createToken();
    const answers = await Promise.all(
      Array.from(
        { length: N },
        () => bearer(env, "POST", `/api/tokens/${tok.id}/rotate`, tok.token),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    assert.deepEqual(statuses, [200, ...Array(N - 1).fill(401)]);
    const winner = await answers.find((r) => r.status === 200)!.json();
    for (const r of answers) if (r.status !== 200) await r.body?.cancel();
    assert.equal((await bearer(env, "GET", "/api/tokens/self", winner.token)).status, 200);
    assert.equal((await bearer(env, "GET", "/api/tokens/self", tok.token)).status, 401);
    await assertIndexConsistent(env.kv);
  } finally {
    env.close();
  }
});

Deno.test("N simultaneous session rotations each land in turn; only the last secret works", async () => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tok = await o.createToken();
    const answers = await Promise.all(
      Array.from({ length: N }, () => o.client.request("POST", `/api/tokens/${tok.id}/rotate`)),
    );
    assert.deepEqual(answers.map((r) => r.status), Array(N).fill(200));
    const secrets: { token: string; prefix: string }[] = await Promise.all(
      answers.map((r) => r.json()),
    );
    assert.equal(new Set(secrets.map((s) => s.token)).size, N, "every answer a new secret");
    const working = [];
    for (const s of [tok, ...secrets]) {
      if ((await lookupSecret(env.kv, s.token, env.clock.now())).ok) working.push(s);
    }
    assert.equal(working.length, 1, "exactly one secret works");
    const { entries } = await listAudit(env.kv, o.client.user.id, { limit: 200 });
    const rotations = entries.filter((e) => e.event === "token_rotated");
    assert.equal(rotations.length, N);
    // Entries of one millisecond are ordered by random id, so find the last by the prefix chain.
    const byOld = new Map(rotations.map((e) => [e.details.old_prefix, e.details.prefix]));
    let last = tok.prefix;
    while (byOld.has(last)) last = byOld.get(last) as string;
    assert.equal(working[0].prefix, last, "the last rotation's secret is the one that works");
    await assertIndexConsistent(env.kv);
  } finally {
    env.close();
  }
});

Deno.test("rotations, edits and a revoke racing leave a consistent key space", async () => {
  const env = await testEnv();
  try {
    const o = await owner(env);
    const tok = await o.createToken();
    const work = [];
    for (let i = 0; i < 10; i++) {
      work.push(o.client.request("POST", `/api/tokens/${tok.id}/rotate`));
      work.push(o.client.request("PATCH", `/api/tokens/${tok.id}`, { name: `n${i}` }));
    }
    work.push(o.client.request("DELETE", `/api/tokens/${tok.id}`));
    const answers = await Promise.all(work);
    for (const r of answers) {
      assert.ok([200, 204, 410].includes(r.status), String(r.status));
      await r.body?.cancel();
    }
    await assertIndexConsistent(env.kv);
    const after = await o.client.request("GET", `/api/tokens/${tok.id}`);
    assert.equal(after.status, 410);
  } finally {
    env.close();
  }
});

Deno.test("simultaneous rotations against a real server", async (t) => {
  const config = loadConfig({ PORT: String(freePort()), SEED_DEMO: "false", KV_PATH: ":memory:" });
  const running = await startToolgate(config, {
    log: () => {},
    passwordIterations: TEST_ITERATIONS,
  });
  const base = running.listenUrl;
  try {
    const email = `race-${crypto.randomUUID()}@example.com`;
    const json = { "content-type": "application/json" };
    assert.equal(
      await fetch(`${base}/api/users`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ email, password: "password123" }),
      }).then(async (r) => (await r.body?.cancel(), r.status)),
      201,
    );
    const signIn = await fetch(`${base}/api/session`, {
      method: "POST",
      headers: json,
      body: JSON.stringify({ email, password: "password123" }),
    });
    const { csrf_token } = await signIn.json();
    const session = {
      ...json,
      cookie: signIn.headers.get("set-cookie")!.split(";")[0],
      "x-csrf-token": csrf_token,
    };
    const server = await (await fetch(`${base}/api/servers`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({ slug: `race-${crypto.randomUUID().slice(0, 8)}`, name: "Race" }),
    })).json();
    const created = await (await fetch(`${base}/api/tokens`, {
      method: "POST",
      headers: session,
      body: JSON.stringify({ name: "race", server_ids: [server.id], expires_in_days: 7 }),
    })).json();
    const rotate = (headers: HeadersInit) =>
      fetch(`${base}/api/tokens/${created.id}/rotate`, { method: "POST", headers });
    const self = (secret: string) =>
      fetch(`${base}/api/tokens/self`, { headers: { authorization: `Bearer ${secret}` } })
        .then(async (r) => (await r.body?.cancel(), r.status));

    let current = created.token as string;
    await t.step("Bearer: one 200, the rest 401", async () => {
      const answers = await Promise.all(
        Array.from({ length: N }, () => rotate({ authorization: `Bearer ${current}` })),
      );
      const bodies = await Promise.all(answers.map((r) => r.json()));
      assert.deepEqual(answers.map((r) => r.status).sort(), [200, ...Array(N - 1).fill(401)]);
      const winner = bodies[answers.findIndex((r) => r.status === 200)];
      assert.equal(await self(current), 401);
      assert.equal(await self(winner.token), 200);
      current = winner.token;
    });
    await t.step("session: all 200, exactly one secret works", async () => {
      const answers = await Promise.all(Array.from({ length: N }, () => rotate(session)));
      assert.deepEqual(answers.map((r) => r.status), Array(N).fill(200));
      const bodies = await Promise.all(answers.map((r) => r.json()));
      const statuses = await Promise.all([current, ...bodies.map((b) => b.token)].map(self));
      assert.equal(statuses.filter((s) => s === 200).length, 1);
      assert.equal(statuses[0], 401, "the secret before the race no longer works");
      const listed = await (await fetch(`${base}/api/tokens/${created.id}`, { headers: session }))
        .json();
      const works = bodies[statuses.indexOf(200) - 1];
      assert.equal(listed.prefix, works.prefix);
    });
    await assertIndexConsistent(running.deps.kv);
  } finally {
    await running.close();
  }
});
