/**
 * Upstream identity assertions (DESIGN 5.3): the client's token never reaches an upstream; the
 * gateway sends a short-lived ES256 JWT instead, saying who calls, with which credential kind,
 * for which server and version. The key pair is generated once and kept in KV (first instance
 * wins); the public half is published as a JWKS at `{PLATFORM_URL}/.well-known/jwks.json`.
 * A signed assertion is reused for most of its lifetime, so signing is not on every request.
 */
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from "jose";
import type { AppDeps } from "../context.ts";
import { identityKeyKey } from "../kv/keys.ts";
import type { Caller, CredentialKind } from "./credentials.ts";
import type { ServerRecord, VersionRecord } from "../servers/servers.ts";

/** Lifetime of an assertion, seconds. */
export const ASSERTION_TTL_S = 300;
/** An assertion is reused until this many seconds before it expires. */
const REUSE_MARGIN_S = 60;
const ALG = "ES256";

interface StoredKey {
  kid: string;
  private_jwk: JWK;
  public_jwk: JWK;
  created_at: string;
}

/** What an assertion states. */
export interface AssertionSubject {
  user_id: string;
  kind: CredentialKind;
  server_id: string;
  server_slug: string;
  version: string;
  /** The upstream URL the assertion is for (its `aud`). */
  audience: string;
}

/** Signs identity assertions for upstreams and publishes the verification key. */
interface Signed {
  jwt: string;
  /** `Bearer <jwt>`, built once: it is sent with every upstream request. */
  bearer: string;
  reuseUntil: number;
}

export class UpstreamIdentity {
  #key: Promise<{ kid: string; signer: CryptoKey; publicJwk: JWK }> | null = null;
  #cache = new Map<string, Signed>();
  /** The same assertions by caller and version record, so a hit builds no key string. */
  #byCaller = new WeakMap<Caller, WeakMap<VersionRecord, Signed>>();

  constructor(private deps: AppDeps) {}

  /** The JWKS document (`{keys: [...]}`) with the public signing key. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const { publicJwk } = await this.#loadKey();
    return { keys: [publicJwk] };
  }

  /**
   * The `Authorization` value (`Bearer <jwt>`) asserting `caller` calls `version` of `server`:
   * the hot path's form, cached by caller and version record.
   */
  authorizationFor(
    caller: Caller,
    server: ServerRecord,
    version: VersionRecord,
  ): string | Promise<string> {
    let byVersion = this.#byCaller.get(caller);
    if (!byVersion) this.#byCaller.set(caller, byVersion = new WeakMap());
    const hit = byVersion.get(version);
    if (hit && hit.reuseUntil > this.deps.clock.now()) return hit.bearer;
    const signed = this.#signed({
      user_id: caller.user_id,
      kind: caller.kind,
      server_id: server.id,
      server_slug: server.slug,
      version: version.version,
      audience: version.upstream_url,
    });
    const remember = (x: Signed) => {
      byVersion.set(version, x);
      return x.bearer;
    };
    return signed instanceof Promise ? signed.then(remember) : remember(signed);
  }

  /** A JWT for `s`, cached per user, server, version, kind and audience while fresh. */
  #signed(s: AssertionSubject): Signed | Promise<Signed> {
    const id = `${s.user_id} ${s.server_id} ${s.version} ${s.kind} ${s.audience}`;
    const now = this.deps.clock.now();
    const hit = this.#cache.get(id);
    if (hit && hit.reuseUntil > now) return hit;
    return this.#sign(s, now).then((jwt) => {
      if (this.#cache.size >= 10_000) this.#cache.delete(this.#cache.keys().next().value!);
      const signed = {
        jwt,
        bearer: `Bearer ${jwt}`,
        reuseUntil: now + (ASSERTION_TTL_S - REUSE_MARGIN_S) * 1000,
      };
      this.#cache.set(id, signed);
      return signed;
    });
  }

  async #sign(s: AssertionSubject, now: number): Promise<string> {
    const { kid, signer } = await this.#loadKey();
    const iat = Math.floor(now / 1000);
    return await new SignJWT({
      credential_kind: s.kind,
      server_id: s.server_id,
      server_slug: s.server_slug,
      version: s.version,
    })
      // No `typ` (optional, RFC 7519 5.1) and a short kid: the assertion rides on every upstream
      // request, and its bytes are paid on each one.
      .setProtectedHeader({ alg: ALG, kid })
      .setIssuer(this.deps.config.platformUrl.origin)
      .setSubject(s.user_id)
      .setAudience(s.audience)
      .setIssuedAt(iat)
      .setExpirationTime(iat + ASSERTION_TTL_S)
      .sign(signer);
  }

  #loadKey() {
    this.#key ??= this.#readOrCreateKey().catch((err) => {
      this.#key = null;
      throw err;
    });
    return this.#key;
  }

  async #readOrCreateKey() {
    const kv = this.deps.kv;
    let stored = (await kv.get<StoredKey>(identityKeyKey())).value;
    if (!stored) {
      const pair = await generateKeyPair(ALG, { extractable: true });
      const kid = shortKid();
      const candidate: StoredKey = {
        kid,
        private_jwk: { ...await exportJWK(pair.privateKey), kid, alg: ALG },
        public_jwk: { ...await exportJWK(pair.publicKey), kid, alg: ALG, use: "sig" },
        created_at: new Date(this.deps.clock.now()).toISOString(),
      };
      const res = await kv.atomic().check({ key: identityKeyKey(), versionstamp: null })
        .set(identityKeyKey(), candidate).commit();
      // Another instance may have stored its key first: everyone uses the stored one.
      stored = res.ok ? candidate : (await kv.get<StoredKey>(identityKeyKey())).value!;
    }
    const signer = await importJWK(stored.private_jwk, ALG) as CryptoKey;
    return { kid: stored.kid, signer, publicJwk: stored.public_jwk };
  }
}

/** A key id: 9 random bytes, base64url (12 chars; a JWKS holds one or two keys). */
function shortKid(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(9));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}
