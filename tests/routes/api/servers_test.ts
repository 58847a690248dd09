import assert from "node:assert/strict";
import { type Client, serverWith, signedIn, testEnv } from "../../helpers.ts";

/** Asserts an API error: status, JSON content type, `{"error": {code, message, ...}}`. */
async function expectError(res: Response, status: number, code: string, mentions?: string) {
  const text = await res.text();
  assert.equal(res.status, status, text);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const body = JSON.parse(text);
  assert.deepEqual(Object.keys(body), ["error"]);
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, "string");
  if (mentions) assert.ok(body.error.message.includes(mentions), body.error.message);
  return body.error;
}

const UP = "http://127.0.0.1:9/mcp";

async function create(c: Client, slug: string, extra: Record<string, unknown> = {}) {
  const res = await c.request("POST", "/api/servers", { slug, name: `Server ${slug}`, ...extra });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json();
}

async function deploy(c: Client, slug: string, version: string, upstream_url = UP) {
  return await c.request("POST", `/api/servers/${slug}/versions`, { version, upstream_url });
}

Deno.test("POST /api/servers creates a server the caller owns", async () => {
  const env = await testEnv();
  try {
    const c = await signedIn(env);
    const s = await create(c, "my-tools", { rate_limit: { limit: 10, window: "hour" } });
    assert.equal(s.slug, "my-tools");
    assert.equal(s.name, "Server my-tools");
    assert.equal(s.owned, true);
    assert.equal(s.subscribed, false);
    assert.equal(s.latest_version, null);
    assert.deepEqual(s.rate_limit, { limit: 10, window: "hour" });
    assert.deepEqual(s.versions, []);
    assert.equal(s.base_url, "http://my-tools.localhost:8000");
    assert.equal(s.path_url, "http://localhost:8000/s/my-tools");
    const plain = await create(c, "plain-one");
    assert.deepEqual(plain.rate_limit, { limit: 120, window: "minute" });
    const d = await signedIn(env);
    await expectError(
      await d.request("POST", "/api/servers", { slug: "my-tools", name: "Mine now" }),
      409,
      "conflict",
      "my-tools",
    );
  } finally {
    env.close();
  }
});

Deno.test("POST /api/servers enforces slug rules and field types", async (t) => {
  const env = await testEnv();
  try {
    const c = await signedIn(env);
    const cases: [string, unknown, string, string][] = [
      ["too short", { slug: "ab", name: "x" }, "invalid_request", "3 to 40"],
      ["too long", { slug: "a".repeat(41), name: "x" }, "invalid_request", "3 to 40"],
      ["way too long", { slug: "a".repeat(101), name: "x" }, "invalid_request", '"slug"'],
      ["uppercase", { slug: "MyTools", name: "x" }, "invalid_request", "lower-case"],
      ["underscore", { slug: "my_tools", name: "x" }, "invalid_request", "lower-case"],
      ["leading hyphen", { slug: "-tools", name: "x" }, "invalid_request", "start and end"],
      ["reserved www", { slug: "www", name: "x" }, "invalid_request", "reserved"],
      ["reserved api", { slug: "api", name: "x" }, "invalid_request", "reserved"],
      ["reserved app", { slug: "app", name: "x" }, "invalid_request", "reserved"],
      ["missing slug", { name: "x" }, "invalid_request", '"slug"'],
      ["missing name", { slug: "okay-slug" }, "invalid_request", '"name"'],
      ["slug not a string", { slug: 123, name: "x" }, "invalid_request", '"slug"'],
      ["empty name", { slug: "okay-slug", name: " " }, "invalid_request", "Name"],
      [
        "rate_limit not an object",
        { slug: "okay-slug", name: "x", rate_limit: 5 },
        "invalid_request",
        '"rate_limit"',
      ],
      [
        "rate_limit bad window",
        { slug: "okay-slug", name: "x", rate_limit: { limit: 5, window: "day" } },
        "invalid_request",
        "window",
      ],
      [
        "rate_limit bad limit",
        { slug: "okay-slug", name: "x", rate_limit: { limit: 0, window: "hour" } },
        "invalid_request",
        "limit",
      ],
      [
        "rate_limit extra",
        { slug: "okay-slug", name: "x", rate_limit: { limit: 5, window: "hour", burst: 1 } },
        "invalid_request",
        "rate_limit.burst",
      ],
      [
        "unknown field",
        { slug: "okay-slug", name: "x", owner_id: "someone" },
        "unknown_field",
        '"owner_id"',
      ],
    ];
    for (const [name, body, code, mentions] of cases) {
      await t.step(name, async () => {
        await expectError(await c.request("POST", "/api/servers", body), 400, code, mentions);
      });
    }
    const all = await (await c.request("GET", "/api/catalog")).json();
    assert.deepEqual(all.servers, []);
  } finally {
    env.close();
  }
});

