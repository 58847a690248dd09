/** Route helper: read and validate a JSON body against a schema in one call. */
import type { Context } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";
import { type FieldRule, type Parsed, readJson, validateBody } from "../../lib/http/json_body.ts";
import type { RequestOrigin } from "../../lib/audit/log.ts";

/** The validated body of this request. */
export async function body<S extends Record<string, FieldRule>>(
  c: Context<AppEnv>,
  schema: S,
  unknownMessage?: (field: string) => string | undefined,
): Promise<Parsed<S>> {
  const raw = await readJson(c.req.raw, c.get("deps").config.maxBodyBytes);
  return validateBody(raw, schema, unknownMessage);
}

/** Where this request came from, for the security log. */
export const originOf = (c: Context<AppEnv>): RequestOrigin => ({
  ip: c.get("clientIp"),
  user_agent: c.req.header("user-agent") ?? null,
});
