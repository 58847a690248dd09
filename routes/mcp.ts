/**
 * MCP dispatch on server base URLs (host form and `/s/<slug>`), the RFC 9728 path-aware metadata
 * on the platform origin and the platform JWKS.
 *
 * It runs in front of Hono's middleware chain, not inside it: `app.fetch` (and so
 * `app.request()`) first asks the gateway, and only requests that are not MCP's go on to the
 * other routes. A host-form base URL owns every path on its host. This keeps the router's
 * per-request cost (about a third of the gateway's own, measured) off the hot path.
 */
import type { Hono } from "hono";
import type { AppEnv } from "../lib/http/env.ts";
import type { AppDeps } from "../lib/context.ts";
import { gatewayFor } from "../lib/mcp/gateway.ts";

type Fetch = (
  req: Request,
  env?: AppEnv["Bindings"],
  ctx?: unknown,
) => Response | Promise<Response>;

/** Mounts MCP dispatch in front of every other route of `app`. */
export function mountMcp(app: Hono<AppEnv>, deps: AppDeps): void {
  const routed = app.fetch as Fetch;
  let mcp: ReturnType<typeof gatewayFor> | undefined;
  const gateway: Fetch = (req, env, ctx) =>
    (mcp ??= gatewayFor(deps)).handle(req, env?.remoteAddr?.hostname) ?? routed(req, env, ctx);
  app.fetch = gateway as typeof app.fetch;
}