Deno.test("POST /api/servers/:slug/versions deploys; a new patch replaces the previous one", async () => {
  const env = await testEnv();
  try {
    const c = await signedIn(env);
    await create(c, "tools");
    for (const v of ["1.0.0", "1.1.0", "1.1.1", "2.0.0"]) {
      assert.equal((await deploy(c, "tools", v, `http://127.0.0.1:9/${v}`)).status, 201);
    }
    const res = await c.request("GET", "/api/servers/tools");
    assert.equal(res.status, 200);
    const s = await res.json();
    assert.equal(s.latest_version, "2.0.0");
    assert.deepEqual(
      s.versions.map((v: { version: string; live: boolean }) => [v.version, v.live]),
      [["2.0.0", true], ["1.1.1", true], ["1.1.0", false], ["1.0.0", true]],
    );
    assert.equal(s.versions[0].upstream_url, "http://127.0.0.1:9/2.0.0");
    assert.ok(Date.parse(s.versions[0].deployed_at));
    assert.deepEqual(s.routes, [
      { path: "/", version: "2.0.0" },
      { path: "/v2", version: "2.0.0" },
      { path: "/v2.0", version: "2.0.0" },
      { path: "/v1", version: "1.1.1" },
      { path: "/v1.1", version: "1.1.1" },
      { path: "/v1.0", version: "1.0.0" },
    ]);
  } finally {
    env.close();
  }
});

Deno.test("POST /api/servers/:slug/versions refuses what it must", async (t) => {
  const env = await testEnv();
  try {
    const owner = await signedIn(env);
    const other = await signedIn(env);
    await create(owner, "tools");
    assert.equal((await deploy(owner, "tools", "1.1.1")).status, 201);
    const cases: [string, Client, string, unknown, number, string, string?][] = [
      ["non-owner", other, "tools", { version: "2.0.0", upstream_url: UP }, 403, "forbidden"],
      [
        "unknown server",
        owner,
        "nope-nope",
        { version: "2.0.0", upstream_url: UP },
        404,
        "not_found",
      ],
      [
        "duplicate",
        owner,
        "tools",
        { version: "1.1.1", upstream_url: UP },
        409,
        "conflict",
        "1.1.1",
      ],
      [
        "lower patch",
        owner,
        "tools",
        { version: "1.1.0", upstream_url: UP },
        409,
        "conflict",
        "1.1.1",
      ],
      [
        "ftp upstream",
        owner,
        "tools",
        { version: "2.0.0", upstream_url: "ftp://x/y" },
        400,
        "invalid_request",
        "http or https",
      ],
      [
        "file upstream",
        owner,
        "tools",
        { version: "2.0.0", upstream_url: "file:///etc/passwd" },
        400,
        "invalid_request",
        "http or https",
      ],
      [
        "relative upstream",
        owner,
        "tools",
        { version: "2.0.0", upstream_url: "mcp" },
        400,
        "invalid_request",
        "upstream_url",
      ],
      [
        "bad version",
        owner,
        "tools",
        { version: "v2", upstream_url: UP },
        400,
        "invalid_request",
        "version",
      ],
      [
        "version number",
        owner,
        "tools",
        { version: 2, upstream_url: UP },
        400,
        "invalid_request",
        '"version"',
      ],
      [
        "missing upstream",
        owner,
        "tools",
        { version: "2.0.0" },
        400,
        "invalid_request",
        '"upstream_url"',
      ],
      [
        "unknown field",
        owner,
        "tools",
        { version: "2.0.0", upstream_url: UP, live: false },
        400,
        "unknown_field",
        '"live"',
      ],
    ];
    for (const [name, who, slug, body, status, code, mentions] of cases) {
      await t.step(name, async () => {
        await expectError(
          await who.request("POST", `/api/servers/${slug}/versions`, body),
          status,
          code,
          mentions,
        );
      });
    }
    const s = await (await owner.request("GET", "/api/servers/tools")).json();
    assert.deepEqual(s.versions.map((v: { version: string }) => v.version), ["1.1.1"]);
  } finally {
    env.close();
  }
});

Deno.test("DELETE /api/servers/:slug/versions/:version retires; owner only", async () => {
  const env = await testEnv();
  try {
    const owner = await signedIn(env);
    const other = await signedIn(env);
    await create(owner, "tools");
    await deploy(owner, "tools", "1.0.0");
    await deploy(owner, "tools", "2.0.0");
    await expectError(
      await other.request("DELETE", "/api/servers/tools/versions/2.0.0"),
      403,
      "forbidden",
    );
    const res = await owner.request("DELETE", "/api/servers/tools/versions/2.0.0");
    assert.equal(res.status, 200);
    const s = await res.json();
    assert.equal(s.latest_version, "1.0.0");
    assert.equal(s.versions[0].live, false);
    await expectError(
      await owner.request("DELETE", "/api/servers/tools/versions/2.0.0"),
      409,
      "conflict",
    );
    await expectError(
      await owner.request("DELETE", "/api/servers/tools/versions/9.9.9"),
      404,
      "not_found",
    );
    await expectError(
      await owner.request("DELETE", "/api/servers/tools/versions/garbage"),
      404,
      "not_found",
    );
    await expectError(
      await owner.request("DELETE", "/api/servers/nope-nope/versions/1.0.0"),
      404,
      "not_found",
    );
  } finally {
    env.close();
  }
});

