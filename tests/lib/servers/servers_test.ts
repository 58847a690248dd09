import assert from "node:assert/strict";
import { randomUser, serverWith, testEnv } from "../../helpers.ts";
import {
  checkRateLimit,
  checkUpstreamUrl,
  createServer,
  DEFAULT_RATE_LIMIT,
  deployVersion,
  getServer,
  getServerBySlug,
  listAllServers,
  ownedServerIds,
  repointVersion,
  retireVersion,
  serverLatest,
  type ServerRecord,
} from "../../../lib/servers/servers.ts";
import { HttpError } from "../../../lib/http/errors.ts";
import { serverBySlugKey, serverPrefix } from "../../../lib/kv/keys.ts";
import type { Change } from "../../../lib/kv/change_feed.ts";

const status = (code: number) => (e: unknown) => e instanceof HttpError && e.status === code;
const live = (s: ServerRecord) => s.versions.filter((v) => v.live).map((v) => v.version);
const all = (s: ServerRecord) => s.versions.map((v) => v.version);
const UP = "http://127.0.0.1:9/mcp";

Deno.test("createServer() stores the server, its slug and owner indexes, and a feed entry", async () => {
  const env = await testEnv();
  try {
    const owner = await randomUser(env.deps);
    const changes: Change[] = [];
    env.deps.changes.subscribe((c) => changes.push(c));
    const s = await createServer(env.deps, owner.id, { slug: "tools", name: "  My tools " });
    assert.equal(s.name, "My tools");
    assert.deepEqual(s.rate_limit, DEFAULT_RATE_LIMIT);
    assert.deepEqual(s.versions, []);
    assert.deepEqual(await getServer(env.kv, s.id), s);
    assert.deepEqual(await getServerBySlug(env.kv, "tools"), s);
    assert.deepEqual(await ownedServerIds(env.kv, owner.id), [s.id]);
    assert.deepEqual(changes, [{ kind: "server", id: s.id, slug: "tools" }]);
    assert.equal(serverLatest(s), null);
    const limited = await createServer(env.deps, owner.id, {
      slug: "tools-2",
      name: "x",
      rate_limit: { limit: 5, window: "hour" },
    });
    assert.deepEqual(limited.rate_limit, { limit: 5, window: "hour" });
  } finally {
    env.close();
  }
});

Deno.test("createServer() refuses a taken slug and bad input", async (t) => {
  const env = await testEnv();
  try {
    const owner = await randomUser(env.deps);
    await createServer(env.deps, owner.id, { slug: "taken", name: "A" });
    await t.step("taken slug → 409", async () => {
      await assert.rejects(
        () => createServer(env.deps, owner.id, { slug: "taken", name: "B" }),
        status(409),
      );
    });
    for (
      const [name, input] of [
        ["bad slug", { slug: "Bad", name: "x" }],
        ["reserved slug", { slug: "www", name: "x" }],
        ["empty name", { slug: "okay", name: "   " }],
        ["long name", { slug: "okay", name: "n".repeat(101) }],
      ] as const
    ) {
      await t.step(name, async () => {
        await assert.rejects(() => createServer(env.deps, owner.id, input), RangeError);
      });
    }
  } finally {
    env.close();
  }
});

Deno.test("createServer() under 20 concurrent creates of one slug: exactly one wins", async () => {
  const env = await testEnv();
  try {
    const users = await Promise.all(Array.from({ length: 20 }, () => randomUser(env.deps)));
    const results = await Promise.allSettled(
      users.map((u, i) => createServer(env.deps, u.id, { slug: "contested", name: `S${i}` })),
    );
    const won = results.filter((r) => r.status === "fulfilled") as PromiseFulfilledResult<
      ServerRecord
    >[];
    assert.equal(won.length, 1);
    for (const r of results) {
      if (r.status === "rejected") assert.ok(status(409)(r.reason), String(r.reason));
    }
    const winner = won[0].value;
    assert.equal((await env.kv.get(serverBySlugKey("contested"))).value, winner.id);
    const servers = [];
    for await (const e of env.kv.list({ prefix: serverPrefix() })) servers.push(e.value);
    assert.deepEqual(servers, [winner]);
    for (const u of users) {
      assert.deepEqual(
        await ownedServerIds(env.kv, u.id),
        u.id === winner.owner_id ? [winner.id] : [],
      );
    }
  } finally {
    env.close();
  }
});

