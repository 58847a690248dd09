/** The API-token credential (SPEC 5.2): `svc_…` secrets looked up through the TokenResolver. */
import { isWellFormedSecret, SECRET_LENGTH, SECRET_PREFIX } from "../tokens/secret.ts";
import type { TokenRecord } from "../tokens/store.ts";
import { failureMessage } from "../tokens/lookup.ts";
import type { TokenLookup, TokenResolver } from "../tokens/resolver.ts";
import { ipAllowed } from "../tokens/allowlist.ts";
import {
  type Caller,
  type CredentialVerifier,
  unauthorized,
  type Verification,
} from "./credentials.ts";

/** What this verifier needs of the token resolver. */
export type TokenSource =
  & Pick<TokenResolver, "resolve" | "markUsed">
  & Partial<Pick<TokenResolver, "peek">>;

/** Verifies `svc_` API tokens; callers carry the token's scopes and compiled allowlist. */
export class ApiTokenVerifier implements CredentialVerifier {
  /** The (immutable) verdict for each cached token record: no allocation per request. */
  #verdicts = new WeakMap<TokenRecord, Verification>();

  constructor(private tokens: TokenSource) {}

  /** API tokens are the bearer strings starting with `svc_`. */
  claims(bearer: string): boolean {
    return bearer.startsWith(SECRET_PREFIX);
  }

  /**
   * Resolves the secret; 401 with the reason when it is not an active token. Synchronous when the
   * resolver's memory answers (the hot path), a promise otherwise.
   */
  verify(bearer: string): Verification | Promise<Verification> {
    // Memory first: only well-formed secrets are ever cached, so a hit needs no format check.
    if (bearer.length === SECRET_LENGTH) {
      const known = this.tokens.peek?.(bearer);
      if (known !== undefined) return this.#verdict(known);
    }
    if (!isWellFormedSecret(bearer)) {
      return { ok: false, error: unauthorized(failureMessage("malformed")) };
    }
    return this.tokens.resolve(bearer).then((found) => this.#verdict(found));
  }

  #verdict(found: TokenLookup): Verification {
    if (!found.ok) return { ok: false, error: unauthorized(failureMessage(found.reason)) };
    const token = found.token;
    let verdict = this.#verdicts.get(token);
    if (!verdict) {
      const caller: Caller = {
        user_id: token.user_id,
        kind: "api_token",
        credential_id: token.id,
        server_ids: token.server_ids,
        ipAllowed: token.allowed_ips === null ? null : (ip) => ipAllowed(token, ip),
        noteUse: () => this.tokens.markUsed(token.id),
      };
      verdict = { ok: true, caller };
      this.#verdicts.set(token, verdict);
    }
    return verdict;
  }
}
