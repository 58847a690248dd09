/** Secret → token record or the reason it fails: the rule shared by the API and the MCP cache. */
import { hashSecret, isWellFormedSecret } from "./secret.ts";
import { getTokenByHash, type TokenRecord } from "./store.ts";

/** What a secret resolves to. */
export type TokenLookup =
  | { ok: true; token: TokenRecord }
  | { ok: false; reason: "malformed" | "unknown" | "expired" | "revoked" };

/** Why a lookup failed. */
export type TokenFailure = Exclude<TokenLookup, { ok: true }>["reason"];

/** Classifies a record at `now`: revoked wins over expired; expired when expires_at ≤ now. */
export function classifyToken(rec: TokenRecord | null, now: number): TokenLookup {
  if (!rec) return { ok: false, reason: "unknown" };
  if (rec.revoked_at) return { ok: false, reason: "revoked" };
  if (Date.parse(rec.expires_at) <= now) return { ok: false, reason: "expired" };
  return { ok: true, token: rec };
}

/** Looks a secret up straight in KV (no cache): format and checksum first, then two reads. */
export async function lookupSecret(kv: Deno.Kv, secret: string, now: number): Promise<TokenLookup> {
  if (!isWellFormedSecret(secret)) return { ok: false, reason: "malformed" };
  return classifyToken(await getTokenByHash(kv, hashSecret(secret)), now);
}

/** A sentence for a failed lookup, safe to show the caller (never contains the secret). */
export function failureMessage(reason: TokenFailure): string {
  switch (reason) {
    case "malformed":
      return "The API token is malformed: expected svc_ followed by 44 base62 characters";
    case "unknown":
      return "The API token is not valid (unknown, or replaced by a rotation)";
    case "expired":
      return "The API token has expired; create a new one";
    case "revoked":
      return "The API token was revoked; create a new one";
  }
}
