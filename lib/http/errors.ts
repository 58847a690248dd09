/**
 * The one table that maps every error condition to its HTTP status, API code and, on the MCP
 * endpoint, its JSON-RPC code and message. Routes throw `HttpError(kind)`; the handlers here
 * turn it into a body.
 */

interface ErrorRow {
  status: number;
  /** JSON-RPC error code when the error is answered on an MCP endpoint. */
  rpc: number;
  /** JSON-RPC error message (SPEC 7 where it speaks). */
  rpcMessage: string;
  /** Default human sentence. */
  message: string;
}

/** Every error toolgate answers with, by kind. The kind is also the API's `error.code`. */
export const ERROR_TABLE = {
  invalid_json: {
    status: 400,
    rpc: -32700,
    rpcMessage: "Parse error",
    message: "The request body is not valid JSON",
  },
  invalid_request: {
    status: 400,
    rpc: -32600,
    rpcMessage: "Invalid Request",
    message: "The request is not valid",
  },
  unknown_field: {
    status: 400,
    rpc: -32602,
    rpcMessage: "Invalid params",
    message: "The request has a field that is not allowed",
  },
  unauthorized: {
    status: 401,
    rpc: -32001,
    rpcMessage: "Unauthorized",
    message: "Authentication is required",
  },
  payment_required: {
    status: 402,
    rpc: -32002,
    rpcMessage: "Payment Required",
    message: "An active subscription is required",
  },
  forbidden: { status: 403, rpc: -32003, rpcMessage: "Forbidden", message: "Not allowed" },
  ip_not_allowed: {
    status: 403,
    rpc: -32003,
    rpcMessage: "Forbidden",
    message: "Requests from this IP address are not allowed for this token",
  },
  csrf_failed: {
    status: 403,
    rpc: -32003,
    rpcMessage: "Forbidden",
    message: "Missing or wrong X-CSRF-Token header",
  },
  not_found: { status: 404, rpc: -32004, rpcMessage: "Not Found", message: "Not found" },
  version_not_live: {
    status: 404,
    rpc: -32004,
    rpcMessage: "Version not found",
    message: "The requested version is not live",
  },
  session_not_found: {
    status: 404,
    rpc: -32001,
    rpcMessage: "Session not found",
    message: "The MCP session is unknown or has ended; initialize a new one",
  },
  method_not_allowed: {
    status: 405,
    rpc: -32600,
    rpcMessage: "Method not allowed",
    message: "This method is not allowed here",
  },
  not_acceptable: {
    status: 406,
    rpc: -32600,
    rpcMessage: "Not Acceptable",
    message: "The Accept header rules out every answer this endpoint gives",
  },
  conflict: { status: 409, rpc: -32600, rpcMessage: "Conflict", message: "Conflict" },
  gone: { status: 410, rpc: -32600, rpcMessage: "Gone", message: "This no longer exists" },
  payload_too_large: {
    status: 413,
    rpc: -32600,
    rpcMessage: "Request too large",
    message: "The request body is too large",
  },
  unsupported_media_type: {
    status: 415,
    rpc: -32600,
    rpcMessage: "Unsupported Media Type",
    message: "Send the body as application/json",
  },
  rate_limited: {
    status: 429,
    rpc: -32000,
    rpcMessage: "Rate limit exceeded",
    message: "Too many requests",
  },
  upstream_unavailable: {
    status: 502,
    rpc: -32603,
    rpcMessage: "Upstream unavailable",
    message: "The tool server could not be reached",
  },
  auth_unavailable: {
    status: 503,
    rpc: -32603,
    rpcMessage: "Authorization server unavailable",
    message: "The authorization server is unavailable; try again shortly",
  },
  upstream_timeout: {
    status: 504,
    rpc: -32603,
    rpcMessage: "Upstream timeout",
    message: "The tool server did not answer in time",
  },
  internal: {
    status: 500,
    rpc: -32603,
    rpcMessage: "Internal error",
    message: "Something went wrong on our side",
  },
} as const satisfies Record<string, ErrorRow>;

/** A kind of error, a key of ERROR_TABLE. */
export type ErrorKind = keyof typeof ERROR_TABLE;

/** An error that knows how it is answered over HTTP. */
export class HttpError extends Error {
  override name = "HttpError";
  constructor(
    readonly kind: ErrorKind,
    message?: string,
    /** Extra JSON-RPC `error.data` (MCP) or API error fields. */
    readonly data?: Record<string, unknown>,
    /** Extra response headers (WWW-Authenticate, Retry-After…). */
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? ERROR_TABLE[kind].message);
  }
  /** The HTTP status of this error. */
  get status(): number {
    return ERROR_TABLE[this.kind].status;
  }
}

/** Turns anything thrown into an HttpError: RangeError/TypeError from lib are bad input. */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof RangeError) return new HttpError("invalid_request", err.message);
  return new HttpError("internal");
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };

/** The JSON API body: `{"error": {"code", "message", ...data}}`. */
export function apiErrorResponse(err: HttpError, extraHeaders?: HeadersInit): Response {
  const body = { error: { code: err.kind, message: err.message, ...err.data } };
  const headers = new Headers(extraHeaders);
  for (const [k, v] of Object.entries({ ...JSON_HEADERS, ...err.headers })) headers.set(k, v);
  return new Response(JSON.stringify(body), { status: err.status, headers });
}

/** The JSON-RPC 2.0 error body of SPEC 7: `{jsonrpc, error: {code, message, data?}, id: null}`. */
export function rpcErrorBody(err: HttpError, id: string | number | null = null): string {
  const row = ERROR_TABLE[err.kind];
  const error: Record<string, unknown> = { code: row.rpc, message: row.rpcMessage };
  if (err.data !== undefined) error.data = err.data;
  return JSON.stringify({ jsonrpc: "2.0", error, id });
}

/** A JSON-RPC error response for the MCP endpoint. */
export function rpcErrorResponse(err: HttpError, extraHeaders?: HeadersInit): Response {
  const headers = new Headers(extraHeaders);
  for (const [k, v] of Object.entries({ ...JSON_HEADERS, ...err.headers })) headers.set(k, v);
  return new Response(rpcErrorBody(err), { status: err.status, headers });
}
