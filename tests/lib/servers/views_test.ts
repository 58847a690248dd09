import assert from "node:assert/strict";
import { currentRoutes, serverDetailView, serverView } from "../../../lib/servers/views.ts";
import type { ServerRecord } from "../../../lib/servers/servers.ts";

const platform = new URL("http://localhost:8000");
const server: ServerRecord = {
  id: "srv-1",
  slug: "demo",
  name: "Demo",
  owner_id: "owner",
  rate_limit: { limit: 120, window: "minute" },
  created_at: "2026-01-01T00:00:00.000Z",
  versions: [
    ["1.0.0", true],
    ["1.1.0", false],
    ["1.1.1", true],
    ["2.0.0", true],
    ["2.1.0-beta.1", true],
  ].map(([version, live]) => ({
    version: version as string,
    live: live as boolean,
    upstream_url: `http://127.0.0.1:9/${version}`,
    deployed_at: "2026-01-01T00:00:00.000Z",
    retired_at: live ? null : "2026-01-02T00:00:00.000Z",
  })),
};

Deno.test("serverView() summarises a server with latest_version and both URLs", () => {
  assert.deepEqual(serverView(platform, server, "owner", false), {
    id: "srv-1",
    slug: "demo",
    name: "Demo",
    owned: true,
    subscribed: false,
    latest_version: "2.0.0",
    rate_limit: { limit: 120, window: "minute" },
    base_url: "http://demo.localhost:8000",
    path_url: "http://localhost:8000/s/demo",
    created_at: "2026-01-01T00:00:00.000Z",
  });
  const other = serverView(platform, server, "someone", true);
  assert.equal(other.owned, false);
  assert.equal(other.subscribed, true);
});

Deno.test("currentRoutes() maps each URL pattern to the version it reaches", () => {
  assert.deepEqual(currentRoutes(server), [
    { path: "/", version: "2.0.0" },
    { path: "/v2", version: "2.0.0" },
    { path: "/v2.0", version: "2.0.0" },
    { path: "/v1", version: "1.1.1" },
    { path: "/v1.1", version: "1.1.1" },
    { path: "/v1.0", version: "1.0.0" },
  ]);
});

Deno.test("serverDetailView() lists versions newest first; upstream_url only for the owner", () => {
  const mine = serverDetailView(platform, server, "owner", false);
  assert.deepEqual(mine.versions.map((v) => v.version), [
    "2.1.0-beta.1",
    "2.0.0",
    "1.1.1",
    "1.1.0",
    "1.0.0",
  ]);
  assert.equal(mine.versions[1].upstream_url, "http://127.0.0.1:9/2.0.0");
  assert.equal(mine.versions[3].live, false);
  const theirs = JSON.parse(JSON.stringify(serverDetailView(platform, server, "x", true)));
  for (const v of theirs.versions) assert.ok(!("upstream_url" in v));
  assert.deepEqual(theirs.routes, mine.routes);
});