Deno.test("deployVersion() makes the previous patch of the same minor not live", async () => {
  const env = await testEnv();
  try {
    const owner = await randomUser(env.deps);
    const s = await serverWith(env.deps, owner.id, ["1.0.0", "1.1.0", "1.1.1", "2.0.0"]);
    assert.deepEqual(all(s), ["1.0.0", "1.1.0", "1.1.1", "2.0.0"]);
    assert.deepEqual(live(s), ["1.0.0", "1.1.1", "2.0.0"]);
    const v110 = s.versions.find((v) => v.version === "1.1.0")!;
    assert.equal(v110.live, false);
    assert.ok(v110.retired_at);
    assert.equal(serverLatest(s), "2.0.0");
    const again = await deployVersion(env.deps, s.slug, owner.id, {
      version: "1.1.2",
      upstream_url: UP,
    });
    assert.deepEqual(live(again), ["1.0.0", "1.1.2", "2.0.0"]);
    assert.deepEqual(await getServer(env.kv, s.id), again);
  } finally {
    env.close();
  }
});

Deno.test("deployVersion() refuses duplicates, lower patches, bad input and non-owners", async (t) => {
  const env = await testEnv();
  try {
    const owner = await randomUser(env.deps);
    const stranger = await randomUser(env.deps);
    const s = await serverWith(env.deps, owner.id, ["1.0.0", "1.1.1"]);
    const cases: [
      string,
      string,
      { version: string; upstream_url: string },
      (e: unknown) => boolean,
    ][] = [
      ["duplicate version", owner.id, { version: "1.1.1", upstream_url: UP }, status(409)],
      ["duplicate, not live", owner.id, { version: "1.0.0", upstream_url: UP }, status(409)],
      [
        "lower patch than the live one",
        owner.id,
        { version: "1.1.0", upstream_url: UP },
        status(409),
      ],
      ["non-owner", stranger.id, { version: "3.0.0", upstream_url: UP }, status(403)],
      [
        "leading v",
        owner.id,
        { version: "v3.0.0", upstream_url: UP },
        (e) => e instanceof RangeError,
      ],
      ["two parts", owner.id, { version: "3.0", upstream_url: UP }, (e) => e instanceof RangeError],
      [
        "build metadata",
        owner.id,
        { version: "3.0.0+b1", upstream_url: UP },
        (e) => e instanceof RangeError,
      ],
      [
        "leading zero",
        owner.id,
        { version: "03.0.0", upstream_url: UP },
        (e) => e instanceof RangeError,
      ],
      [
        "ftp upstream",
        owner.id,
        { version: "3.0.0", upstream_url: "ftp://x/y" },
        (e) => e instanceof RangeError,
      ],
      [
        "relative upstream",
        owner.id,
        { version: "3.0.0", upstream_url: "/mcp" },
        (e) => e instanceof RangeError,
      ],
    ];
    for (const [name, who, input, check] of cases) {
      await t.step(name, async () => {
        await assert.rejects(() => deployVersion(env.deps, s.slug, who, input), check);
      });
    }
    await t.step("unknown server → 404", async () => {
      await assert.rejects(
        () => deployVersion(env.deps, "no-such", owner.id, { version: "1.0.0", upstream_url: UP }),
        status(404),
      );
    });
    assert.deepEqual(all((await getServer(env.kv, s.id))!), ["1.0.0", "1.1.1"]);
  } finally {
    env.close();
  }
});

Deno.test("deployVersion() of a prerelease replaces nothing", async () => {
  const env = await testEnv();
  try {
    const owner = await randomUser(env.deps);
    const s = await serverWith(env.deps, owner.id, ["1.1.1", "1.1.2-beta.1", "1.1.0-rc.1"]);
    assert.deepEqual(live(s), ["1.1.0-rc.1", "1.1.1", "1.1.2-beta.1"]);
    assert.equal(serverLatest(s), "1.1.1");
    const next = await deployVersion(env.deps, s.slug, owner.id, {
      version: "1.1.2",
      upstream_url: UP,
    });
    assert.deepEqual(live(next), ["1.1.0-rc.1", "1.1.2-beta.1", "1.1.2"]);
    assert.equal(serverLatest(next), "1.1.2");
  } finally {
    env.close();
  }
});

