/**
 * Sign-in with throttling: failures are counted per account and per IP in a 15-minute window;
 * each failure is answered more slowly, and too many lock further attempts out until the window
 * ends (429). Unknown accounts cost the same time as known ones.
 */
import type { AppDeps } from "../context.ts";
import { signInFailuresKey } from "../kv/keys.ts";
import { HttpError } from "../http/errors.ts";
import { DUMMY_HASH, verifyPassword } from "./passwords.ts";
import { getUserByEmail, type User } from "./users.ts";

/** Length of the failure-counting window. */
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;
/** Failures per account within a window before sign-in is refused. */
export const MAX_FAILURES_PER_ACCOUNT = 10;
/** Failures per IP within a window before sign-in is refused. */
export const MAX_FAILURES_PER_IP = 50;

/** The delay added to a failed attempt after `failures` earlier failures. */
export const failureDelayMs = (failures: number) => Math.min(150 * failures, 2000);

/** Adds one failure to a counter that expires after its window has passed. */
async function countFailure(kv: Deno.Kv, key: Deno.KvKey): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const cur = await kv.get<number>(key);
    const res = await kv.atomic().check(cur).set(key, (cur.value ?? 0) + 1, {
      expireIn: 2 * FAILURE_WINDOW_MS,
    }).commit();
    if (res.ok) return;
  }
}

/** Checks credentials; returns the user or throws 401/429. */
export async function signIn(
  deps: AppDeps,
  email: string,
  password: string,
  ip: string | null,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<User> {
  const now = deps.clock.now();
  const window = Math.floor(now / FAILURE_WINDOW_MS);
  const retryAfter = String(Math.ceil(((window + 1) * FAILURE_WINDOW_MS - now) / 1000));
  const subject = email.trim().toLowerCase().slice(0, 254);
  const keys = [signInFailuresKey("email", subject, window)];
  if (ip) keys.push(signInFailuresKey("ip", ip, window));
  const counts = (await deps.kv.getMany<number[]>(keys)).map((e) => e.value ?? 0);
  const [byEmail, byIp = 0] = counts;
  if (byEmail >= MAX_FAILURES_PER_ACCOUNT || byIp >= MAX_FAILURES_PER_IP) {
    throw new HttpError(
      "rate_limited",
      "Too many failed sign-in attempts; try again later",
      undefined,
      { "retry-after": retryAfter },
    );
  }
  const user = await getUserByEmail(deps.kv, email);
  const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
  if (user && ok) return user;

  await Promise.all(keys.map((key) => countFailure(deps.kv, key)));
  await sleep(failureDelayMs(Math.max(byEmail, byIp) + 1));
  throw new HttpError("unauthorized", "Wrong email or password");
}
