import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startDemoUpstream } from "../../../lib/demo/upstream_mcp.ts";
import { FAST_UPSTREAM_TOOLS, startFastUpstream } from "../../../lib/demo/fast_upstream.ts";
import { INITIALIZE } from "../mcp/fixtures.ts";

const ACCEPT_BOTH = "application/json, text/event-stream";
const TOOLS_LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

function initialize(url: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: ACCEPT_BOTH },
    body: INITIALIZE,
  });
}

function textOf(result: unknown): string {
  const content = (result as { content: { type: string; text: string }[] }).content;
  assert.equal(content[0].type, "text");
  return content[0].text;
}

for (
  const { version, tools } of [
    { version: "1.0.0", tools: ["add", "echo"] },
    { version: "2.0.0", tools: ["add", "echo", "time"] },
  ]
) {
  Deno.test(`demo upstream ${version} serves its tools to the SDK client`, async () => {
    const up = await startDemoUpstream({ version });
    const client = new Client({ name: "test", version: "0.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(up.url));
    try {
      await client.connect(transport);
      assert.equal(client.getServerVersion()?.version, version);
      assert.equal(client.getServerVersion()?.name, "demo");
      assert.match(transport.sessionId ?? "", /^[0-9a-f-]{36}$/);

      const listed = await client.listTools();
      assert.deepEqual(listed.tools.map((t: { name: string }) => t.name).sort(), tools);
      const echo = listed.tools.find((t: { name: string }) => t.name === "echo");
      assert.equal(echo?.description, `Echo the text back (demo v${version})`);

      assert.equal(
        textOf(await client.callTool({ name: "echo", arguments: { text: "héllo" } })),
        "héllo",
      );
      assert.equal(
        textOf(await client.callTool({ name: "add", arguments: { a: 2, b: 3.5 } })),
        "5.5",
      );
      if (tools.includes("time")) {
        const iso = textOf(await client.callTool({ name: "time", arguments: {} }));
        assert.ok(!Number.isNaN(Date.parse(iso)));
      }
    } finally {
      await client.close();
      await up.close();
    }
  });
}

Deno.test("demo upstream answers a bare tools/list without initialize", async (t) => {
  const up = await startDemoUpstream({ version: "1.2.3" });
  try {
    for (
      const [name, accept] of [
        ["both types", ACCEPT_BOTH],
        ["json only", "application/json"],
        ["no accept", undefined],
      ] as const
    ) {
      await t.step(name, async () => {
        const headers: Record<string, string> = { "content-type": "application/json" };
        if (accept) headers.accept = accept;
        const res = await fetch(up.url, { method: "POST", headers, body: TOOLS_LIST });
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type") ?? "", /application\/json/);
        assert.equal(res.headers.get("mcp-session-id"), null);
        const body = await res.json();
        assert.equal(body.id, 1);
        assert.deepEqual(body.result.tools.map((t: { name: string }) => t.name).sort(), [
          "add",
          "echo",
        ]);
      });
    }
    await t.step("malformed JSON → 400 -32700", async () => {
      const res = await fetch(up.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: ACCEPT_BOTH },
        body: "{nope",
      });
      assert.equal(res.status, 400);
      assert.equal((await res.json()).error.code, -32700);
    });
    await t.step("other paths → 404", async () => {
      const res = await fetch(new URL("/other", up.url), { method: "POST", body: TOOLS_LIST });
      assert.equal(res.status, 404);
      await res.body?.cancel();
    });
  } finally {
    await up.close();
  }
});

