import assert from "node:assert/strict";
import { serverBaseUrls, slugFromHost } from "../../../lib/servers/urls.ts";

Deno.test("serverBaseUrls() gives host and path forms", () => {
  assert.deepEqual(serverBaseUrls(new URL("http://localhost:8000"), "demo"), {
    host: "http://demo.localhost:8000",
    path: "http://localhost:8000/s/demo",
  });
  assert.deepEqual(serverBaseUrls(new URL("https://tools.example.com"), "labs"), {
    host: "https://labs.tools.example.com",
    path: "https://tools.example.com/s/labs",
  });
});

Deno.test("slugFromHost() finds the slug of host-form requests only", async (t) => {
  const platform = new URL("http://localhost:8000");
  const cases: [string | null, string | null][] = [
    ["demo.localhost:8000", "demo"],
    ["DEMO.LOCALHOST:8000", "demo"],
    ["localhost:8000", null],
    ["demo.localhost:9000", null],
    ["demo.example.com", null],
    ["a.b.localhost:8000", null],
    [".localhost:8000", null],
    [null, null],
  ];
  for (const [host, want] of cases) {
    await t.step(String(host), () => assert.equal(slugFromHost(platform, host), want));
  }
});
