/** The JSON API under `/api`. */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";
import { accountRoutes } from "./accounts.ts";
import { serverRoutes } from "./servers.ts";
import { tokenRoutes } from "./tokens.ts";
import { auditRoutes } from "./audit.ts";
import { HttpError } from "../../lib/http/errors.ts";

/** Every `/api/*` route; unknown ones are a JSON 404. */
export function apiRoutes(): Hono<AppEnv> {
  const api = new Hono<AppEnv>();
  api.use("*", async (c, next) => {
    await next();
    c.header("cache-control", "no-store");
  });
  api.route("/", accountRoutes());
  api.route("/", serverRoutes());
  api.route("/", tokenRoutes());
  api.route("/", auditRoutes());
  api.all("*", (c) => {
    throw new HttpError("not_found", `No API route for ${c.req.method} ${c.req.path}`);
  });
  return api;
}
