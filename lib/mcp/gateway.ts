/**
 * MCP dispatch (SPEC 4.1, 7, 9; DESIGN 1, 3–6): everything a server base URL answers. For MCP
 * requests: admission (auth → allowlist → scope → subscription → rate limit), then the MCP layer
 * (session lock or version resolution → forward to the version's upstream), every answer of the
 * MCP layer carrying `X-MCP-Version` and `X-MCP-Latest-Version`. Errors are JSON-RPC bodies, never
 * a stack trace.
 */
import type { AppDeps } from "../context.ts";
import { HttpError, rpcErrorResponse, toHttpError } from "../http/errors.ts";
import { clientIp } from "../http/client_ip.ts";
import type { ServerRecord, VersionRecord } from "../servers/servers.ts";
import {
  describePattern,
  latestVersion,
  type VersionRoute,
  versionRoute,
} from "./version_route.ts";
import { admit } from "./admission.ts";
import { ApiTokenVerifier } from "./api_token_verifier.ts";
import type { CredentialVerifier } from "./credentials.ts";
import { preflight, withCors, withCorsHeaders } from "./cors.ts";
import { callUpstream } from "./forward.ts";
import { Http1Client } from "./http1_client.ts";
import { UpstreamIdentity } from "./identity.ts";
import { readRpcBody } from "./jsonrpc_body.ts";
import { RateLimiter } from "./rate_limiter.ts";
import { protectedResourceMetadata } from "./resource_metadata.ts";
import { ServerCache } from "./server_cache.ts";
import { type McpSession, type SessionOptions, SessionStore } from "./sessions.ts";
import { SubscriptionCache } from "./subscription_cache.ts";
import { type McpTarget, mcpTarget } from "./target.ts";
import { TokenResolver } from "../tokens/resolver.ts";

/** Tuning knobs, for tests and the bench. */
export interface GatewayOptions {
  /** Credential verifiers in order (default: API tokens). */
  verifiers?: CredentialVerifier[];
  /** Rate-limit flush interval, ms (default 100). */
  rateFlushMs?: number;
  sessions?: Partial<SessionOptions>;
}

const MCP_METHODS = "GET, POST, DELETE, OPTIONS";
const READ_METHODS = "GET, OPTIONS";
const MAX_TARGETS = 4096;
const JSON_TYPE = { "content-type": "application/json; charset=utf-8" };

type VersionHeaders = Record<string, string>;

/** The MCP face of toolgate; `handle()` answers the requests that are MCP's. */
export class McpGateway {
  readonly servers: ServerCache;
  readonly subscriptions: SubscriptionCache;
  readonly sessions: SessionStore;
  readonly limiter: RateLimiter;
  readonly identity: UpstreamIdentity;
  readonly verifiers: readonly CredentialVerifier[];
  #tokens: TokenResolver;
  #upstream = new Http1Client();
  #targets = new Map<string, Map<string, McpTarget | null>>();
  #targetCount = 0;

  constructor(private deps: AppDeps, opts: GatewayOptions = {}) {
    this.servers = new ServerCache(deps);
    this.subscriptions = new SubscriptionCache(deps);
    this.sessions = new SessionStore(deps, opts.sessions);
    this.limiter = new RateLimiter(deps.kv, deps.clock, opts.rateFlushMs);
    this.identity = new UpstreamIdentity(deps);
    this.#tokens = new TokenResolver(deps);
    this.#tokens.start();
    this.verifiers = opts.verifiers ?? [new ApiTokenVerifier(this.#tokens)];
  }

  /**
   * Answers `req` when it is MCP's (base URLs, path-aware metadata, JWKS); null otherwise.
   * `remote` is the socket's peer address (absent for in-process requests).
   */
  handle(req: Request, remote?: string): Promise<Response> | null {
    const { host, pathname } = hostAndPath(req);
    const target = this.#target(host, pathname);
    if (target === null) return null;
    if (target.kind === "mcp" && req.method !== "OPTIONS") return this.#mcp(req, target, remote);
    return this.#answer(req, target).catch((err) => this.#fail(req, err)).then(withCors);
  }

  /**
   * `mcpTarget` memoised by Host header and path: a client keeps calling the same URL, and the
   * answer depends on nothing else. Bounded: cleared when it holds MAX_TARGETS answers.
   */
  #target(host: string, pathname: string): McpTarget | null {
    let byPath = this.#targets.get(host);
    if (byPath !== undefined) {
      const hit = byPath.get(pathname);
      if (hit !== undefined) return hit;
    }
    const target = mcpTarget(this.deps.config.platformUrl, host, pathname);
    if (++this.#targetCount > MAX_TARGETS) {
      this.#targets.clear();
      this.#targetCount = 1;
      byPath = undefined;
    }
    if (byPath === undefined) this.#targets.set(host, byPath = new Map());
    byPath.set(pathname, target);
    return target;
  }

  /** Flushes counters and stops timers (the KV stays open). */
  async close(): Promise<void> {
    this.limiter.stop();
    await this.limiter.flush();
    this.#tokens.stop();
    await this.#tokens.flush();
    this.#upstream.close();
  }

  /** Everything but the MCP requests proper: preflights, metadata, JWKS. */
  #answer(req: Request, target: McpTarget): Promise<Response> {
    if (target.kind === "mcp") return Promise.resolve(preflight(MCP_METHODS));
    if (req.method === "OPTIONS") return Promise.resolve(preflight(READ_METHODS));
    if (req.method !== "GET" && req.method !== "HEAD") {
      throw new HttpError("method_not_allowed", undefined, undefined, { allow: READ_METHODS });
    }
    return target.kind === "jwks" ? this.#jwks() : this.#metadata(target.slug, target.resource);
  }

