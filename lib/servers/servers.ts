/**
 * Servers and their versions. A server's versions live inside its record, so a deploy is one
 * checked write and the hot path gets everything about a server in one read.
 */
import type { AppDeps } from "../context.ts";
import {
  serverByOwnerKey,
  serverByOwnerPrefix,
  serverBySlugKey,
  serverKey,
  serverPrefix,
} from "../kv/keys.ts";
import { newId } from "../ids.ts";
import { HttpError } from "../http/errors.ts";
import { checkSlug } from "./slug.ts";
import { compareVersions, isValidVersion, latestLiveVersion } from "../versions/resolve.ts";

/** A server's request budget per user. */
export interface RateLimit {
  limit: number;
  window: "minute" | "hour";
}

/** The default budget: 120 requests per minute per user. */
export const DEFAULT_RATE_LIMIT: RateLimit = { limit: 120, window: "minute" };
/** Most versions one server keeps (the record must fit one KV value). */
export const MAX_VERSIONS = 200;

/** One deployed version of a server. */
export interface VersionRecord {
  version: string;
  upstream_url: string;
  live: boolean;
  deployed_at: string;
  retired_at: string | null;
}

/** A stored server. */
export interface ServerRecord {
  id: string;
  slug: string;
  name: string;
  owner_id: string;
  rate_limit: RateLimit;
  created_at: string;
  versions: VersionRecord[];
}

/** Validates a server name (RangeError). */
export function checkServerName(name: string): string {
  const n = name.trim();
  if (n.length < 1 || n.length > 100) throw new RangeError("Name must be 1 to 100 characters");
  return n;
}

/** Validates a rate limit (RangeError). */
export function checkRateLimit(raw: Record<string, unknown>): RateLimit {
  const { limit, window, ...rest } = raw;
  const extra = Object.keys(rest)[0];
  if (extra) throw new RangeError(`Unknown field "rate_limit.${extra}"`);
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 1_000_000) {
    throw new RangeError("rate_limit.limit must be a whole number from 1 to 1000000");
  }
  if (window !== "minute" && window !== "hour") {
    throw new RangeError('rate_limit.window must be "minute" or "hour"');
  }
  return { limit, window };
}

/** Checks an upstream URL: absolute http(s), no credentials (RangeError). */
export function checkUpstreamUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RangeError("upstream_url must be an absolute URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new RangeError("upstream_url must use http or https");
  }
  if (url.username || url.password) throw new RangeError("upstream_url must not carry credentials");
  if (url.hash) throw new RangeError("upstream_url must not have a fragment");
  return url.href;
}

/** Creates a server owned by `ownerId`; 409 when the slug is taken (atomic). */
export async function createServer(
  deps: AppDeps,
  ownerId: string,
  input: { slug: string; name: string; rate_limit?: RateLimit },
): Promise<ServerRecord> {
  checkSlug(input.slug);
  const server: ServerRecord = {
    id: newId(),
    slug: input.slug,
    name: checkServerName(input.name),
    owner_id: ownerId,
    rate_limit: input.rate_limit ?? DEFAULT_RATE_LIMIT,
    created_at: new Date(deps.clock.now()).toISOString(),
    versions: [],
  };
  const op = deps.kv.atomic()
    .check({ key: serverBySlugKey(server.slug), versionstamp: null })
    .set(serverKey(server.id), server)
    .set(serverBySlugKey(server.slug), server.id)
    .set(serverByOwnerKey(ownerId, server.id), server.id);
  const res = await deps.changes.commit(op, [{ kind: "server", id: server.id, slug: server.slug }]);
  if (!res.ok) throw new HttpError("conflict", `The slug "${server.slug}" is already taken`);
  return server;
}

/** A server by id, or null. */
export async function getServer(kv: Deno.Kv, id: string): Promise<ServerRecord | null> {
  return (await kv.get<ServerRecord>(serverKey(id))).value;
}

/** A server by slug, or null. */
export async function getServerBySlug(kv: Deno.Kv, slug: string): Promise<ServerRecord | null> {
  if (!/^[a-z0-9-]{1,63}$/.test(slug)) return null;
  const id = (await kv.get<string>(serverBySlugKey(slug))).value;
  return id ? await getServer(kv, id) : null;
}

/** Like getServerBySlug but 404 when absent. */
export async function requireServer(kv: Deno.Kv, slug: string): Promise<ServerRecord> {
  const s = await getServerBySlug(kv, slug);
  if (!s) throw new HttpError("not_found", `No server "${slug}"`);
  return s;
}

/** Every server, by slug order. */
export async function listAllServers(kv: Deno.Kv): Promise<ServerRecord[]> {
  const out: ServerRecord[] = [];
  for await (const e of kv.list<ServerRecord>({ prefix: serverPrefix() })) out.push(e.value);
  return out.sort((a, b) => a.slug.localeCompare(b.slug));
}

