/** Dashboard pages (being built: see issue 5). */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";

/** Every dashboard page. */
export function pageRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.get("/", (c) => c.text("toolgate"));
  return r;
}
