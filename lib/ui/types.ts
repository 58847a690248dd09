/** Shapes the dashboard reads from the JSON API (DESIGN 4), shared by pages and islands. */

/** One server a token may be scoped to. */
export interface TokenScope {
  server_id: string;
  server_name: string;
  server_slug: string;
}

/** A token as `GET /api/tokens` lists it (never with its secret). */
export interface TokenView {
  id: string;
  name: string;
  prefix: string;
  expires_at: string;
  allowed_ips: string[] | null;
  scopes: TokenScope[];
  created_at: string;
  last_used_at: string | null;
}

/** A token with its full secret: the answer of create and rotate, shown once. */
export interface TokenWithSecret extends TokenView {
  token: string;
}

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
