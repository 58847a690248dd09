/** Password hashing with PBKDF2-SHA256 (WebCrypto); the stored string records its parameters. */

/** The production iteration count (OWASP 2023: ≥ 600 000 for PBKDF2-SHA256). */
export const PASSWORD_ITERATIONS = 600_000;

const enc = new TextEncoder();
const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));
const unb64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", enc.encode(password), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as BufferSource, iterations },
    key,
    256,
  );
  return new Uint8Array(bits);
}

/** Hashes a password as `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`. */
export async function hashPassword(
  password: string,
  iterations = PASSWORD_ITERATIONS,
): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, iterations);
  return `pbkdf2-sha256$${iterations}$${b64(salt)}$${b64(hash)}`;
}

/** Checks a password against a stored hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [alg, iter, salt, hash] = stored.split("$");
  if (alg !== "pbkdf2-sha256" || !iter || !salt || !hash) return false;
  const expected = unb64(hash);
  const got = await derive(password, unb64(salt), Number(iter));
  let diff = expected.length ^ got.length;
  for (let i = 0; i < expected.length; i++) diff |= expected[i] ^ (got[i] ?? 0);
  return diff === 0;
}

/** A dummy hash to spend the same time on unknown accounts as on known ones. */
export const DUMMY_HASH = dummyHash(PASSWORD_ITERATIONS);

/** A dummy hash that costs what a real hash with `iterations` costs to verify. */
export function dummyHash(iterations: number): string {
  return `pbkdf2-sha256$${iterations}$AAAAAAAAAAAAAAAAAAAAAA==$` +
    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
}

/** Refuses passwords that are too short or too long (RangeError). */
export function checkPasswordStrength(password: string): void {
  if ([...password].length < 8) throw new RangeError("Password must be at least 8 characters");
  if (password.length > 256) throw new RangeError("Password must be at most 256 characters");
}