  async #jwks(): Promise<Response> {
    return new Response(JSON.stringify(await this.identity.jwks()), {
      headers: { ...JSON_TYPE, "cache-control": "public, max-age=300" },
    });
  }

  async #metadata(slug: string, resource: string): Promise<Response> {
    await this.#server(slug);
    const doc = protectedResourceMetadata(resource, this.deps.config.authorizationServers);
    return new Response(JSON.stringify(doc), {
      headers: { ...JSON_TYPE, "cache-control": "public, max-age=300" },
    });
  }

  async #server(slug: string): Promise<ServerRecord> {
    const server = await this.servers.bySlug(slug);
    if (!server) throw new HttpError("not_found", `No server "${slug}"`);
    return server;
  }

  /**
   * One MCP request, start to end, in a single async frame: every step whose answer is in memory
   * (server, token, subscription, assertion) runs synchronously, and only a cache miss awaits.
   * The answer (error or not) carries the CORS headers.
   */
  async #mcp(
    req: Request,
    target: Extract<McpTarget, { kind: "mcp" }>,
    remote: string | undefined,
  ): Promise<Response> {
    // Set once the request reaches the MCP layer: version headers for every answer from there on.
    let headers: VersionHeaders | undefined;
    try {
      const method = req.method;
      if (method !== "POST" && method !== "GET" && method !== "DELETE") {
        throw new HttpError("method_not_allowed", undefined, undefined, { allow: MCP_METHODS });
      }
      let found = this.servers.bySlug(target.slug);
      if (found instanceof Promise) found = await found;
      if (!found) throw new HttpError("not_found", `No server "${target.slug}"`);
      const server = found;
      const route = versionRoute(server, target.versionPath);
      const pattern = route.pattern;
      if (!pattern) {
        throw new HttpError(
          "not_found",
          `No MCP endpoint at "${target.versionPath}": use /, /v<major>, /v<major>.<minor> or /v<major>.<minor>.<patch>`,
        );
      }
      const trustProxy = this.deps.config.trustProxy;
      let caller = admit(this, {
        authorization: req.headers.get("authorization"),
        // Only called when the credential has an IP allowlist.
        clientIp: () => clientIp(req, remote, trustProxy),
        server,
        base: target.base,
      });
      if (caller instanceof Promise) caller = await caller;
      // From here on the request has reached the MCP layer.
      const latest = latestVersion(server)?.version;
      headers = latest ? { "x-mcp-latest-version": latest } : {};

      const sessionId = req.headers.get("mcp-session-id");
      let session: McpSession | null = null;
      let version: VersionRecord;
      if (sessionId !== null) {
        session = await this.sessions.find(sessionId);
        const locked = session && session.user_id === caller.user_id &&
            session.server_id === server.id
          ? server.versions.find((v) => v.version === session!.version)
          : undefined;
        if (!locked) {
          const fresh = route.version?.version;
          if (fresh) headers["x-mcp-version"] = fresh;
          throw new HttpError("session_not_found");
        }
        version = locked;
      } else {
        version = this.#resolved(server, route, headers);
      }
      headers["x-mcp-version"] = version.version;

      const body = method === "POST" ? await readRpcBody(req, this.deps.config.maxBodyBytes) : null;
      if (method === "DELETE" && session?.upstream_session_id === null) {
        await this.sessions.end(session.id);
        return new Response(null, { status: 200, headers: withCorsHeaders(headers) });
      }
      let authorization = this.identity.authorizationFor(caller, server, version);
      if (typeof authorization !== "string") authorization = await authorization;
      let answer;
      try {
        answer = await callUpstream(this.#upstream, {
          method,
          url: upstreamUrl(version),
          headers: req.headers,
          body: body?.bytes ?? null,
          upstreamSessionId: session?.upstream_session_id ?? null,
          authorization,
          timeoutMs: this.deps.config.upstreamTimeoutMs,
        });
      } finally {
        if (method === "DELETE" && session) await this.sessions.end(session.id);
      }
      if (session && answer.status === 404 && method !== "DELETE") {
        // The upstream lost its session: end ours so the client initializes again.
        if (answer.body instanceof ReadableStream) await answer.body.cancel();
        await this.sessions.end(session.id);
        throw new HttpError("session_not_found");
      }
      const out = answer.headers;
      for (const k in headers) out[k] = headers[k];
      if (body?.initialize && !session && answer.status >= 200 && answer.status < 300) {
        const created = await this.sessions.create({
          user_id: caller.user_id,
          credential_kind: caller.kind,
          server_id: server.id,
          version: version.version,
          upstream_session_id: answer.sessionId,
        });
        out["mcp-session-id"] = created.id;
      }
      return new Response(answer.body, { status: answer.status, headers: withCorsHeaders(out) });
    } catch (err) {
      return withCors(this.#fail(req, err, headers));
    }
  }

  /** The version a route resolves to; 404 `version_not_live` when none is live. */
  #resolved(server: ServerRecord, route: VersionRoute, headers: VersionHeaders): VersionRecord {
    if (route.version === null) {
      const latest = headers["x-mcp-latest-version"] ?? null;
      throw new HttpError(
        "version_not_live",
        `No live version of "${server.slug}" matches ${describePattern(route.pattern!)}`,
        { error: "version_not_live", latest_version: latest },
      );
    }
    return route.version;
  }

  /**
   * The JSON-RPC error answer for anything thrown. Rows SPEC 7 leaves open get
   * `data: {error, description}`; the scope 403 keeps SPEC's "no data".
   */
  #fail(req: Request, err: unknown, headers?: VersionHeaders): Response {
    let http = toHttpError(err);
    if (http.kind === "internal") {
      const path = new URL(req.url).pathname;
      this.deps.log(`[error] MCP ${req.method} ${path}: ${err instanceof Error ? err.stack : err}`);
    }
    if (http.data === undefined && http.kind !== "forbidden") {
      const data = { error: http.kind, description: http.message };
      http = new HttpError(http.kind, http.message, data, http.headers);
    }
    return rpcErrorResponse(http, headers);
  }
}

