/**
 * Page plumbing shared by every dashboard route: rendering a page into the layout, security
 * headers, the signed-in guard and the checks that keep cross-site form posts out.
 */
import type { Context, MiddlewareHandler } from "hono";
import type { VNode } from "preact";
import { renderToString } from "preact-render-to-string";
import type { AppEnv } from "../../lib/http/env.ts";
import { HttpError } from "../../lib/http/errors.ts";
import { readBodyText } from "../../lib/http/json_body.ts";
import { loadSession, safeEqual } from "../../lib/http/session_auth.ts";
import { Layout, type NavSection } from "../../components/Layout.tsx";
import { assetUrl, hasAsset } from "./static.ts";

const BUNDLE = "build/islands.js";

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers of every HTML page: no caching (secrets never linger), CSP, no framing. */
export const pageHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (!c.res.headers.get("content-type")?.startsWith("text/html")) return;
  c.header("cache-control", "no-store");
  c.header("content-security-policy", CSP);
  c.header("x-content-type-options", "nosniff");
  c.header("x-frame-options", "DENY");
  if (!c.res.headers.has("referrer-policy")) c.header("referrer-policy", "same-origin");
};

/** Renders `body` inside the layout; the islands bundle is linked only when the page has islands. */
export function renderPage(
  c: Context<AppEnv>,
  opts: { title: string; active?: NavSection; status?: number },
  body: VNode,
): Response {
  const mainHtml = renderToString(body);
  const user = c.get("user");
  const session = c.get("session");
  const withIslands = mainHtml.includes("data-island=") && hasAsset(BUNDLE);
  const html = renderToString(
    <Layout
      title={opts.title}
      active={opts.active}
      user={user && session ? { email: user.email, csrf: session.session.csrf_token } : undefined}
      cssUrl={assetUrl("app.css")}
      scriptUrl={withIslands ? assetUrl(BUNDLE) : undefined}
      mainHtml={mainHtml}
    />,
  );
  // deno-lint-ignore no-explicit-any
  return c.html(`<!DOCTYPE html>${html}`, (opts.status ?? 200) as any);
}

/** A same-site path to go back to after sign-in; anything else becomes `/tokens`. */
export function safeNext(raw: string | undefined | null): string {
  if (!raw || !raw.startsWith("/") || raw.startsWith("//") || raw.startsWith("/\\")) {
    return "/tokens";
  }
  return raw;
}

/** Guard for dashboard pages: without a session, redirect to sign-in (and back afterwards). */
export const requirePage: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!(await loadSession(c))) {
    const url = new URL(c.req.url);
    return c.redirect(`/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
  }
  await next();
};

/**
 * Refuses a form post that another site made the browser send: by `Sec-Fetch-Site` when the
 * browser sends it, else by `Origin` (which must be the platform's or the request's own).
 */
export function assertSameOrigin(c: Context<AppEnv>): void {
  const site = c.req.header("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") {
    throw new HttpError("forbidden", "Cross-site form posts are refused");
  }
  const origin = c.req.header("origin");
  if (!origin) return;
  const own = [c.get("deps").config.platformUrl.origin, new URL(c.req.url).origin];
  if (!own.includes(origin)) throw new HttpError("forbidden", "Cross-site form posts are refused");
}

/** The fields of an urlencoded form post, after the same-origin check. */
export async function readForm(c: Context<AppEnv>): Promise<URLSearchParams> {
  assertSameOrigin(c);
  return new URLSearchParams(await readBodyText(c.req.raw, 16_384));
}

/** Throws 403 unless the form's `_csrf` field is the session's CSRF token. */
export function checkFormCsrf(c: Context<AppEnv>, form: URLSearchParams): void {
  if (!safeEqual(form.get("_csrf") ?? "", c.get("session").session.csrf_token)) {
    throw new HttpError(
      "csrf_failed",
      "The form's CSRF token is missing or stale; reload the page",
    );
  }
}

/** A user-facing message for an error thrown by lib (bad input, wrong password, throttling). */
export function formError(err: unknown): { status: number; message: string } {
  if (err instanceof HttpError) return { status: err.status, message: err.message };
  if (err instanceof RangeError || err instanceof TypeError) {
    return { status: 400, message: err.message };
  }
  throw err;
}
