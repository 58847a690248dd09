/**
 * Sign-in with throttling: failures are counted per account and per IP in a 15-minute window;
 * each failure is answered more slowly, and too many lock further attempts out until the window
 * ends (429). Unknown accounts cost the same time as known ones.
 */
import type { AppDeps } from "../context.ts";
import { signInFailuresKey } from "../kv/keys.ts";
import { HttpError } from "../http/errors.ts";
import { dummyHash, verifyPassword } from "./passwords.ts";
import { getUserByEmail, type User } from "./users.ts";
import { recordAudit } from "../audit/log.ts";

/** Length of the failure-counting window. */
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** Failures per account within a window before sign-in is refused. */
export const MAX_FAILURES_PER_ACCOUNT = 10;
/** Failures per IP within a window before sign-in is refused. */
export const MAX_FAILURES_PER_IP = 50;

/** The delay added to a failed attempt after `failures` earlier failures. */
export const failureDelayMs = (failures: number) => Math.min(150 * failures, 2000);

/** Adds `delta` to a counter that expires after its window has passed; returns the new count. */
async function bump(kv: Deno.Kv, key: Deno.KvKey, delta: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const cur = await kv.get<number>(key);
    const next = Math.max(0, (cur.value ?? 0) + delta);
    const res = await kv.atomic().check(cur).set(key, next, {
      expireIn: 2 * FAILURE_WINDOW_MS,
    }).commit();
    if (res.ok) return next;
    await new Promise((r) => setTimeout(r, Math.random() * 5));
  }
  throw new HttpError("rate_limited", "Too many sign-in attempts at once; try again");
}

/**
 * Checks credentials; returns the user or throws 401/429.
 *
 * Each attempt is counted before the password is checked and released when it succeeds, so
 * parallel attempts cannot all slip under the limit by reading the same old count.
 */
export async function signIn(
  deps: AppDeps,
  email: string,
  password: string,
  ip: string | null,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  userAgent: string | null = null,
): Promise<User> {
  const now = deps.clock.now();
  const window = Math.floor(now / FAILURE_WINDOW_MS);
  const retryAfter = String(Math.ceil(((window + 1) * FAILURE_WINDOW_MS - now) / 1000));
  const subject = email.trim().toLowerCase().slice(0, 254);
  const keys = [signInFailuresKey("email", subject, window)];
  if (ip) keys.push(signInFailuresKey("ip", ip, window));
  const [byEmail, byIp = 0] = await Promise.all(keys.map((key) => bump(deps.kv, key, 1)));
  if (byEmail > MAX_FAILURES_PER_ACCOUNT || byIp > MAX_FAILURES_PER_IP) {
    await Promise.all(keys.map((key) => bump(deps.kv, key, -1)));
    throw new HttpError(
      "rate_limited",
      "Too many failed sign-in attempts; try again later",
      undefined,
      { "retry-after": retryAfter },
    );
  }
  const user = await getUserByEmail(deps.kv, email);
  // An unknown account costs what a known one costs at this deployment's hashing cost.
  const ok = await verifyPassword(
    password,
    user?.password_hash ?? dummyHash(deps.passwordIterations),
  );
  if (user && ok) {
    await Promise.all(keys.map((key) => bump(deps.kv, key, -1)));
    return user;
  }
  if (user) {
    await recordAudit(deps.kv, user.id, now, "sign_in_failed", { ip, user_agent: userAgent });
  }
  await sleep(failureDelayMs(Math.max(byEmail, byIp)));
  throw new HttpError("unauthorized", "Wrong email or password");
}
