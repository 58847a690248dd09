/**
 * End to end: a real toolgate (demo upstreams, seed, HTTP server) and the official MCP SDK client
 * with a Bearer API token against the path-form base URL (Deno's fetch cannot resolve
 * `*.localhost`). Tokens, deploys and subscriptions go through the JSON API like a user's would.
 */
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadConfig } from "../../lib/config.ts";
import { type Running, startToolgate } from "../../lib/start.ts";
import { startDemoUpstream } from "../../lib/demo/upstream_mcp.ts";
import { closeGatewayFor } from "../../lib/mcp/gateway.ts";
import { freePort, TEST_ITERATIONS } from "../helpers.ts";
import { TOOLS_LIST } from "../lib/mcp/fixtures.ts";

const DEMO_PASSWORD = "demo-password-1";

interface World {
  tg: Running;
  api(method: string, path: string, json?: unknown): Promise<Response>;
  demoId: string;
  labsId: string;
  secret: string;
  close(): Promise<void>;
}

async function world(): Promise<World> {
  const config = loadConfig({
    KV_PATH: ":memory:",
    SEED_DEMO: "true",
    PORT: String(freePort()),
    HOSTNAME_BIND: "127.0.0.1",
    DEMO_PASSWORD,
  });
  const tg = await startToolgate(config, { log: () => {}, passwordIterations: TEST_ITERATIONS });
  const signIn = await fetch(`${tg.listenUrl}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: config.demoEmail, password: DEMO_PASSWORD }),
  });
  assert.equal(signIn.status, 200);
  const { csrf_token } = await signIn.json();
  const cookie = signIn.headers.get("set-cookie")!.split(";")[0];
  const api = (method: string, path: string, json?: unknown) =>
    fetch(`${tg.listenUrl}/api${path}`, {
      method,
      headers: {
        cookie,
        "x-csrf-token": csrf_token,
        ...(json === undefined ? {} : { "content-type": "application/json" }),
      },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  const catalog = (await (await api("GET", "/catalog")).json()) as {
    servers: { id: string; slug: string }[];
  };
  const idOf = (slug: string) => catalog.servers.find((s) => s.slug === slug)!.id;
  const created = await api("POST", "/tokens", {
    name: "e2e",
    server_ids: [idOf("demo")],
    expires_in_days: 7,
  });
  assert.equal(created.status, 201);
  const { token } = await created.json();
  return {
    tg,
    api,
    demoId: idOf("demo"),
    labsId: idOf("labs"),
    secret: token,
    async close() {
      await closeGatewayFor(tg.deps);
      await tg.close();
    },
  };
}

/** An SDK client on `path` that records the version headers of every answer. */
async function connect(w: World, path: string, secret = w.secret) {
  const seen: { version: string | null; latest: string | null }[] = [];
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit) => {
    const res = await fetch(input, init);
    seen.push({
      version: res.headers.get("x-mcp-version"),
      latest: res.headers.get("x-mcp-latest-version"),
    });
    return res;
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${w.tg.listenUrl}${path}`), {
    requestInit: { headers: { Authorization: `Bearer ${secret}` } },
    fetch: recordingFetch,
  });
  const client = new Client({ name: "e2e", version: "0.0.0" });
  await client.connect(transport);
  return { client, transport, seen };
}

const names = (tools: { name: string }[]) => tools.map((t) => t.name).sort();

Deno.test("SDK client reaches the resolved version through /, /v1, /v1.0 and /v1.1.1", async (t) => {
  const w = await world();
  const cases = [
    { path: "/s/demo", version: "2.0.0", tools: ["add", "echo", "time"] },
    { path: "/s/demo/v1", version: "1.1.1", tools: ["add", "echo"] },
    { path: "/s/demo/v1.0", version: "1.0.0", tools: ["add", "echo"] },
    { path: "/s/demo/v1.1.1", version: "1.1.1", tools: ["add", "echo"] },
    { path: "/s/demo/v2.0.0", version: "2.0.0", tools: ["add", "echo", "time"] },
  ];
  for (const c of cases) {
    await t.step(c.path, async () => {
      const { client, transport, seen } = await connect(w, c.path);
      try {
        assert.equal(client.getServerVersion()?.version, c.version);
        const { tools } = await client.listTools();
        assert.deepEqual(names(tools), c.tools);
        assert.match(tools[0].description!, new RegExp(`demo v${c.version.replace(/\./g, "\\.")}`));
        const echoed = await client.callTool({ name: "echo", arguments: { text: "hi" } });
        assert.deepEqual(echoed.content, [{ type: "text", text: "hi" }]);
        assert.ok(seen.length >= 3);
        for (const s of seen) assert.deepEqual(s, { version: c.version, latest: "2.0.0" });
        assert.ok(transport.sessionId);
      } finally {
        await transport.terminateSession();
        await client.close();
      }
    });
  }
  await w.close();
});

