/**
 * CORS for everything a server base URL answers: readable by browser MCP clients from any origin
 * (credentials are bearer tokens, never cookies, so `*` is safe).
 */

const EXPOSED =
  "X-MCP-Version, X-MCP-Latest-Version, Mcp-Session-Id, WWW-Authenticate, Retry-After";
const ALLOWED_HEADERS =
  "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID";

/** Adds the CORS answer headers to `res` and returns it. */
export function withCors(res: Response): Response {
  res.headers.set("access-control-allow-origin", "*");
  res.headers.set("access-control-expose-headers", EXPOSED);
  return res;
}

/** Adds the CORS answer headers to a plain header object and returns it. */
export function withCorsHeaders(headers: Record<string, string>): Record<string, string> {
  headers["access-control-allow-origin"] = "*";
  headers["access-control-expose-headers"] = EXPOSED;
  return headers;
}

/** The answer to a CORS preflight (`OPTIONS`). */
export function preflight(methods: string): Response {
  return withCors(
    new Response(null, {
      status: 204,
      headers: {
        "access-control-allow-methods": methods,
        "access-control-allow-headers": ALLOWED_HEADERS,
        "access-control-max-age": "86400",
      },
    }),
  );
}
