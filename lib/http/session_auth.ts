/**
 * Session-cookie authentication for the API and dashboard, with the CSRF rule: a
 * cookie-authenticated POST/PATCH/PUT/DELETE must carry `X-CSRF-Token` equal to the session's.
 */
import type { Context, MiddlewareHandler } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "./env.ts";
import { HttpError } from "./errors.ts";
import { getSession, SESSION_TTL_MS } from "../accounts/sessions.ts";
import { getUser } from "../accounts/users.ts";
import type { AppDeps } from "../context.ts";

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** The session cookie's name: `__Host-` prefixed on https. */
export const sessionCookieName = (deps: AppDeps) =>
  deps.config.platformUrl.protocol === "https:" ? "__Host-tg_session" : "tg_session";

/**
 * Sets the session cookie (HttpOnly, SameSite=Lax, Secure on https). The `__Host-` prefix is
 * already part of the name, so Hono's `prefix` option must not add it a second time.
 */
export function setSessionCookie(c: Context<AppEnv>, id: string): void {
  const deps = c.get("deps");
  const secure = deps.config.platformUrl.protocol === "https:";
  setCookie(c, sessionCookieName(deps), id, {
    httpOnly: true,
    sameSite: "Lax",
    secure,
    path: "/",
    maxAge: Math.floor(SESSION_TTL_MS / 1000),
  });
}

/** Clears the session cookie. */
export function clearSessionCookie(c: Context<AppEnv>): void {
  const deps = c.get("deps");
  const secure = deps.config.platformUrl.protocol === "https:";
  deleteCookie(c, sessionCookieName(deps), {
    path: "/",
    secure,
  });
}

/** Constant-time string comparison. */
export function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return d === 0;
}

/** Loads the session from the cookie into `user`/`session`; returns false when there is none. */
export async function loadSession(c: Context<AppEnv>): Promise<boolean> {
  const deps = c.get("deps");
  const raw = getCookie(c, sessionCookieName(deps));
  if (!raw) return false;
  const found = await getSession(deps, raw);
  if (!found) return false;
  const user = await getUser(deps.kv, found.session.user_id);
  if (!user) return false;
  c.set("user", user);
  c.set("session", found);
  return true;
}

/** Throws 403 unless an unsafe request carries the session's CSRF token. */
export function checkCsrf(c: Context<AppEnv>): void {
  if (!UNSAFE.has(c.req.method)) return;
  const sent = c.req.header("x-csrf-token") ?? "";
  if (!safeEqual(sent, c.get("session").session.csrf_token)) throw new HttpError("csrf_failed");
}

/** Middleware: 401 without a valid session, 403 on an unsafe request without the CSRF token. */
export const requireSession: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!(await loadSession(c))) {
    throw new HttpError("unauthorized", "Sign in first: no valid session cookie");
  }
  checkCsrf(c);
  await next();
};