Deno.test("a deploy during a session does not move it; reconnecting does", async () => {
  const w = await world();
  const up = await startDemoUpstream({ version: "1.1.2" });
  const first = await connect(w, "/s/demo/v1");
  try {
    assert.equal(first.client.getServerVersion()?.version, "1.1.1");
    const deployed = await w.api("POST", "/servers/demo/versions", {
      version: "1.1.2",
      upstream_url: up.url,
    });
    assert.equal(deployed.status, 201);
    const { tools } = await first.client.listTools();
    assert.match(tools[0].description!, /demo v1\.1\.1/);
    assert.deepEqual(first.seen.at(-1), { version: "1.1.1", latest: "2.0.0" });

    const second = await connect(w, "/s/demo/v1");
    try {
      assert.equal(second.client.getServerVersion()?.version, "1.1.2");
      const again = await second.client.listTools();
      assert.match(again.tools[0].description!, /demo v1\.1\.2/);
    } finally {
      await second.client.close();
    }
    // The exact pattern of the replaced patch is no longer live for new connections.
    const gone = await fetch(`${w.tg.listenUrl}/s/demo/v1.1.1`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${w.secret}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: TOOLS_LIST,
    });
    assert.equal(gone.status, 404);
    const body = await gone.json();
    assert.equal(body.error.code, -32004);
    assert.equal(body.error.data.latest_version, "2.0.0");
    // …while the session locked to it keeps working.
    const still = await first.client.callTool({ name: "add", arguments: { a: 2, b: 3 } });
    assert.deepEqual(still.content, [{ type: "text", text: "5" }]);
  } finally {
    await first.client.close();
    await up.close();
    await w.close();
  }
});

Deno.test("terminating a session ends it: its id is then 404", async () => {
  const w = await world();
  const { client, transport } = await connect(w, "/s/demo");
  const sid = transport.sessionId!;
  await transport.terminateSession();
  await client.close();
  const res = await fetch(`${w.tg.listenUrl}/s/demo`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${w.secret}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sid,
    },
    body: TOOLS_LIST,
  });
  assert.equal(res.status, 404);
  assert.equal((await res.json()).error.data.error, "session_not_found");
  await w.close();
});

Deno.test("error rows over real HTTP: 401, 403, 402, 404, 429, 502", async (t) => {
  const w = await world();
  const post = (path: string, secret?: string) =>
    fetch(`${w.tg.listenUrl}${path}`, {
      method: "POST",
      headers: {
        ...(secret ? { authorization: `Bearer ${secret}` } : {}),
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: TOOLS_LIST,
    });
  const expectError = async (res: Response, status: number, code: number, mcpLayer = false) => {
    assert.equal(res.status, status);
    assert.equal(res.headers.get("x-mcp-version") !== null, mcpLayer);
    const body = await res.json();
    assert.equal(body.error.code, code);
    return body;
  };
  await t.step("401 through the SDK client, and its WWW-Authenticate", async () => {
    await assert.rejects(connect(w, "/s/demo", "svc_nope"));
    const res = await post("/s/demo");
    assert.equal(
      res.headers.get("www-authenticate"),
      `Bearer resource_metadata="${w.tg.deps.config.platformUrl.origin}/s/demo/.well-known/oauth-protected-resource"`,
    );
    await expectError(res, 401, -32001);
  });
  await t.step("403 out of scope", async () => {
    await expectError(await post("/s/labs", w.secret), 403, -32003);
  });
  await t.step("402 without a subscription", async () => {
    assert.equal((await w.api("PUT", "/subscriptions/labs")).status < 300, true);
    const created = await w.api("POST", "/tokens", {
      name: "labs",
      server_ids: [w.labsId],
      expires_in_days: 7,
    });
    const { token } = await created.json();
    assert.equal((await post("/s/labs", token)).status, 200);
    await (await w.api("DELETE", "/subscriptions/labs")).body?.cancel();
    const body = await expectError(await post("/s/labs", token), 402, -32002);
    assert.match(body.error.data.description, /labs/);
  });
  await t.step("404 exact version not live", async () => {
    await expectError(await post("/s/demo/v1.1.0", w.secret), 404, -32004);
  });
  await t.step("429 over the server's limit, and 502 when its upstream is down", async () => {
    const created = await w.api("POST", "/servers", {
      slug: "tight",
      name: "Tight",
      rate_limit: { limit: 2, window: "minute" },
    });
    assert.equal(created.status, 201);
    const { id } = await created.json();
    await (await w.api("POST", "/servers/tight/versions", {
      version: "1.0.0",
      upstream_url: "http://127.0.0.1:9/mcp",
    })).body?.cancel();
    const tok = await (await w.api("POST", "/tokens", {
      name: "tight",
      server_ids: [id],
      expires_in_days: 7,
    })).json();
    await expectError(await post("/s/tight", tok.token), 502, -32603, true);
    await expectError(await post("/s/tight", tok.token), 502, -32603, true);
    const res = await post("/s/tight", tok.token);
    assert.ok(Number(res.headers.get("retry-after")) >= 1);
    const body = await expectError(res, 429, -32000);
    assert.equal(body.error.data.limit, 2);
    assert.equal(body.error.data.windowType, "minute");
  });
  await w.close();
});