Deno.test("GET /api/servers shows owned and subscribed servers only; /api/catalog shows all", async () => {
  const env = await testEnv();
  try {
    const me = await signedIn(env);
    const them = await signedIn(env);
    await create(me, "mine");
    await deploy(me, "mine", "1.0.0");
    const theirs = await serverWith(env.deps, them.user.id, ["1.0.0", "1.2.0", "3.0.0"]);
    const unrelated = await serverWith(env.deps, them.user.id, []);

    const before = await (await me.request("GET", "/api/servers")).json();
    assert.deepEqual(before.servers.map((s: { slug: string }) => s.slug), ["mine"]);
    assert.equal(before.servers[0].owned, true);
    assert.equal(before.servers[0].latest_version, "1.0.0");

    assert.equal((await me.request("PUT", `/api/subscriptions/${theirs.slug}`)).status, 201);
    const after = await (await me.request("GET", "/api/servers")).json();
    const slugs = after.servers.map((s: { slug: string }) => s.slug);
    assert.deepEqual(slugs, ["mine", theirs.slug].sort());
    const sub = after.servers.find((s: { slug: string }) => s.slug === theirs.slug);
    assert.deepEqual(
      [sub.owned, sub.subscribed, sub.latest_version, sub.id],
      [false, true, "3.0.0", theirs.id],
    );
    assert.deepEqual(Object.keys(sub).sort(), [
      "base_url",
      "created_at",
      "id",
      "latest_version",
      "name",
      "owned",
      "path_url",
      "rate_limit",
      "slug",
      "subscribed",
    ]);

    const catalog = await (await me.request("GET", "/api/catalog")).json();
    assert.deepEqual(
      catalog.servers.map((s: { slug: string }) => s.slug),
      ["mine", theirs.slug, unrelated.slug].sort(),
    );
    const u = catalog.servers.find((s: { slug: string }) => s.slug === unrelated.slug);
    assert.deepEqual([u.owned, u.subscribed, u.latest_version], [false, false, null]);
  } finally {
    env.close();
  }
});

Deno.test("GET /api/servers/:slug: detail for anyone signed in, upstream_url for the owner only", async () => {
  const env = await testEnv();
  try {
    const owner = await signedIn(env);
    const other = await signedIn(env);
    const s = await serverWith(
      env.deps,
      owner.user.id,
      ["1.0.0"],
      "http://10.0.0.5:3000/secret-mcp",
    );
    const mine = await (await owner.request("GET", `/api/servers/${s.slug}`)).json();
    assert.equal(mine.versions[0].upstream_url, "http://10.0.0.5:3000/secret-mcp");
    const res = await other.request("GET", `/api/servers/${s.slug}`);
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.ok(!text.includes("10.0.0.5"), text);
    const theirs = JSON.parse(text);
    assert.equal(theirs.owned, false);
    assert.ok(!("upstream_url" in theirs.versions[0]));
    assert.deepEqual(theirs.routes, mine.routes);
    await expectError(await owner.request("GET", "/api/servers/no-such-server"), 404, "not_found");
    await expectError(await owner.request("GET", "/api/servers/BAD%20SLUG"), 404, "not_found");
  } finally {
    env.close();
  }
});

Deno.test("PUT/DELETE /api/subscriptions/:slug subscribe and cancel idempotently", async () => {
  const env = await testEnv();
  try {
    const owner = await signedIn(env);
    const me = await signedIn(env);
    const s = await serverWith(env.deps, owner.user.id);
    const first = await me.request("PUT", `/api/subscriptions/${s.slug}`);
    assert.equal(first.status, 201);
    assert.deepEqual(await first.json(), {
      subscription: { server_id: s.id, server_slug: s.slug, active: true },
    });
    const again = await me.request("PUT", `/api/subscriptions/${s.slug}`);
    assert.equal(again.status, 200);
    assert.equal((await again.json()).subscription.active, true);
    const detail = await (await me.request("GET", `/api/servers/${s.slug}`)).json();
    assert.equal(detail.subscribed, true);

    assert.equal((await me.request("DELETE", `/api/subscriptions/${s.slug}`)).status, 204);
    assert.equal((await me.request("DELETE", `/api/subscriptions/${s.slug}`)).status, 204);
    const list = await (await me.request("GET", "/api/servers")).json();
    assert.deepEqual(list.servers, []);

    await expectError(
      await me.request("PUT", "/api/subscriptions/no-such-server"),
      404,
      "not_found",
    );
    await expectError(
      await me.request("DELETE", "/api/subscriptions/no-such-server"),
      404,
      "not_found",
    );
  } finally {
    env.close();
  }
});
