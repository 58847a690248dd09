/** The dashboard: server-rendered pages with islands, and the static files they use. */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";
import { loadSession } from "../../lib/http/session_auth.ts";
import { pageHeaders } from "./render.tsx";
import { staticRoutes } from "./static.ts";
import { authPages } from "./auth.tsx";
import { tokenPages } from "./tokens.tsx";
import { serverPages } from "./servers.tsx";
import { accountPages } from "./account.tsx";

/** Every dashboard page; `/` goes to the tokens page or to sign-in. */
export function pageRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.use("*", pageHeaders);
  r.route("/", staticRoutes());
  r.get("/", async (c) => c.redirect((await loadSession(c)) ? "/tokens" : "/sign-in", 303));
  r.route("/", authPages());
  r.route("/", tokenPages());
  r.route("/", serverPages());
  r.route("/", accountPages());
  return r;
}
