/**
 * Example upstream MCP server ("demo") built on the official SDK, served over Streamable HTTP.
 *
 * Routing at `/mcp`:
 * - a request carrying a known `Mcp-Session-Id` goes to that session's stateful transport;
 * - an unknown `Mcp-Session-Id` gets 404 with JSON-RPC error -32001 "Session not found";
 * - a POST without a session id whose body holds `initialize` opens a new stateful session
 *   (session id = `crypto.randomUUID()`, returned in the `mcp-session-id` response header);
 * - any other POST without a session id is answered by a throw-away stateless server+transport,
 *   so a bare `tools/list` works without a prior initialize;
 * - GET / DELETE without a session id get 400 (nothing to stream or end).
 *
 * The SDK rejects a POST whose Accept header does not list both `application/json` and
 * `text/event-stream` (406); we normalise Accept on POST to list both before handing the request
 * to the transport. Responses are plain JSON (`enableJsonResponse`), so this is always safe.
 * @module
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { z } from "zod";

/** Options for {@linkcode startDemoUpstream}. */
export interface DemoUpstreamOptions {
  /** Semver reported as `serverInfo.version`; its major decides the tool set. */
  version: string;
  /** TCP port; 0 or absent picks an ephemeral port. */
  port?: number;
  /** Interface to bind; default "127.0.0.1". */
  hostname?: string;
  /** Aborting it closes the server like `close()`. */
  signal?: AbortSignal;
}

/** A running upstream: its MCP URL, port, and an idempotent `close()`. */
export interface RunningUpstream {
  /** `http://<host>:<port>/mcp` */
  url: string;
  /** The bound TCP port. */
  port: number;
  /** Ends every session and stops the HTTP server; resolves once nothing is left open. */
  close(): Promise<void>;
}

/** The MCP path the demo upstream serves. */
export const DEMO_MCP_PATH = "/mcp";

