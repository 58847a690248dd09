/**
 * The credential step of the MCP pipeline: a chain of verifiers, each owning one kind of bearer
 * credential (API tokens now, OAuth access tokens later). Adding a kind is one new module that
 * implements CredentialVerifier and one line where the chain is built.
 */
import { HttpError } from "../http/errors.ts";
import { bearerToken } from "../http/bearer_token.ts";

/** The kinds of bearer credential the MCP endpoint accepts. */
export type CredentialKind = "api_token" | "oauth";

/** Who is calling, as far as the rest of the pipeline cares. */
export interface Caller {
  user_id: string;
  kind: CredentialKind;
  /** The credential's stable id (token id; grant id for OAuth). */
  credential_id: string;
  /** Servers this credential may reach; null means every server the user may use. */
  server_ids: readonly string[] | null;
  /** True when the client address may use this credential (allowlist); null = no allowlist. */
  ipAllowed: ((ip: string | null) => boolean) | null;
  /** Notes that an admitted request used this credential (e.g. `last_used_at`, batched). */
  noteUse(): void;
}

/** The outcome of checking one bearer credential. */
export type Verification =
  | { ok: true; caller: Caller }
  /** `error` is an `unauthorized` (description says why) or `auth_unavailable` HttpError. */
  | { ok: false; error: HttpError };

/** What verifiers learn about the request besides the credential. */
export interface VerifyContext {
  /** The server base URL the request is for (OAuth audience checks, RFC 8707). */
  resource: string;
}

/** One kind of bearer credential. */
export interface CredentialVerifier {
  /** True when `bearer` looks like this verifier's kind (cheap, no I/O). */
  claims(bearer: string): boolean;
  /** Checks the credential (synchronously when memory can answer). */
  verify(bearer: string, ctx: VerifyContext): Verification | Promise<Verification>;
}

/** A 401 whose description says why. */
export const unauthorized = (description: string) =>
  new HttpError("unauthorized", description, { error: "unauthorized", description });

/**
 * Runs the chain on an Authorization header: the first verifier that claims the token decides.
 * Synchronous when the verifier is.
 */
export function verifyAuthorization(
  verifiers: readonly CredentialVerifier[],
  header: string | null,
  ctx: VerifyContext,
): Verification | Promise<Verification> {
  const token = header === null ? null : bearerToken(header);
  if (token === null) {
    const missing = header === null || header.trim() === "";
    return {
      ok: false,
      error: unauthorized(
        missing ? "Missing Authorization header" : "Authorization must be a Bearer token",
      ),
    };
  }
  for (let i = 0; i < verifiers.length; i++) {
    if (verifiers[i].claims(token)) return verifiers[i].verify(token, ctx);
  }
  return { ok: false, error: unauthorized("The bearer token is not recognised") };
}
