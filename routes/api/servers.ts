/** Servers, versions, catalog and subscriptions. */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";
import { requireSession } from "../../lib/http/session_auth.ts";
import {
  checkRateLimit,
  createServer,
  deployVersion,
  requireServer,
  retireVersion,
  type ServerRecord,
} from "../../lib/servers/servers.ts";
import { cancelSubscription, isSubscribed, subscribe } from "../../lib/servers/subscriptions.ts";
import { serverDetailView } from "../../lib/servers/views.ts";
import { catalog, userServers } from "../../lib/servers/listing.ts";
import { body } from "./body.ts";
import type { Context } from "hono";

/** The detail answer for a server, from the caller's point of view. */
async function detail(c: Context<AppEnv>, server: ServerRecord, status: 200 | 201 = 200) {
  const { kv, config } = c.get("deps");
  const userId = c.get("user").id;
  const subscribed = await isSubscribed(kv, userId, server.id);
  return c.json(serverDetailView(config.platformUrl, server, userId, subscribed), status);
}

/** `/api/servers*`, `/api/catalog`, `/api/subscriptions/:slug`. */
export function serverRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.use("/servers/*", requireSession);
  r.use("/servers", requireSession);
  r.use("/catalog", requireSession);
  r.use("/subscriptions/*", requireSession);

  r.get(
    "/servers",
    async (c) => c.json({ servers: await userServers(c.get("deps"), c.get("user").id) }),
  );

  r.get(
    "/catalog",
    async (c) => c.json({ servers: await catalog(c.get("deps"), c.get("user").id) }),
  );

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
    return await detail(c, server, 201);
  });

  r.get("/servers/:slug", async (c) => {
    return await detail(c, await requireServer(c.get("deps").kv, c.req.param("slug")));
  });

  r.post("/servers/:slug/versions", async (c) => {
    const input = await body(c, {
      version: { type: "string", max: 100 },
      upstream_url: { type: "string", max: 2000 },
    });
    const deps = c.get("deps");
    const userId = c.get("user").id;
    const server = await deployVersion(deps, c.req.param("slug"), userId, input);
    return await detail(c, server, 201);
  });

  r.delete("/servers/:slug/versions/:version", async (c) => {
    const deps = c.get("deps");
    const userId = c.get("user").id;
    const server = await retireVersion(deps, c.req.param("slug"), userId, c.req.param("version"));
    return await detail(c, server);
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
