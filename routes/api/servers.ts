/** Servers, versions, catalog and subscriptions. */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";
import { requireSession } from "../../lib/http/session_auth.ts";
import {
  checkRateLimit,
  createServer,
  deployVersion,
  getServer,
  listAllServers,
  ownedServerIds,
  requireServer,
  retireVersion,
  type ServerRecord,
} from "../../lib/servers/servers.ts";
import {
  cancelSubscription,
  subscribe,
  subscribedServerIds,
} from "../../lib/servers/subscriptions.ts";
import { serverDetailView, serverView } from "../../lib/servers/views.ts";
import { body } from "./body.ts";

/** `/api/servers*`, `/api/catalog`, `/api/subscriptions/:slug`. */
export function serverRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.use("/servers/*", requireSession);
  r.use("/servers", requireSession);
  r.use("/catalog", requireSession);
  r.use("/subscriptions/*", requireSession);

  r.get("/servers", async (c) => {
    const { kv, config } = c.get("deps");
    const userId = c.get("user").id;
    const [owned, subscribed] = await Promise.all([
      ownedServerIds(kv, userId),
      subscribedServerIds(kv, userId),
    ]);
    const ids = [...new Set([...owned, ...subscribed])];
    const servers = (await Promise.all(ids.map((id) => getServer(kv, id))))
      .filter((s): s is ServerRecord => s !== null)
      .sort((a, b) => a.slug.localeCompare(b.slug));
    const subs = new Set(subscribed);
    return c.json({
      servers: servers.map((s) => serverView(config.platformUrl, s, userId, subs.has(s.id))),
    });
  });

  r.get("/catalog", async (c) => {
    const { kv, config } = c.get("deps");
    const userId = c.get("user").id;
    const [all, subscribed] = await Promise.all([
      listAllServers(kv),
      subscribedServerIds(kv, userId),
    ]);
    const subs = new Set(subscribed);
    return c.json({
      servers: all.map((s) => serverView(config.platformUrl, s, userId, subs.has(s.id))),
    });
  });

  r.post("/servers", async (c) => {
    const input = await body(c, {
      slug: { type: "string", max: 100 },
      name: { type: "string", max: 200 },
      rate_limit: { type: "object", optional: true },
    });
    const deps = c.get("deps");
    const server = await createServer(deps, c.get("user").id, {
      slug: input.slug,
      name: input.name,
      rate_limit: input.rate_limit ? checkRateLimit(input.rate_limit) : undefined,
    });
    return c.json(serverDetailView(deps.config.platformUrl, server, c.get("user").id, false), 201);
  });

  r.get("/servers/:slug", async (c) => {
    const { kv, config } = c.get("deps");
    const server = await requireServer(kv, c.req.param("slug"));
    const userId = c.get("user").id;
    const subscribed = (await subscribedServerIds(kv, userId)).includes(server.id);
    return c.json(serverDetailView(config.platformUrl, server, userId, subscribed));
  });

  r.post("/servers/:slug/versions", async (c) => {
    const input = await body(c, {
      version: { type: "string", max: 100 },
      upstream_url: { type: "string", max: 2000 },
    });
    const deps = c.get("deps");
    const userId = c.get("user").id;
    const server = await deployVersion(deps, c.req.param("slug"), userId, input);
    const subscribed = (await subscribedServerIds(deps.kv, userId)).includes(server.id);
    return c.json(serverDetailView(deps.config.platformUrl, server, userId, subscribed), 201);
  });

  r.delete("/servers/:slug/versions/:version", async (c) => {
    const deps = c.get("deps");
    const userId = c.get("user").id;
    const server = await retireVersion(deps, c.req.param("slug"), userId, c.req.param("version"));
    const subscribed = (await subscribedServerIds(deps.kv, userId)).includes(server.id);
    return c.json(serverDetailView(deps.config.platformUrl, server, userId, subscribed));
  });

  r.put("/subscriptions/:slug", async (c) => {
    const deps = c.get("deps");
    const server = await requireServer(deps.kv, c.req.param("slug"));
    const created = await subscribe(deps, c.get("user").id, server.id);
    return c.json(
      { subscription: { server_id: server.id, server_slug: server.slug, active: true } },
      created ? 201 : 200,
    );
  });

  r.delete("/subscriptions/:slug", async (c) => {
    const deps = c.get("deps");
    const server = await requireServer(deps.kv, c.req.param("slug"));
    // Idempotent like PUT: cancelling a subscription that is already gone is not an error.
    await cancelSubscription(deps, c.get("user").id, server.id);
    return c.body(null, 204);
  });

  return r;
}
