/** MCP dispatch on server base URLs (being built: see issue 4). */
import type { Hono } from "hono";
import type { AppEnv } from "../lib/http/env.ts";
import type { AppDeps } from "../lib/context.ts";

/** Mounts MCP dispatch for host-form and `/s/<slug>` base URLs. */
export function mountMcp(_app: Hono<AppEnv>, _deps: AppDeps): void {}
