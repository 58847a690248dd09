/**
 * Forwarding one MCP request to a version's upstream (DESIGN 5.2–5.3): only the MCP transport
 * headers pass, the client's credentials never do (the gateway's identity assertion goes in their
 * place), and the answer's body is handed back as a stream, never buffered.
 */
import { HttpError } from "../http/errors.ts";

/** Request headers passed to the upstream as they are. */
const PASSED_REQUEST_HEADERS = ["accept", "content-type", "mcp-protocol-version", "last-event-id"];
/** Upstream answer headers passed back to the client (Mcp-Session-Id is mapped, not passed). */
const PASSED_RESPONSE_HEADERS = ["content-type", "cache-control", "mcp-protocol-version"];

/** One request to forward. */
export interface UpstreamCall {
  method: "POST" | "GET" | "DELETE";
  url: string;
  /** The client's request headers (filtered here). */
  headers: Headers;
  body: string | null;
  upstreamSessionId: string | null;
  /** The identity assertion, sent as `Authorization: Bearer <jwt>`. */
  assertion: string;
  timeoutMs: number;
}

/** The upstream's answer: status, passable headers, its session id, and the unread body. */
export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  sessionId: string | null;
  body: ReadableStream<Uint8Array> | null;
}

/**
 * Sends the call; 502 `upstream_unavailable` when the upstream cannot be reached, 504
 * `upstream_timeout` when its answer does not start within `timeoutMs`. A started answer (an SSE
 * stream, say) is not cut by the timeout.
 */
export async function callUpstream(call: UpstreamCall): Promise<UpstreamAnswer> {
  const headers = new Headers();
  for (const name of PASSED_REQUEST_HEADERS) {
    const v = call.headers.get(name);
    if (v !== null) headers.set(name, v);
  }
  headers.set("authorization", `Bearer ${call.assertion}`);
  if (call.upstreamSessionId !== null) headers.set("mcp-session-id", call.upstreamSessionId);
  const ac = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ac.abort();
  }, call.timeoutMs);
  let res: Response;
  try {
    res = await fetch(call.url, {
      method: call.method,
      headers,
      body: call.body,
      signal: ac.signal,
      redirect: "manual",
    });
  } catch {
    if (timedOut) {
      throw new HttpError(
        "upstream_timeout",
        `The tool server did not answer within ${call.timeoutMs} ms`,
      );
    }
    throw new HttpError("upstream_unavailable");
  } finally {
    clearTimeout(timer);
  }
  const out = new Headers();
  for (const name of PASSED_RESPONSE_HEADERS) {
    const v = res.headers.get(name);
    if (v !== null) out.set(name, v);
  }
  return {
    status: res.status,
    headers: out,
    sessionId: res.headers.get("mcp-session-id"),
    body: res.body,
  };
}