/** Ids of the servers a user owns. */
export async function ownedServerIds(kv: Deno.Kv, userId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const e of kv.list<string>({ prefix: serverByOwnerPrefix(userId) })) ids.push(e.value);
  return ids;
}

/** How often a server update retries after losing a race to another write. */
const UPDATE_ATTEMPTS = 100;

async function updateServer(
  deps: AppDeps,
  slug: string,
  ownerId: string,
  change: (s: ServerRecord, now: string) => ServerRecord,
): Promise<ServerRecord> {
  // Each lost race means another write landed, so every writer makes progress; a short random
  // back-off keeps many concurrent deploys from colliding in lock-step.
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    if (attempt > 0) {
      await new Promise((r) => setTimeout(r, Math.random() * Math.min(2 ** attempt, 25)));
    }
    const id = (await deps.kv.get<string>(serverBySlugKey(slug))).value;
    const entry = id ? await deps.kv.get<ServerRecord>(serverKey(id)) : null;
    if (!entry?.value) throw new HttpError("not_found", `No server "${slug}"`);
    if (entry.value.owner_id !== ownerId) {
      throw new HttpError("forbidden", "Only the owner of a server can change its versions");
    }
    const next = change(entry.value, new Date(deps.clock.now()).toISOString());
    const op = deps.kv.atomic().check(entry).set(serverKey(next.id), next);
    const res = await deps.changes.commit(op, [{ kind: "server", id: next.id, slug: next.slug }]);
    if (res.ok) return next;
  }
  throw new HttpError("conflict", "The server is being changed by someone else; try again");
}

/**
 * Deploys a version. The other live versions of the same `<major>.<minor>` stop being live
 * (a new patch replaces the previous one). Prereleases replace nothing.
 */
export async function deployVersion(
  deps: AppDeps,
  slug: string,
  ownerId: string,
  input: { version: string; upstream_url: string },
): Promise<ServerRecord> {
  if (!isValidVersion(input.version)) {
    throw new RangeError(
      "version must be <major>.<minor>.<patch>, like 1.4.2 (prerelease allowed)",
    );
  }
  const upstream = checkUpstreamUrl(input.upstream_url);
  return await updateServer(deps, slug, ownerId, (s, now) => {
    if (s.versions.some((v) => v.version === input.version)) {
      throw new HttpError("conflict", `Version ${input.version} was already deployed`);
    }
    if (s.versions.length >= MAX_VERSIONS) {
      throw new HttpError("conflict", `A server keeps at most ${MAX_VERSIONS} versions`);
    }
    const [major, minor] = input.version.split(/[.-]/);
    const line = (v: string) => v.split(/[.-]/).slice(0, 2).join(".") === `${major}.${minor}`;
    const prerelease = input.version.includes("-");
    const newer = s.versions.find((v) =>
      v.live && !v.version.includes("-") && line(v.version) &&
      compareVersions(v.version, input.version) > 0
    );
    if (newer && !prerelease) {
      throw new HttpError(
        "conflict",
        `Version ${newer.version} is live; deploy a higher patch than ${input.version}`,
      );
    }
    const versions = s.versions.map((v) =>
      !prerelease && v.live && !v.version.includes("-") && line(v.version)
        ? { ...v, live: false, retired_at: now }
        : v
    );
    versions.push({
      version: input.version,
      upstream_url: upstream,
      live: true,
      deployed_at: now,
      retired_at: null,
    });
    versions.sort((a, b) => compareVersions(a.version, b.version));
    return { ...s, versions };
  });
}

/** Retires a version: it stops being live. */
export async function retireVersion(
  deps: AppDeps,
  slug: string,
  ownerId: string,
  version: string,
): Promise<ServerRecord> {
  return await updateServer(deps, slug, ownerId, (s, now) => {
    const v = s.versions.find((v) => v.version === version);
    if (!v) throw new HttpError("not_found", `Version ${version} was never deployed`);
    if (!v.live) throw new HttpError("conflict", `Version ${version} is not live`);
    return {
      ...s,
      versions: s.versions.map((x) =>
        x.version === version ? { ...x, live: false, retired_at: now } : x
      ),
    };
  });
}

/** Points an existing version at a new upstream URL (used by the demo seed on each start). */
export async function repointVersion(
  deps: AppDeps,
  slug: string,
  ownerId: string,
  version: string,
  upstreamUrl: string,
): Promise<ServerRecord> {
  const url = checkUpstreamUrl(upstreamUrl);
  return await updateServer(deps, slug, ownerId, (s) => ({
    ...s,
    versions: s.versions.map((v) => v.version === version ? { ...v, upstream_url: url } : v),
  }));
}

/** The highest live version of a server, or null. */
export const serverLatest = (s: ServerRecord) => latestLiveVersion(s.versions);
