/**
 * Version patterns and resolution (SPEC section 9).
 *
 * A version is strict SemVer 2.0 `<major>.<minor>.<patch>` with an optional `-prerelease`, no
 * leading `v`, no leading zeros, no `+build` metadata (build metadata does not take part in
 * precedence, so two deploys differing only in it could not be told apart by resolution).
 *
 * Prereleases are reached only by an exact pattern; `/`, `/v<major>` and `/v<major>.<minor>`
 * consider live non-prerelease versions only.
 *
 * @module
 */
import semver from "semver";

/** What the version part of an MCP URL asks for. */
export type VersionPattern =
  | { kind: "latest" }
  | { kind: "major"; major: number }
  | { kind: "minor"; major: number; minor: number }
  | { kind: "exact"; version: string };

/** One deployed version of a server and whether it is currently live. */
export type DeployedVersion = { version: string; live: boolean };

const NUM = "(0|[1-9][0-9]*)";
const RANGE_PATH_RE = new RegExp(`^/v${NUM}(?:\\.${NUM})?/?$`);
const EXACT_PATH_RE = /^\/v([^/]+)\/?$/;

/** True iff `v` is `<major>.<minor>.<patch>[-prerelease]` in strict SemVer (no "v", no build). */
export function isValidVersion(v: string): boolean {
  if (typeof v !== "string" || v.includes("+")) return false;
  return semver.valid(v) === v;
}

function assertVersion(v: unknown, what: string): asserts v is string {
  if (typeof v !== "string") throw new TypeError(`${what}: expected a version string`);
  if (!isValidVersion(v)) throw new RangeError(`${what}: invalid version ${JSON.stringify(v)}`);
}

/** SemVer precedence of two valid versions as -1, 0 or 1; RangeError if either is invalid. */
export function compareVersions(a: string, b: string): -1 | 0 | 1 {
  assertVersion(a, "Cannot compare versions");
  assertVersion(b, "Cannot compare versions");
  return semver.compare(a, b);
}

/**
 * Parses the URL path after the server base: "" or "/" → latest, "/v1" → major, "/v1.2" →
 * minor, "/v1.2.3" or "/v1.2.3-beta.1" → exact; one trailing slash allowed; null otherwise.
 */
export function parseVersionPath(path: string): VersionPattern | null {
  if (typeof path !== "string") throw new TypeError("parseVersionPath() expects a string");
  if (path === "" || path === "/") return { kind: "latest" };
  const range = RANGE_PATH_RE.exec(path);
  if (range) {
    const major = Number(range[1]);
    if (!Number.isSafeInteger(major)) return null;
    if (range[2] === undefined) return { kind: "major", major };
    const minor = Number(range[2]);
    return Number.isSafeInteger(minor) ? { kind: "minor", major, minor } : null;
  }
  const exact = EXACT_PATH_RE.exec(path);
  if (exact && isValidVersion(exact[1])) return { kind: "exact", version: exact[1] };
  return null;
}

function checkVersions(versions: readonly DeployedVersion[]): void {
  if (!Array.isArray(versions)) throw new TypeError("Cannot resolve version: expected an array");
  for (const v of versions) {
    if (typeof v !== "object" || v === null || typeof v.live !== "boolean") {
      throw new TypeError("Cannot resolve version: expected {version: string, live: boolean}");
    }
    assertVersion(v.version, "Cannot resolve version");
  }
}

function highestLive(
  versions: readonly DeployedVersion[],
  accept: (v: semver.SemVer) => boolean,
): string | null {
  let best: string | null = null;
  for (const { version, live } of versions) {
    if (!live) continue;
    const parsed = semver.parse(version)!;
    if (parsed.prerelease.length > 0 || !accept(parsed)) continue;
    if (best === null || semver.gt(version, best)) best = version;
  }
  return best;
}

/**
 * Resolves a pattern against a deploy history: latest/major/minor → highest live non-prerelease
 * version in range; exact → that version only if deployed and live (prereleases included); null
 * when nothing matches. TypeError/RangeError on malformed input (including invalid versions).
 */
export function resolveVersion(
  pattern: VersionPattern,
  versions: readonly DeployedVersion[],
): string | null {
  checkVersions(versions);
  if (typeof pattern !== "object" || pattern === null) {
    throw new TypeError("Cannot resolve version: pattern must be an object");
  }
  switch (pattern.kind) {
    case "latest":
      return highestLive(versions, () => true);
    case "major": {
      const { major } = pattern;
      assertPart(major, "major");
      return highestLive(versions, (v) => v.major === major);
    }
    case "minor": {
      const { major, minor } = pattern;
      assertPart(major, "major");
      assertPart(minor, "minor");
      return highestLive(versions, (v) => v.major === major && v.minor === minor);
    }
    case "exact": {
      assertVersion(pattern.version, "Cannot resolve version");
      const wanted = pattern.version;
      return versions.some((v) => v.live && v.version === wanted) ? wanted : null;
    }
    default:
      throw new TypeError(
        `Cannot resolve version: unknown pattern kind ${
          JSON.stringify((pattern as { kind: unknown }).kind)
        }`,
      );
  }
}

function assertPart(n: unknown, name: string): void {
  if (typeof n !== "number") {
    throw new TypeError(`Cannot resolve version: ${name} must be a number`);
  }
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`Cannot resolve version: ${name} must be a non-negative integer`);
  }
}

/** The highest live non-prerelease version (the `X-MCP-Latest-Version` value), or null if none. */
export function latestLiveVersion(versions: readonly DeployedVersion[]): string | null {
  return resolveVersion({ kind: "latest" }, versions);
}
