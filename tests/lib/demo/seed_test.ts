import assert from "node:assert/strict";
import { testEnv } from "../../helpers.ts";
import { DEMO_VERSIONS, LABS_VERSIONS, seedDemo } from "../../../lib/demo/seed.ts";
import { getUserByEmail } from "../../../lib/accounts/users.ts";
import { signIn } from "../../../lib/accounts/sign_in.ts";
import { getServerBySlug, listAllServers } from "../../../lib/servers/servers.ts";
import { subscribedServerIds } from "../../../lib/servers/subscriptions.ts";

const up = (tag: string) => (slug: string, version: string) =>
  `http://127.0.0.1:9/${tag}/${slug}/${version}`;
const noSleep = () => Promise.resolve();

async function userPrefixCount(kv: Deno.Kv): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix: ["users"] })) n++;
  return n;
}

Deno.test("seedDemo() builds the demo platform once and is idempotent", async () => {
  const env = await testEnv();
  try {
    const first = await seedDemo(env.deps, up("a"));
    assert.equal(first.email, "demo@example.com");
    assert.equal(first.seededNow, true);
    assert.ok(first.generatedPassword && first.generatedPassword.length >= 12);

    const demoUser = (await getUserByEmail(env.kv, "demo@example.com"))!;
    assert.equal(
      (await signIn(env.deps, "demo@example.com", first.generatedPassword!, null, noSleep)).id,
      demoUser.id,
    );
    const demo = (await getServerBySlug(env.kv, "demo"))!;
    assert.equal(demo.owner_id, demoUser.id);
    assert.deepEqual(demo.versions.map((v) => [v.version, v.live]), [
      ["1.0.0", true],
      ["1.1.0", false],
      ["1.1.1", true],
      ["2.0.0", true],
    ]);
    assert.deepEqual([...DEMO_VERSIONS], ["1.0.0", "1.1.0", "1.1.1", "2.0.0"]);
    const labs = (await getServerBySlug(env.kv, "labs"))!;
    assert.notEqual(labs.owner_id, demoUser.id);
    assert.deepEqual(labs.versions.map((v) => v.version), [...LABS_VERSIONS]);
    assert.deepEqual(await subscribedServerIds(env.kv, demoUser.id), []);

    const second = await seedDemo(env.deps, up("a"));
    assert.deepEqual(second, {
      email: "demo@example.com",
      generatedPassword: null,
      seededNow: false,
    });
    assert.deepEqual(await getServerBySlug(env.kv, "demo"), demo, "nothing changed");
    assert.equal((await listAllServers(env.kv)).length, 2);
    assert.equal(await userPrefixCount(env.kv), 2);
    // The first password still works.
    await signIn(env.deps, "demo@example.com", first.generatedPassword!, null, noSleep);
  } finally {
    env.close();
  }
});

Deno.test("seedDemo() re-points the versions at this start's upstreams", async () => {
  const env = await testEnv();
  try {
    await seedDemo(env.deps, up("a"));
    await seedDemo(env.deps, up("b"));
    const demo = (await getServerBySlug(env.kv, "demo"))!;
    assert.deepEqual(
      demo.versions.map((v) => v.upstream_url),
      DEMO_VERSIONS.map((v) => up("b")("demo", v)),
    );
    assert.deepEqual(demo.versions.map((v) => v.live), [true, false, true, true]);
    const labs = (await getServerBySlug(env.kv, "labs"))!;
    assert.equal(labs.versions[0].upstream_url, up("b")("labs", "0.1.0"));
  } finally {
    env.close();
  }
});

Deno.test("seedDemo() uses DEMO_EMAIL and DEMO_PASSWORD and prints no generated password", async () => {
  const env = await testEnv({
    env: { DEMO_EMAIL: "me@example.org", DEMO_PASSWORD: "chosen-password" },
  });
  try {
    const r = await seedDemo(env.deps, up("a"));
    assert.deepEqual(r, { email: "me@example.org", generatedPassword: null, seededNow: true });
    const u = await signIn(env.deps, "me@example.org", "chosen-password", null, noSleep);
    assert.equal((await getServerBySlug(env.kv, "demo"))!.owner_id, u.id);
  } finally {
    env.close();
  }
});

Deno.test("seedDemo() run concurrently still yields one demo platform", async () => {
  const env = await testEnv();
  try {
    const results = await Promise.allSettled([
      seedDemo(env.deps, up("a")),
      seedDemo(env.deps, up("a")),
    ]);
    assert.deepEqual(results.map((r) => r.status), ["fulfilled", "fulfilled"]);
    const demo = (await getServerBySlug(env.kv, "demo"))!;
    assert.deepEqual(demo.versions.map((v) => v.version), [...DEMO_VERSIONS]);
    assert.equal(await userPrefixCount(env.kv), 2);
  } finally {
    env.close();
  }
});

Deno.test("seedDemo() applies a DEMO_PASSWORD set after the first start", async () => {
  const first = await testEnv();
  try {
    await seedDemo(first.deps, up("a"));
    const later = await testEnv({ kv: first.kv, env: { DEMO_PASSWORD: "set-later-pw" } });
    const r = await seedDemo(later.deps, up("a"));
    assert.equal(r.generatedPassword, null);
    await signIn(later.deps, "demo@example.com", "set-later-pw", null, noSleep);
  } finally {
    first.close();
  }
});