Deno.test("demo upstream sessions: id header, GET stream, DELETE ends the session", async () => {
  const up = await startDemoUpstream({ version: "2.1.0" });
  try {
    const init = await initialize(up.url);
    assert.equal(init.status, 200);
    const sid = init.headers.get("mcp-session-id");
    assert.ok(sid);
    assert.equal((await init.json()).result.serverInfo.version, "2.1.0");
    const h = { "content-type": "application/json", accept: ACCEPT_BOTH, "mcp-session-id": sid };

    const listed = await fetch(up.url, { method: "POST", headers: h, body: TOOLS_LIST });
    assert.equal(listed.status, 200);
    assert.equal((await listed.json()).result.tools.length, 3);

    const stream = await fetch(up.url, {
      headers: { accept: "text/event-stream", "mcp-session-id": sid },
    });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get("content-type"), "text/event-stream");

    const del = await fetch(up.url, { method: "DELETE", headers: { "mcp-session-id": sid } });
    assert.equal(del.status, 200);
    await del.body?.cancel();
    // Ending the session closes its GET stream.
    assert.equal(await new Response(stream.body).text(), "");

    const after = await fetch(up.url, { method: "POST", headers: h, body: TOOLS_LIST });
    assert.equal(after.status, 404);
    assert.equal((await after.json()).error.code, -32001);

    const noSid = await fetch(up.url, { headers: { accept: "text/event-stream" } });
    assert.equal(noSid.status, 400);
    await noSid.body?.cancel();
  } finally {
    await up.close();
  }
});

Deno.test("demo upstream close() ends open sessions and GET streams", async () => {
  const ac = new AbortController();
  const up = await startDemoUpstream({ version: "1.0.0", signal: ac.signal });
  const client = new Client({ name: "test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(up.url)));
  // The SDK client holds its own GET stream; open a second session with a raw GET stream too.
  const init = await initialize(up.url);
  const sid = init.headers.get("mcp-session-id");
  assert.ok(sid);
  await init.body?.cancel();
  const stream = await fetch(up.url, {
    headers: { accept: "text/event-stream", "mcp-session-id": sid },
  });
  assert.equal(stream.status, 200);
  const text = new Response(stream.body).text();
  ac.abort(); // same as up.close()
  await up.close();
  assert.equal(await text, "");
  await assert.rejects(() => client.listTools());
  await client.close();
});

Deno.test("startDemoUpstream() rejects a bad version", async () => {
  await assert.rejects(() => startDemoUpstream({ version: "nope" }), TypeError);
});

Deno.test("fast upstream answers initialize, tools/list and malformed input", async (t) => {
  const up = await startFastUpstream({});
  const post = (body: string) =>
    fetch(up.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: ACCEPT_BOTH },
      body,
    });
  try {
    await t.step("initialize → result and a session id", async () => {
      const res = await post(JSON.stringify({
        jsonrpc: "2.0",
        id: "a",
        method: "initialize",
        params: {},
      }));
      assert.equal(res.status, 200);
      assert.match(res.headers.get("mcp-session-id") ?? "", /^[0-9a-f-]{36}$/);
      const body = await res.json();
      assert.equal(body.id, "a");
      assert.equal(body.result.serverInfo.name, "fast");
    });
    await t.step("tools/list → the fixed tools with the request id", async () => {
      const res = await post(TOOLS_LIST);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/json");
      assert.deepEqual(await res.json(), {
        jsonrpc: "2.0",
        id: 1,
        result: { tools: FAST_UPSTREAM_TOOLS },
      });
    });
    await t.step("notification → 202", async () => {
      const res = await post(
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
      );
      assert.equal(res.status, 202);
      await res.body?.cancel();
    });
    await t.step("batch → array", async () => {
      const res = await post(`[${TOOLS_LIST},${TOOLS_LIST.replace('"id":1', '"id":2')}]`);
      const body = await res.json();
      assert.deepEqual(body.map((r: { id: number }) => r.id), [1, 2]);
    });
    for (
      const [body, code] of [
        ["{nope", -32700],
        ["", -32700],
        ["null", -32600],
        ["[]", -32600],
        ['{"jsonrpc":"1.0","id":1,"method":"x"}', -32600],
        ['{"jsonrpc":"2.0","id":{},"method":"x"}', -32600],
      ] as const
    ) {
      await t.step(`${JSON.stringify(body)} → ${code}`, async () => {
        const res = await post(body);
        assert.equal(res.status, 400);
        assert.equal((await res.json()).error.code, code);
      });
    }
    await t.step("GET → 405", async () => {
      const res = await fetch(up.url);
      assert.equal(res.status, 405);
      await res.body?.cancel();
    });
  } finally {
    await up.close();
  }
});