const ACCEPT_BOTH = "application/json, text/event-stream";

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** Builds the demo `McpServer` for `version`: echo and add, plus time from major 2. */
export function createDemoMcpServer(version: string): McpServer {
  const major = Number.parseInt(version, 10);
  if (!Number.isInteger(major) || major < 0) {
    throw new TypeError(`Cannot create demo server: invalid version "${version}"`);
  }
  const server = new McpServer({ name: "demo", version });
  server.registerTool("echo", {
    description: `Echo the text back (demo v${version})`,
    inputSchema: { text: z.string() },
  }, ({ text }: { text: string }) => ({ content: [{ type: "text", text }] }));
  server.registerTool(
    "add",
    {
      description: `Add two numbers (demo v${version})`,
      inputSchema: { a: z.number(), b: z.number() },
    },
    ({ a, b }: { a: number; b: number }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  if (major >= 2) {
    server.registerTool("time", {
      description: `Current time as an ISO 8601 string (demo v${version})`,
    }, () => ({ content: [{ type: "text", text: new Date().toISOString() }] }));
  }
  return server;
}

/** POST requests get an Accept header listing both types the SDK insists on. */
function normaliseAccept(req: Request): Request {
  if (req.method !== "POST") return req;
  const accept = req.headers.get("accept") ?? "";
  if (accept.includes("application/json") && accept.includes("text/event-stream")) return req;
  const headers = new Headers(req.headers);
  headers.set("accept", ACCEPT_BOTH);
  return new Request(req.url, { method: req.method, headers, body: req.body });
}

function isInitialize(body: unknown): boolean {
  const isInit = (m: unknown) =>
    typeof m === "object" && m !== null && (m as { method?: unknown }).method === "initialize";
  return Array.isArray(body) ? body.some(isInit) : isInit(body);
}

/** Starts the demo upstream MCP server over Streamable HTTP; prints nothing. */
export async function startDemoUpstream(opts: DemoUpstreamOptions): Promise<RunningUpstream> {
  const hostname = opts.hostname ?? "127.0.0.1";
  createDemoMcpServer(opts.version); // validate the version before binding
  type Session = { server: McpServer; transport: WebStandardStreamableHTTPServerTransport };
  const sessions = new Map<string, Session>();
  const transient = new Set<Session>();
  let closing = false;

  const closeSession = async (s: Session) => {
    try {
      await s.server.close(); // closes the transport too
    } catch {
      // already closed
    }
  };

  const handle = async (raw: Request): Promise<Response> => {
    const url = new URL(raw.url);
    if (url.pathname !== DEMO_MCP_PATH) return new Response("Not Found", { status: 404 });
    if (closing) return jsonRpcError(503, -32000, "Server is shutting down");
    const req = normaliseAccept(raw);

    const sid = req.headers.get("mcp-session-id");
    if (sid !== null) {
      const s = sessions.get(sid);
      if (!s) return jsonRpcError(404, -32001, "Session not found");
      return await s.transport.handleRequest(req);
    }
    if (req.method !== "POST") {
      if (req.method === "GET" || req.method === "DELETE") {
        return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
      }
      return new Response(
        JSON.stringify({
          jsonrpc: "2.0",
          error: { code: -32000, message: "Method not allowed." },
          id: null,
        }),
        {
          status: 405,
          headers: { "content-type": "application/json", allow: "GET, POST, DELETE" },
        },
      );
    }

    let body: unknown;
    try {
      body = JSON.parse(await req.text());
    } catch {
      return jsonRpcError(400, -32700, "Parse error: Invalid JSON");
    }

    const server = createDemoMcpServer(opts.version);
    if (isInitialize(body)) {
      const s: Session = {
        server,
        transport: new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => crypto.randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (id: string) => {
            sessions.set(id, s);
          },
        }),
      };
      s.transport.onclose = () => {
        if (s.transport.sessionId) sessions.delete(s.transport.sessionId);
      };
      await server.connect(s.transport);
      const res = await s.transport.handleRequest(req, { parsedBody: body });
      if (s.transport.sessionId === undefined) await closeSession(s); // initialize was rejected
      return res;
    }

    const s: Session = {
      server,
      transport: new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      }),
    };
    transient.add(s);
    try {
      await server.connect(s.transport);
      return await s.transport.handleRequest(req, { parsedBody: body });
    } finally {
      transient.delete(s);
      await closeSession(s);
    }
  };

  const ac = new AbortController();
  const { promise: listening, resolve: onListening } = Promise.withResolvers<Deno.NetAddr>();
  const httpServer = Deno.serve({
    port: opts.port ?? 0,
    hostname,
    signal: ac.signal,
    onListen: (addr) => onListening(addr as Deno.NetAddr),
    onError: () => jsonRpcError(500, -32603, "Internal error"),
  }, handle);
  const addr = await listening;

  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      opts.signal?.removeEventListener("abort", onAbort);
      // End open SSE streams first so the HTTP server's graceful shutdown does not wait on them.
      await Promise.all([...sessions.values(), ...transient].map(closeSession));
      sessions.clear();
      // Let Deno flush the end of the just-closed SSE bodies; aborting in the same tick resets
      // those connections ("error reading a body from connection" on the client).
      await new Promise((r) => setTimeout(r, 0));
      ac.abort();
      await httpServer.finished;
    })();
    return closed;
  };
  const onAbort = () => void close();
  if (opts.signal?.aborted) await close();
  else opts.signal?.addEventListener("abort", onAbort, { once: true });

  return {
    url: `http://${urlHostFor(hostname)}:${addr.port}${DEMO_MCP_PATH}`,
    port: addr.port,
    close,
  };
}

/** The host to put in a URL for a server bound to `hostname` (wildcards map to loopback). */
export function urlHostFor(hostname: string): string {
  if (hostname === "0.0.0.0") return "127.0.0.1";
  if (hostname === "::" || hostname === "[::]") return "[::1]";
  return hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
}
