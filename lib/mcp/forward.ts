/**
 * Forwarding one MCP request to a version's upstream (DESIGN 5.2–5.3): only the MCP transport
 * headers pass, the client's credentials never do (the gateway's identity assertion goes in their
 * place), and the answer's body is handed back as a stream, never buffered (a small answer that
 * arrived whole is handed back as bytes). Sent with the gateway's keep-alive HTTP/1.1 client.
 */
import { HttpError } from "../http/errors.ts";
import type { Http1Client } from "./http1_client.ts";

/** Request headers passed to the upstream as they are. */
const PASSED_REQUEST_HEADERS = ["accept", "content-type", "mcp-protocol-version", "last-event-id"];
/** Upstream answer headers passed back to the client (Mcp-Session-Id is mapped, not passed). */
const PASSED_RESPONSE_HEADERS = ["content-type", "cache-control", "mcp-protocol-version"];

/** One request to forward. */
export interface UpstreamCall {
  method: "POST" | "GET" | "DELETE";
  url: URL;
  /** The client's request headers (filtered here). */
  headers: Headers;
  body: Uint8Array<ArrayBuffer> | null;
  upstreamSessionId: string | null;
  /** The identity assertion as an `Authorization` value (`Bearer <jwt>`). */
  authorization: string;
  timeoutMs: number;
}

/** The upstream's answer: status, passable headers, its session id, and the unread body. */
export interface UpstreamAnswer {
  status: number;
  /** The passed answer headers, lower-case names (a plain object the caller may add to). */
  headers: Record<string, string>;
  sessionId: string | null;
  body: ReadableStream<Uint8Array> | Uint8Array<ArrayBuffer> | null;
}

/**
 * Upstream deadlines. One shared sweep (every TICK_MS, running only while calls wait for their
 * answer) aborts the calls whose deadline passed, instead of a timer per request: a timeout fires
 * between `timeoutMs` and `timeoutMs + TICK_MS` after the call started.
 */
const TICK_MS = 100;
interface Waiting {
  deadline: number;
  /** Closes the call's connection (set once there is one). */
  cancel: (() => void) | null;
  /** Rejects the call's pending answer. */
  fail: (err: Error) => void;
  timedOut: boolean;
}
const waiting = new Set<Waiting>();
let sweeper: ReturnType<typeof setInterval> | undefined;

function sweep(): void {
  const now = Date.now();
  for (const w of waiting) {
    if (now >= w.deadline) {
      w.timedOut = true;
      waiting.delete(w);
      w.cancel?.();
      w.fail(new Error("upstream timeout"));
    }
  }
  if (waiting.size === 0) stopSweep();
}

function stopSweep(): void {
  if (sweeper !== undefined) clearInterval(sweeper);
  sweeper = undefined;
}

function unwatch(w: Waiting): void {
  if (waiting.delete(w) && waiting.size === 0) stopSweep();
}

/**
 * Sends the call; 502 `upstream_unavailable` when the upstream cannot be reached or answers
 * something that is not HTTP, 504 `upstream_timeout` when its answer does not start within
 * `timeoutMs`. A started answer (an SSE stream, say) is not cut by the timeout: the deadline is
 * dropped once the answer's head arrives.
 */
export async function callUpstream(
  client: Http1Client,
  call: UpstreamCall,
): Promise<UpstreamAnswer> {
  const src = call.headers;
  const headers: Record<string, string> = { "authorization": call.authorization };
  for (let i = 0; i < PASSED_REQUEST_HEADERS.length; i++) {
    const name = PASSED_REQUEST_HEADERS[i];
    const v = src.get(name);
    if (v !== null) headers[name] = v;
  }
  if (call.upstreamSessionId !== null) headers["mcp-session-id"] = call.upstreamSessionId;
  let answer;
  const w: Waiting = {
    deadline: Date.now() + call.timeoutMs,
    cancel: null,
    fail: () => {},
    timedOut: false,
  };
  try {
    answer = await new Promise<Awaited<ReturnType<Http1Client["request"]>>>((resolve, reject) => {
      w.fail = reject;
      waiting.add(w);
      sweeper ??= setInterval(sweep, Math.min(TICK_MS, Math.max(1, call.timeoutMs)));
      client.request(
        { method: call.method, url: call.url, headers, body: call.body },
        (cancel) => {
          w.cancel = cancel;
          if (w.timedOut) cancel();
        },
      ).then(resolve, reject);
    });
  } catch {
    if (w.timedOut) {
      throw new HttpError(
        "upstream_timeout",
        `The tool server did not answer within ${call.timeoutMs} ms`,
      );
    }
    throw new HttpError("upstream_unavailable");
  } finally {
    unwatch(w);
  }
  const got = answer.headers;
  const out: Record<string, string> = {};
  for (let i = 0; i < PASSED_RESPONSE_HEADERS.length; i++) {
    const name = PASSED_RESPONSE_HEADERS[i];
    const v = got.get(name);
    if (v !== undefined) out[name] = v;
  }
  return {
    status: answer.status,
    headers: out,
    sessionId: got.get("mcp-session-id") ?? null,
    body: answer.body,
  };
}
