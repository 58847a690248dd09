/**
 * Which part of toolgate a request is for, as far as MCP is concerned (DESIGN 3): a server base
 * URL in host form (`{slug}.{platform host}`, every path) or path form (`/s/{slug}…`), the
 * RFC 9728 path-aware metadata on the platform origin, the platform JWKS — or none of these.
 */
import { serverBaseUrls, slugFromHost } from "../servers/urls.ts";

/** The well-known path of protected-resource metadata (RFC 9728). */
export const METADATA_PATH = "/.well-known/oauth-protected-resource";
/** Where the platform publishes the key that verifies upstream identity assertions. */
export const JWKS_PATH = "/.well-known/jwks.json";

/** What a request addresses. */
export type McpTarget =
  /** MCP itself; `versionPath` is what follows the base URL (`""`, `/v1`, `/v1.2.3`…). */
  | { kind: "mcp"; slug: string; base: string; versionPath: string }
  /** Protected-resource metadata whose `resource` is `resource`. */
  | { kind: "metadata"; slug: string; base: string; resource: string }
  | { kind: "jwks" };

const PATH_FORM_RE = /^\/s\/([^/]*)(\/.*)?$/;

/** Classifies a request by its Host header and path; null when it is not MCP's. */
export function mcpTarget(
  platformUrl: URL,
  hostHeader: string | null,
  pathname: string,
): McpTarget | null {
  const hostSlug = slugFromHost(platformUrl, hostHeader);
  if (hostSlug !== null) {
    const base = serverBaseUrls(platformUrl, hostSlug).host;
    return onBase(hostSlug, base, pathname);
  }
  const pathForm = PATH_FORM_RE.exec(pathname);
  if (pathForm) {
    const slug = pathForm[1];
    return onBase(slug, serverBaseUrls(platformUrl, slug).path, pathForm[2] ?? "");
  }
  if (pathname.startsWith(`${METADATA_PATH}/s/`)) {
    const m = PATH_FORM_RE.exec(pathname.slice(METADATA_PATH.length))!;
    const base = serverBaseUrls(platformUrl, m[1]).path;
    return { kind: "metadata", slug: m[1], base, resource: base + (m[2] ?? "") };
  }
  if (pathname === JWKS_PATH) return { kind: "jwks" };
  return null;
}

function onBase(slug: string, base: string, rest: string): McpTarget {
  if (rest === METADATA_PATH) return { kind: "metadata", slug, base, resource: base };
  if (rest.startsWith(`${METADATA_PATH}/`)) {
    // Path-aware form on a host-form origin: `/.well-known/oauth-protected-resource/v1`.
    return { kind: "metadata", slug, base, resource: base + rest.slice(METADATA_PATH.length) };
  }
  return { kind: "mcp", slug, base, versionPath: rest };
}
