/** Signed-in pages: what the server renders, what it never renders (secrets), static files. */
import assert from "node:assert/strict";
import { serverWith, signedIn, testEnv } from "../helpers.ts";
import { subscribe } from "../../lib/servers/subscriptions.ts";
import { serializeProps } from "../../lib/ui/island.tsx";

/** The JSON props of the first island named `name` in `html`. */
function islandProps(html: string, name: string): Record<string, unknown> {
  const m = html.match(
    new RegExp(`data-island="${name}"[^>]*><script type="application/json">(.*?)</script>`),
  );
  assert.ok(m, `island ${name} not found`);
  return JSON.parse(m[1]);
}

Deno.test("tokens page renders the list and props, never a secret", async (t) => {
  const env = await testEnv();
  try {
    const client = await signedIn(env);
    const mine = await serverWith(env.deps, client.user.id);
    const other = await serverWith(env.deps, crypto.randomUUID());
    await subscribe(env.deps, client.user.id, other.id);
    const created = await client.request("POST", "/api/tokens", {
      name: "</script><script>alert(1)</script>",
      server_ids: [mine.id],
      expires_in_days: 30,
    });
    assert.equal(created.status, 201);
    const { token: secret, prefix } = await created.json();
    const get = (path: string) => env.app.request(path, { headers: { cookie: client.cookie } });

    await t.step("list, servers and CSRF meta; no secret; no-store", async () => {
      const res = await get("/tokens");
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("cache-control"), "no-store");
      const html = await res.text();
      assert.ok(!html.includes(secret), "the secret is never server-rendered");
      assert.ok(html.includes(prefix));
      assert.ok(html.includes(`<meta name="csrf-token" content="${client.csrf}"/>`));
      assert.ok(!html.includes("</script><script>alert(1)"), "props cannot close their script");
      const props = islandProps(html, "TokensPage");
      const servers = props.servers as { slug: string }[];
      assert.deepEqual(servers.map((s) => s.slug).sort(), [mine.slug, other.slug].sort());
      assert.equal(props.preselect, null);
      assert.equal(props.openCreate, false);
      const initial = props.initial as { tokens: { name: string }[] };
      assert.equal(initial.tokens[0].name, "</script><script>alert(1)</script>");
    });

    await t.step("?new=1&server=<slug> opens create with that server", async () => {
      const props = islandProps(
        await (await get(`/tokens?new=1&server=${other.slug}`)).text(),
        "TokensPage",
      );
      assert.equal(props.preselect, other.slug);
      assert.equal(props.openCreate, true);
      const unknown = islandProps(
        await (await get("/tokens?new=1&server=nope")).text(),
        "TokensPage",
      );
      assert.equal(unknown.preselect, null);
    });

    await t.step("server page: both base URLs, routes, owner panel", async () => {
      const res = await get(`/servers/${mine.slug}`);
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.ok(html.includes(`/s/${mine.slug}/`) && html.includes(`//${mine.slug}.localhost`));
      assert.ok(html.includes(`href="/tokens?new=1&amp;server=${mine.slug}"`));
      const props = islandProps(html, "VersionsPanel");
      assert.ok(Array.isArray((props.server as { routes: unknown[] }).routes));
      const theirs = await (await get(`/servers/${other.slug}`)).text();
      assert.ok(!theirs.includes('data-island="VersionsPanel"'), "only owners get the panel");
      assert.ok(theirs.includes('data-island="SubscribeButton"'));
      assert.equal((await get("/servers/no-such-server")).status, 404);
    });

    await t.step("servers, account and security log render", async () => {
      assert.match(await (await get("/servers")).text(), new RegExp(other.slug));
      assert.match(await (await get("/account")).text(), /revokes every API token/);
      const log = await (await get("/security")).text();
      assert.match(log, /Token created/);
      assert.ok(!log.includes(secret));
    });
  } finally {
    env.close();
  }
});

Deno.test("static files: served with types, versioned URLs cached, nothing outside static/", async () => {
  const env = await testEnv();
  try {
    const css = await env.app.request("/static/app.css?v=abc");
    assert.equal(css.status, 200);
    assert.match(css.headers.get("content-type")!, /text\/css/);
    assert.match(css.headers.get("cache-control")!, /immutable/);
    await css.body?.cancel();
    for (const bad of ["/static/../deno.json", "/static/%2e%2e/deno.json", "/static/nope.css"]) {
      const res = await env.app.request(bad);
      assert.notEqual(res.status, 200, bad);
      await res.body?.cancel();
    }
  } finally {
    env.close();
  }
});

Deno.test("serializeProps() keeps JSON intact and script-safe", () => {
  const value = { a: "</script><!--", b: "\u2028", n: 1 };
  const text = serializeProps(value);
  assert.ok(!text.includes("<") && !text.includes("\u2028"));
  assert.deepEqual(JSON.parse(text), value);
});