Deno.test("retireVersion() stops a version being live; owner only", async () => {
  const env = await testEnv();
  try {
    const owner = await randomUser(env.deps);
    const stranger = await randomUser(env.deps);
    const s = await serverWith(env.deps, owner.id, ["1.0.0", "2.0.0"]);
    await assert.rejects(() => retireVersion(env.deps, s.slug, stranger.id, "2.0.0"), status(403));
    const after = await retireVersion(env.deps, s.slug, owner.id, "2.0.0");
    assert.deepEqual(live(after), ["1.0.0"]);
    assert.equal(serverLatest(after), "1.0.0");
    assert.ok(after.versions.find((v) => v.version === "2.0.0")!.retired_at);
    await assert.rejects(() => retireVersion(env.deps, s.slug, owner.id, "2.0.0"), status(409));
    await assert.rejects(() => retireVersion(env.deps, s.slug, owner.id, "3.0.0"), status(404));
    await assert.rejects(
      () => retireVersion(env.deps, "nope-nope", owner.id, "1.0.0"),
      status(404),
    );
    // A retired version's patch line can take a lower patch again.
    const back = await retireVersion(env.deps, s.slug, owner.id, "1.0.0");
    assert.equal(serverLatest(back), null);
  } finally {
    env.close();
  }
});

Deno.test("repointVersion() changes one version's upstream", async () => {
  const env = await testEnv();
  try {
    const owner = await randomUser(env.deps);
    const s = await serverWith(env.deps, owner.id, ["1.0.0", "2.0.0"]);
    const after = await repointVersion(env.deps, s.slug, owner.id, "2.0.0", "http://127.0.0.1:7/x");
    assert.deepEqual(after.versions.map((v) => v.upstream_url), [UP, "http://127.0.0.1:7/x"]);
  } finally {
    env.close();
  }
});

Deno.test("deployVersion(): 20 concurrent deploys of different versions all land", async () => {
  const env = await testEnv();
  try {
    const owner = await randomUser(env.deps);
    const s = await serverWith(env.deps, owner.id, []);
    const versions = Array.from({ length: 20 }, (_, i) => `${i + 1}.0.0`);
    const results = await Promise.allSettled(
      versions.map((version) =>
        deployVersion(env.deps, s.slug, owner.id, { version, upstream_url: UP })
      ),
    );
    const failed = results.filter((r) => r.status === "rejected").map((r) =>
      String((r as PromiseRejectedResult).reason)
    );
    assert.deepEqual(failed, []);
    const final = (await getServer(env.kv, s.id))!;
    assert.deepEqual(all(final), versions);
    assert.deepEqual(live(final), versions);
    assert.equal(serverLatest(final), "20.0.0");
  } finally {
    env.close();
  }
});

Deno.test("listAllServers() lists every server by slug", async () => {
  const env = await testEnv();
  try {
    const a = await randomUser(env.deps);
    const b = await randomUser(env.deps);
    await createServer(env.deps, a.id, { slug: "zeta", name: "Z" });
    await createServer(env.deps, b.id, { slug: "alpha", name: "A" });
    assert.deepEqual((await listAllServers(env.kv)).map((s) => s.slug), ["alpha", "zeta"]);
    assert.equal(await getServerBySlug(env.kv, "NOT/valid"), null);
  } finally {
    env.close();
  }
});

Deno.test("checkUpstreamUrl() takes http and https only, without credentials", async (t) => {
  const cases: [string, string | null][] = [
    ["http://127.0.0.1:3000/mcp", "http://127.0.0.1:3000/mcp"],
    ["https://up.example.com", "https://up.example.com/"],
    ["ftp://up.example.com", null],
    ["file:///etc/passwd", null],
    ["javascript:alert(1)", null],
    ["ws://up.example.com", null],
    ["//up.example.com", null],
    ["", null],
    ["http://user:pw@up.example.com", null],
    ["http://up.example.com/#frag", null],
  ];
  for (const [raw, want] of cases) {
    await t.step(raw || "(empty)", () => {
      if (want) assert.equal(checkUpstreamUrl(raw), want);
      else assert.throws(() => checkUpstreamUrl(raw), RangeError);
    });
  }
});

Deno.test("checkRateLimit() validates limit and window", async (t) => {
  assert.deepEqual(checkRateLimit({ limit: 10, window: "minute" }), {
    limit: 10,
    window: "minute",
  });
  const bad: Record<string, unknown>[] = [
    {},
    { limit: 0, window: "minute" },
    { limit: 1.5, window: "minute" },
    { limit: "10", window: "minute" },
    { limit: 10, window: "day" },
    { limit: 10, window: "minute", burst: 3 },
    { limit: 1_000_001, window: "hour" },
  ];
  for (const raw of bad) {
    await t.step(JSON.stringify(raw), () => assert.throws(() => checkRateLimit(raw), RangeError));
  }
});
