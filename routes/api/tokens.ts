/** API token routes (being built: see issue 3). */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";

/** `/api/tokens*`. */
export function tokenRoutes(): Hono<AppEnv> {
  return new Hono<AppEnv>();
}
