/**
 * Which version of a server an MCP URL reaches, worked out once per server record and URL path.
 *
 * Server records are replaced, never changed, on every deploy or retire, so a record's answers
 * hold for its lifetime: the path is parsed (SPEC 9 patterns) and resolved (`semver`) on the
 * first request only, and later requests through the same path are one Map lookup.
 */
import type { ServerRecord, VersionRecord } from "../servers/servers.ts";
import { parseVersionPath, resolveVersion, type VersionPattern } from "../versions/resolve.ts";

/** What a version path of one server record resolves to. */
export interface VersionRoute {
  /** The pattern the path asks for; null when the path is not a version pattern at all. */
  pattern: VersionPattern | null;
  /** The live version the pattern resolves to now, or null when none is live. */
  version: VersionRecord | null;
}

interface Routes {
  byPath: Map<string, VersionRoute>;
  latest: VersionRecord | null;
}

const LATEST: VersionPattern = { kind: "latest" };
/** Most distinct paths remembered per server record (URL paths are client-chosen). */
const MAX_PATHS = 256;
const memo = new WeakMap<ServerRecord, Routes>();

function routesOf(server: ServerRecord): Routes {
  let routes = memo.get(server);
  if (!routes) {
    routes = { byPath: new Map(), latest: resolve(server, LATEST) };
    memo.set(server, routes);
  }
  return routes;
}

function resolve(server: ServerRecord, pattern: VersionPattern): VersionRecord | null {
  const v = resolveVersion(pattern, server.versions);
  return v === null ? null : server.versions.find((r) => r.version === v)!;
}

/** The highest live version of `server` (for `X-MCP-Latest-Version`), or null. */
export function latestVersion(server: ServerRecord): VersionRecord | null {
  return routesOf(server).latest;
}

/** The pattern `versionPath` (what follows the base URL) asks for and what it resolves to. */
export function versionRoute(server: ServerRecord, versionPath: string): VersionRoute {
  const routes = routesOf(server);
  let route = routes.byPath.get(versionPath);
  if (route === undefined) {
    const pattern = parseVersionPath(versionPath);
    route = { pattern, version: pattern === null ? null : resolve(server, pattern) };
    if (routes.byPath.size < MAX_PATHS) routes.byPath.set(versionPath, route);
  }
  return route;
}

/** A pattern as people write it, for error messages. */
export function describePattern(p: VersionPattern): string {
  switch (p.kind) {
    case "latest":
      return "/ (latest)";
    case "major":
      return `v${p.major}`;
    case "minor":
      return `v${p.major}.${p.minor}`;
    case "exact":
      return `v${p.version}`;
  }
}
