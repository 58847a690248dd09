/**
 * Builds the whole HTTP app: MCP dispatch for server base URLs (host form and `/s/<slug>`), the
 * JSON API, the OAuth endpoints and the dashboard. Errors become one well-formed body, never a
 * stack trace.
 */
import { Hono } from "hono";
import type { AppDeps } from "../context.ts";
import type { AppEnv } from "./env.ts";
import { apiErrorResponse, HttpError, toHttpError } from "./errors.ts";
import { clientIp } from "./client_ip.ts";
import { apiRoutes } from "../../routes/api/mod.ts";
import { mountMcp } from "../../routes/mcp.ts";
import { pageRoutes } from "../../routes/pages/mod.tsx";

/** The app for one set of deps; `app.fetch(req, info)` serves it. */
export function createApp(deps: AppDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("*", async (c, next) => {
    c.set("deps", deps);
    c.set("clientIp", clientIp(c.req.raw, c.env?.remoteAddr?.hostname, deps.config.trustProxy));
    await next();
  });
  // MCP dispatch comes first: a server's host-form base URL owns every path on its host.
  mountMcp(app, deps);
  app.route("/api", apiRoutes());
  app.route("/", pageRoutes());
  app.notFound((c) => {
    const err = new HttpError("not_found", `No route for ${c.req.method} ${c.req.path}`);
    return apiErrorResponse(err);
  });
  app.onError((err, c) => {
    const http = toHttpError(err);
    if (http.kind === "internal") {
      deps.log(`[error] ${c.req.method} ${c.req.path}: ${err instanceof Error ? err.stack : err}`);
    }
    return apiErrorResponse(http);
  });
  return app;
}
