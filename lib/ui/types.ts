/** Shapes the dashboard reads from the JSON API (DESIGN 4), shared by pages and islands. */

export type { TokenScope, TokenView, TokenWithSecret } from "../tokens/views.ts";

/** A server the user can pick in the create dialog, with its MCP base URLs. */
export interface ServerOption {
  id: string;
  slug: string;
  name: string;
  owned: boolean;
  base_url: string;
  path_url: string;
}

/** One version row of a server's detail. */
export interface VersionView {
  version: string;
  live: boolean;
  upstream_url?: string;
  deployed_at: string;
  retired_at?: string | null;
}

/** What `/`, `/v1`, `/v1.1`… resolve to now. */
export interface RouteView {
  path: string;
  version: string | null;
}

/** A server's detail as `GET /api/servers/:slug` answers it. */
export interface ServerDetail extends ServerOption {
  subscribed: boolean;
  latest_version: string | null;
  versions: VersionView[];
  routes: RouteView[];
}
