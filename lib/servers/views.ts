/** What the API answers about a server: summary for lists, detail with versions and routes. */
import type { ServerRecord } from "./servers.ts";
import { serverBaseUrls } from "./urls.ts";
import { latestLiveVersion, resolveVersion, type VersionPattern } from "../versions/resolve.ts";
import { compareVersions } from "../versions/resolve.ts";

/** A server as it appears in lists. */
export function serverView(platformUrl: URL, s: ServerRecord, userId: string, subscribed: boolean) {
  const urls = serverBaseUrls(platformUrl, s.slug);
  return {
    id: s.id,
    slug: s.slug,
    name: s.name,
    owned: s.owner_id === userId,
    subscribed,
    latest_version: latestLiveVersion(s.versions),
    rate_limit: s.rate_limit,
    base_url: urls.host,
    path_url: urls.path,
    created_at: s.created_at,
  };
}

/** Which version each URL pattern reaches now: `/`, every `/v<major>`, every `/v<major>.<minor>`. */
export function currentRoutes(s: ServerRecord): { path: string; version: string | null }[] {
  const patterns: [string, VersionPattern][] = [["/", { kind: "latest" }]];
  const majors = new Set<number>();
  const minors = new Set<string>();
  for (const v of [...s.versions].sort((a, b) => compareVersions(b.version, a.version))) {
    if (v.version.includes("-")) continue;
    const [major, minor] = v.version.split(".").map(Number);
    if (!majors.has(major)) {
      majors.add(major);
      patterns.push([`/v${major}`, { kind: "major", major }]);
    }
    if (!minors.has(`${major}.${minor}`)) {
      minors.add(`${major}.${minor}`);
      patterns.push([`/v${major}.${minor}`, { kind: "minor", major, minor }]);
    }
  }
  return patterns.map(([path, p]) => ({ path, version: resolveVersion(p, s.versions) }));
}

/** A server with its versions and current routes. */
export function serverDetailView(
  platformUrl: URL,
  s: ServerRecord,
  userId: string,
  subscribed: boolean,
) {
  return {
    ...serverView(platformUrl, s, userId, subscribed),
    versions: [...s.versions].reverse().map((v) => ({
      version: v.version,
      live: v.live,
      upstream_url: s.owner_id === userId ? v.upstream_url : undefined,
      deployed_at: v.deployed_at,
      retired_at: v.retired_at,
    })),
    routes: currentRoutes(s),
  };
}
