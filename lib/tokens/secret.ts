/**
 * API token secrets.
 *
 * Format (48 ASCII characters, matches {@link SECRET_REGEX}):
 *
 * ```
 * svc_ <38 random base62 chars> <6 base62 chars checksum>
 * ```
 *
 * - base62 alphabet, in digit order: `0-9A-Za-z` (`0` = 0, `A` = 10, `a` = 36, `z` = 61).
 * - The 38 random characters come from `crypto.getRandomValues` with rejection sampling
 *   (unbiased, ~226 bits of entropy).
 * - The checksum is the CRC32 (IEEE 802.3, as in zlib/PNG) of the 38 random characters taken as
 *   ASCII bytes, written in base62, most significant digit first, left-padded with `0` to 6 chars.
 *
 * Secret scanners can match `\bsvc_[0-9A-Za-z]{44}\b` and verify the checksum offline to reject
 * look-alikes. Only the SHA-256 of a secret is stored ({@link hashSecret}); the first 12 chars
 * ({@link secretPrefix}) are shown in the dashboard.
 *
 * @module
 */
import { sha256Hex } from "./sha256.ts";

/** The literal prefix every secret starts with. */
export const SECRET_PREFIX = "svc_";

/** Total length of a secret, prefix included. */
export const SECRET_LENGTH = 48;

/** Anchored shape check for a secret (no `g` flag, so `test()` is stateless); no checksum. */
export const SECRET_REGEX = /^svc_[0-9A-Za-z]{44}$/;

/** The base62 alphabet in digit order. */
export const BASE62_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

const RANDOM_LENGTH = 38;
const CHECKSUM_LENGTH = 6;
const PREFIX_DISPLAY_LENGTH = 12;
// Largest multiple of 62 that fits in a byte: bytes >= 248 are rejected so `b % 62` is unbiased.
const REJECT_AT = 256 - (256 % 62);

const CRC_TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC32 (IEEE, poly 0xEDB88320, the zlib/PNG one) of `bytes`, as an unsigned 32-bit integer. */
export function crc32(bytes: Uint8Array): number {
  if (!(bytes instanceof Uint8Array)) throw new TypeError("crc32() expects a Uint8Array");
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Encodes a non-negative safe integer in base62, left-padded with "0" to exactly `width` chars. */
export function base62Encode(n: number, width: number): string {
  if (typeof n !== "number" || typeof width !== "number") {
    throw new TypeError("base62Encode() expects two numbers");
  }
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`Cannot base62-encode ${n}: not a non-negative safe integer`);
  }
  if (!Number.isSafeInteger(width) || width < 1) {
    throw new RangeError(`Cannot base62-encode to width ${width}: not a positive integer`);
  }
  let out = "";
  let rest = n;
  do {
    out = BASE62_ALPHABET[rest % 62] + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  if (out.length > width) {
    throw new RangeError(`Cannot base62-encode ${n} in ${width} chars: it needs ${out.length}`);
  }
  return out.padStart(width, "0");
}

/** CRC32 of an ASCII string's bytes (its char codes), without encoding it first. */
function crc32Ascii(text: string): number {
  let c = 0xffffffff;
  for (let i = 0; i < text.length; i++) c = CRC_TABLE[(c ^ text.charCodeAt(i)) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The 6-char checksum of the random part (base62 only, so ASCII). */
function checksumOf(randomPart: string): string {
  return base62Encode(crc32Ascii(randomPart), CHECKSUM_LENGTH);
}

function randomBase62(length: number): string {
  let out = "";
  const buf = new Uint8Array(64);
  while (out.length < length) {
    crypto.getRandomValues(buf);
    for (let i = 0; i < buf.length && out.length < length; i++) {
      if (buf[i] < REJECT_AT) out += BASE62_ALPHABET[buf[i] % 62];
    }
  }
  return out;
}

/** A fresh well-formed secret: `svc_` + 38 unbiased random base62 + 6 checksum (48 chars). */
export function generateSecret(): string {
  const randomPart = randomBase62(RANDOM_LENGTH);
  return SECRET_PREFIX + randomPart + checksumOf(randomPart);
}

/** True only for a string with the secret shape AND a matching checksum; never throws. */
export function isWellFormedSecret(s: unknown): s is string {
  if (typeof s !== "string" || !SECRET_REGEX.test(s)) return false;
  const randomPart = s.slice(SECRET_PREFIX.length, SECRET_PREFIX.length + RANDOM_LENGTH);
  return s.slice(SECRET_PREFIX.length + RANDOM_LENGTH) === checksumOf(randomPart);
}

/** The first 12 chars of a well-formed secret (shown in the dashboard); throws otherwise. */
export function secretPrefix(secret: string): string {
  if (typeof secret !== "string") throw new TypeError("secretPrefix() expects a string");
  if (!isWellFormedSecret(secret)) {
    throw new RangeError("Cannot take the prefix of a secret: it is not well-formed");
  }
  return secret.slice(0, PREFIX_DISPLAY_LENGTH);
}

/**
 * Lowercase hex SHA-256 of the secret's UTF-8 bytes (64 chars); the only form we store.
 * Synchronous and in plain JS (./sha256.ts) because it runs on every MCP request.
 */
export function hashSecret(secret: string): string {
  if (typeof secret !== "string") throw new TypeError("hashSecret() expects a string");
  return sha256Hex(secret);
}
