import assert from "node:assert/strict";
import { ConfigError, loadConfig } from "../../lib/config.ts";

Deno.test("loadConfig() has defaults for every variable", () => {
  const c = loadConfig({});
  assert.equal(c.port, 8000);
  assert.equal(c.platformUrl.href, "http://localhost:8000/");
  assert.equal(c.kvPath, "./data/toolgate.kv");
  assert.equal(c.seedDemo, true);
  assert.equal(c.demoEmail, "demo@example.com");
  assert.equal(c.demoPassword, null);
  assert.equal(c.trustProxy, false);
  assert.deepEqual(c.authorizationServers, ["http://localhost:8000"]);
  assert.equal(c.maxBodyBytes, 1_048_576);
});

Deno.test("loadConfig() accepts good values", async (t) => {
  const cases: [string, Record<string, string>, (c: ReturnType<typeof loadConfig>) => void][] = [
    ["PORT sets the default PLATFORM_URL", { PORT: "9001" }, (c) => {
      assert.equal(c.port, 9001);
      assert.equal(c.platformUrl.origin, "http://localhost:9001");
    }],
    ["https PLATFORM_URL", { PLATFORM_URL: "https://tools.example.com" }, (c) => {
      assert.equal(c.platformUrl.protocol, "https:");
      assert.equal(c.platformUrl.host, "tools.example.com");
    }],
    ["KV_PATH :memory:", { KV_PATH: ":memory:" }, (c) => assert.equal(c.kvPath, ":memory:")],
    ["KV_PATH file", { KV_PATH: "/tmp/x/tg.kv" }, (c) => assert.equal(c.kvPath, "/tmp/x/tg.kv")],
    [
      "KV_PATH KV Connect URL",
      { KV_PATH: "https://api.deno.com/databases/abc/connect" },
      (c) => assert.equal(c.kvPath, "https://api.deno.com/databases/abc/connect"),
    ],
    ["SEED_DEMO off", { SEED_DEMO: "false" }, (c) => assert.equal(c.seedDemo, false)],
    ["SEED_DEMO 0", { SEED_DEMO: "0" }, (c) => assert.equal(c.seedDemo, false)],
    ["TRUST_PROXY yes", { TRUST_PROXY: "YES" }, (c) => assert.equal(c.trustProxy, true)],
    [
      "DEMO_EMAIL lower-cased",
      { DEMO_EMAIL: " Me@Example.COM " },
      (c) => assert.equal(c.demoEmail, "me@example.com"),
    ],
    [
      "DEMO_PASSWORD",
      { DEMO_PASSWORD: "some-password" },
      (c) => assert.equal(c.demoPassword, "some-password"),
    ],
    ["MAX_BODY_BYTES", { MAX_BODY_BYTES: "2048" }, (c) => assert.equal(c.maxBodyBytes, 2048)],
  ];
  for (const [name, env, check] of cases) {
    await t.step(name, () => check(loadConfig(env)));
  }
});

Deno.test("loadConfig() refuses bad values with a ConfigError naming the variable", async (t) => {
  const cases: [string, string][] = [
    ["PORT", "http"],
    ["PORT", "-1"],
    ["PORT", "65536"],
    ["PORT", "80.5"],
    ["PORT", "1e3"],
    ["PLATFORM_URL", "localhost:8000"],
    ["PLATFORM_URL", "not a url"],
    ["PLATFORM_URL", "ftp://example.com"],
    ["PLATFORM_URL", "http://example.com/app"],
    ["PLATFORM_URL", "http://example.com/?x=1"],
    ["PLATFORM_URL", "http://user:pw@example.com"],
    ["KV_PATH", "./data/"],
    ["KV_PATH", "http://"],
    ["KV_PATH", "ftp://example.com/kv"],
    ["SEED_DEMO", "maybe"],
    ["SEED_DEMO", "2"],
    ["DEMO_EMAIL", "not-an-email"],
    ["DEMO_EMAIL", "a@b"],
    ["DEMO_EMAIL", `${"a".repeat(250)}@example.com`],
    ["DEMO_PASSWORD", "short"],
    ["DEMO_PASSWORD", "x".repeat(257)],
    ["TRUST_PROXY", "sometimes"],
    ["MAX_BODY_BYTES", "10"],
    ["UPSTREAM_TIMEOUT_MS", "soon"],
    ["AUTHORIZATION_SERVERS", "mailto:a@b.c"],
  ];
  for (const [name, value] of cases) {
    await t.step(`${name}=${JSON.stringify(value.slice(0, 40))}`, () => {
      assert.throws(
        () => loadConfig({ [name]: value }),
        (err: unknown) => err instanceof ConfigError && err.message.includes(name),
      );
    });
  }
});
