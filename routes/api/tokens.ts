/**
 * API token routes (DESIGN 4). Listing, creating, reading and revoking need a dashboard session;
 * edit and rotate also accept `Authorization: Bearer <that very token>` (no cookie, no CSRF),
 * and `GET /api/tokens/self` answers a Bearer token with its own record.
 */
import { type Context, Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";
import { checkCsrf, loadSession, requireSession } from "../../lib/http/session_auth.ts";
import { HttpError } from "../../lib/http/errors.ts";
import { readJson, validateBody } from "../../lib/http/json_body.ts";
import { MAX_ALLOWLIST_ENTRIES } from "../../lib/net/ip_allowlist.ts";
import type { Actor } from "../../lib/tokens/access.ts";
import { authenticateBearer } from "../../lib/tokens/bearer.ts";
import { createToken, editToken, revokeToken, rotateToken } from "../../lib/tokens/lifecycle.ts";
import { getTokenView, listTokens } from "../../lib/tokens/query.ts";
import { tokenView, tokenWithSecret } from "../../lib/tokens/views.ts";
import { checkEditFields, MAX_SCOPES } from "../../lib/tokens/validate.ts";
import { body, originOf } from "./body.ts";

const allowedIps = {
  type: "string[]",
  optional: true,
  nullable: true,
  maxItems: MAX_ALLOWLIST_ENTRIES,
} as const;

const createSchema = {
  name: { type: "string", max: 1000 },
  server_ids: { type: "string[]", maxItems: MAX_SCOPES },
  expires_in_days: { type: "integer" },
  allowed_ips: allowedIps,
} as const;

const editSchema = {
  name: { type: "string", optional: true, max: 1000 },
  expires_in_days: { type: "integer", optional: true },
  allowed_ips: allowedIps,
} as const;

/** The Bearer token when an Authorization header is sent, else the session (with CSRF). */
async function bearerOrSession(c: Context<AppEnv>): Promise<Actor> {
  const deps = c.get("deps");
  const auth = c.req.header("authorization");
  if (auth !== undefined) {
    return { kind: "bearer", token: await authenticateBearer(deps, auth, c.get("clientIp")) };
  }
  if (!(await loadSession(c))) {
    throw new HttpError(
      "unauthorized",
      "Sign in first, or send Authorization: Bearer <this API token>",
    );
  }
  checkCsrf(c);
  return { kind: "session", userId: c.get("user").id };
}

const session = (c: Context<AppEnv>): Actor => ({ kind: "session", userId: c.get("user").id });

function parseLimit(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,4}$/.test(raw)) throw new RangeError("limit must be a whole number from 1 to 200");
  return Number(raw);
}

/** `/api/tokens*`. */
export function tokenRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

  r.get("/tokens", requireSession, async (c) => {
    const page = await listTokens(c.get("deps"), c.get("user").id, {
      limit: parseLimit(c.req.query("limit")),
      cursor: c.req.query("cursor"),
    });
    return c.json(page);
  });

  r.post("/tokens", requireSession, async (c) => {
    const deps = c.get("deps");
    const input = await body(c, createSchema);
    const { secret, record } = await createToken(deps, c.get("user").id, input, originOf(c));
    return c.json(await tokenWithSecret(deps.kv, record, secret), 201);
  });

  r.get("/tokens/self", async (c) => {
    const auth = c.req.header("authorization");
    if (auth === undefined) {
      throw new HttpError("unauthorized", "Send Authorization: Bearer <API token>");
    }
    const deps = c.get("deps");
    const token = await authenticateBearer(deps, auth, c.get("clientIp"));
    return c.json(await tokenView(deps.kv, token));
  });

  r.get("/tokens/:id", requireSession, async (c) => {
    return c.json(await getTokenView(c.get("deps"), session(c), c.req.param("id")));
  });

  r.patch("/tokens/:id", async (c) => {
    const actor = await bearerOrSession(c);
    const deps = c.get("deps");
    const raw = await readJson(c.req.raw, deps.config.maxBodyBytes);
    checkEditFields(raw);
    const input = validateBody(raw, editSchema);
    const record = await editToken(deps, actor, c.req.param("id"), input, originOf(c));
    return c.json(await tokenView(deps.kv, record));
  });

  r.post("/tokens/:id/rotate", async (c) => {
    const actor = await bearerOrSession(c);
    const deps = c.get("deps");
    const { secret, record } = await rotateToken(deps, actor, c.req.param("id"), originOf(c));
    return c.json(await tokenWithSecret(deps.kv, record, secret));
  });

  r.delete("/tokens/:id", requireSession, async (c) => {
    await revokeToken(c.get("deps"), c.get("user").id, c.req.param("id"), originOf(c));
    return c.body(null, 204);
  });

  return r;
}
