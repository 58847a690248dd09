/** `GET /api/audit`: the signed-in user's security log. */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";
import { requireSession } from "../../lib/http/session_auth.ts";
import { listAudit } from "../../lib/audit/log.ts";

/** The security-log route. */
export function auditRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.get("/audit", requireSession, async (c) => {
    const limitRaw = c.req.query("limit");
    const limit = limitRaw === undefined ? 50 : Number(limitRaw);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
      throw new RangeError("limit must be a whole number from 1 to 200");
    }
    const page = await listAudit(c.get("deps").kv, c.get("user").id, {
      limit,
      cursor: c.req.query("cursor"),
    });
    return c.json(page);
  });
  return r;
}
