/**
 * The demo platform, seeded once when SEED_DEMO is on: the demo user owning server `demo`
 * (1.0.0, 1.1.0, 1.1.1, 2.0.0 deployed in that order, so 1.1.0 is not live) and a second
 * account owning `labs`, to which the demo user does not subscribe.
 */
import type { AppDeps } from "../context.ts";
import { seedMarkerKey } from "../kv/keys.ts";
import { createUser, getUserByEmail, type User } from "../accounts/users.ts";
import {
  createServer,
  deployVersion,
  getServerBySlug,
  repointVersion,
} from "../servers/servers.ts";
import { randomToken } from "../ids.ts";
import { verifyPassword } from "../accounts/passwords.ts";
import { setPassword } from "../accounts/password.ts";
import { HttpError } from "../http/errors.ts";

const SEED_ORIGIN = { ip: null, user_agent: "toolgate seed (DEMO_PASSWORD)" };

/** Versions of `demo`, in deploy order. */
export const DEMO_VERSIONS = ["1.0.0", "1.1.0", "1.1.1", "2.0.0"] as const;
/** Versions of `labs`. */
export const LABS_VERSIONS = ["0.1.0"] as const;

/** What seeding produced; `password` is set only when it was generated just now. */
export interface SeedResult {
  email: string;
  generatedPassword: string | null;
  seededNow: boolean;
}

async function ensureUser(deps: AppDeps, email: string, password: string): Promise<User> {
  const found = await getUserByEmail(deps.kv, email);
  if (found) return found;
  try {
    return await createUser(deps, email, password);
  } catch {
    const again = await getUserByEmail(deps.kv, email);
    if (again) return again;
    throw new Error(`Cannot seed user ${email}`);
  }
}

async function ensureServer(
  deps: AppDeps,
  owner: User,
  slug: string,
  name: string,
  versions: readonly string[],
  upstreamFor: (slug: string, version: string) => string,
): Promise<void> {
  if (!(await getServerBySlug(deps.kv, slug))) {
    await createServer(deps, owner.id, { slug, name }).catch(() => {});
  }
  const server = await getServerBySlug(deps.kv, slug);
  if (!server) throw new Error(`Cannot seed server ${slug}`);
  for (const version of versions) {
    const existing = server.versions.find((v) => v.version === version);
    if (existing) {
      const url = upstreamFor(slug, version);
      if (existing.upstream_url !== url) {
        await repointVersion(deps, slug, server.owner_id, version, url);
      }
      continue;
    }
    try {
      await deployVersion(deps, slug, server.owner_id, {
        version,
        upstream_url: upstreamFor(slug, version),
      });
    } catch (err) {
      // Another instance seeding the same KV at the same time may have deployed it first.
      const now = await getServerBySlug(deps.kv, slug);
      if (!(err instanceof HttpError && err.kind === "conflict") || !now) throw err;
      if (!now.versions.some((v) => v.version === version)) throw err;
    }
  }
}

/**
 * Seeds the demo platform idempotently. `upstreamFor` gives each version's upstream URL; on a
 * later start the seeded versions are re-pointed at this start's upstreams.
 */
export async function seedDemo(
  deps: AppDeps,
  upstreamFor: (slug: string, version: string) => string,
): Promise<SeedResult> {
  const email = deps.config.demoEmail;
  const already = (await deps.kv.get(seedMarkerKey())).value !== null;
  const existing = await getUserByEmail(deps.kv, email);
  let generatedPassword: string | null = null;
  let password = deps.config.demoPassword;
  if (!password) {
    password = randomToken(12);
    if (!existing) generatedPassword = password;
  }
  const demo = existing ?? await ensureUser(deps, email, password);
  if (existing && deps.config.demoPassword) {
    const matches = await verifyPassword(deps.config.demoPassword, existing.password_hash);
    if (!matches) {
      // DEMO_PASSWORD changed since the account was made: apply it like a password change.
      await setPassword(deps, existing, deps.config.demoPassword, SEED_ORIGIN, "password_changed");
    }
  }
  const labsOwner = await ensureUser(deps, "labs@example.com", randomToken(18));
  await ensureServer(deps, demo, "demo", "Demo tools", DEMO_VERSIONS, upstreamFor);
  await ensureServer(deps, labsOwner, "labs", "Labs (not subscribed)", LABS_VERSIONS, upstreamFor);
  if (!already) {
    await deps.kv.set(seedMarkerKey(), { at: new Date(deps.clock.now()).toISOString() });
  }
  return { email, generatedPassword, seededNow: !already };
}