/** The Host header (or the URL's host) and the path of a request, without a full URL parse. */
function hostAndPath(req: Request): { host: string; pathname: string } {
  const url = req.url;
  const start = url.indexOf("//") + 2;
  let end = url.indexOf("/", start);
  if (end === -1) end = url.length;
  let stop = url.indexOf("?", end);
  if (stop === -1) stop = url.length;
  const hash = url.indexOf("#", end);
  if (hash !== -1 && hash < stop) stop = hash;
  return {
    host: req.headers.get("host") ?? url.slice(start, end),
    pathname: end === url.length ? "/" : url.slice(end, stop),
  };
}

const upstreamUrls = new WeakMap<VersionRecord, URL>();

/** A version's upstream URL, parsed once per version record. */
function upstreamUrl(version: VersionRecord): URL {
  let url = upstreamUrls.get(version);
  if (!url) upstreamUrls.set(version, url = new URL(version.upstream_url));
  return url;
}

const gateways = new WeakMap<AppDeps, McpGateway>();

/** The one gateway of a deps object, created on first use. */
export function gatewayFor(deps: AppDeps): McpGateway {
  let g = gateways.get(deps);
  if (!g) {
    g = new McpGateway(deps);
    gateways.set(deps, g);
  }
  return g;
}

/** Closes the gateway of `deps` if one was created (flushes counters, stops timers). */
export async function closeGatewayFor(deps: AppDeps): Promise<void> {
  await gateways.get(deps)?.close();
}
