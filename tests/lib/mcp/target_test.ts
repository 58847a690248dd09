import assert from "node:assert/strict";
import { mcpTarget } from "../../../lib/mcp/target.ts";

const P = new URL("http://localhost:8000");

Deno.test("mcpTarget() classifies host form, path form, path-aware metadata and JWKS", () => {
  const cases: [string | null, string, ReturnType<typeof mcpTarget>][] = [
    ["demo.localhost:8000", "/", {
      kind: "mcp",
      slug: "demo",
      base: "http://demo.localhost:8000",
      versionPath: "/",
    }],
    ["demo.localhost:8000", "/api/tokens", {
      kind: "mcp",
      slug: "demo",
      base: "http://demo.localhost:8000",
      versionPath: "/api/tokens",
    }],
    ["localhost:8000", "/s/demo/v1.2", {
      kind: "mcp",
      slug: "demo",
      base: "http://localhost:8000/s/demo",
      versionPath: "/v1.2",
    }],
    ["127.0.0.1:8000", "/s/demo", {
      kind: "mcp",
      slug: "demo",
      base: "http://localhost:8000/s/demo",
      versionPath: "",
    }],
    ["localhost:8000", "/s/demo/.well-known/oauth-protected-resource", {
      kind: "metadata",
      slug: "demo",
      base: "http://localhost:8000/s/demo",
      resource: "http://localhost:8000/s/demo",
    }],
    ["localhost:8000", "/.well-known/oauth-protected-resource/s/demo/v1", {
      kind: "metadata",
      slug: "demo",
      base: "http://localhost:8000/s/demo",
      resource: "http://localhost:8000/s/demo/v1",
    }],
    ["DEMO.localhost:8000", "/.well-known/oauth-protected-resource", {
      kind: "metadata",
      slug: "demo",
      base: "http://demo.localhost:8000",
      resource: "http://demo.localhost:8000",
    }],
    ["localhost:8000", "/.well-known/jwks.json", { kind: "jwks" }],
    ["localhost:8000", "/", null],
    ["localhost:8000", "/api/tokens", null],
    ["localhost:8000", "/sx/demo", null],
    ["a.b.localhost:8000", "/", null],
    [null, "/dashboard", null],
  ];
  for (const [host, path, want] of cases) {
    assert.deepEqual(mcpTarget(P, host, path), want, `${host} ${path}`);
  }
});
