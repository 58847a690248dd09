/**
 * Token IP allowlists: validation/normalisation of user input, and a precompiled matcher for the
 * request hot path. Entries are IPv4 or IPv6 addresses or CIDR ranges; IPv4-mapped IPv6
 * (`::ffff:1.2.3.4`) is treated as the IPv4 address everywhere, so an IPv6 rule such as `::/0`
 * never matches an IPv4 client (allow everything with `0.0.0.0/0` plus `::/0`), and a mapped range
 * `::ffff:a.b.c.d/(96+n)` is stored as `a.b.c.d/n`.
 *
 * @module
 */
import ipaddr from "ipaddr.js";

/** Maximum number of entries accepted by {@link normalizeAllowlist}. */
export const MAX_ALLOWLIST_ENTRIES = 100;

type V4 = { v: 4; n: number };
type V6 = { v: 6; words: Uint32Array };
type Addr = V4 | V6;

const V4_OCTET = "(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
// Strict dotted quad: no leading zeros, no hex/octal/short forms (ipaddr.js accepts those).
const V4_RE = new RegExp(`^${V4_OCTET}(?:\\.${V4_OCTET}){3}$`);
const V4_TAIL_RE = new RegExp(`:${V4_OCTET}(?:\\.${V4_OCTET}){3}$`);
const PREFIX_RE = /^(?:0|[1-9][0-9]{0,2})$/;

function parseV4(s: string): V4 | null {
  if (!V4_RE.test(s)) return null;
  const [a, b, c, d] = s.split(".").map(Number);
  return { v: 4, n: ((a << 24) | (b << 16) | (c << 8) | d) >>> 0 };
}

/** Parses a bare address (no brackets, zone, port or prefix); mapped IPv6 becomes IPv4. */
function parseAddr(s: string): Addr | null {
  if (!s.includes(":")) return parseV4(s);
  if (s.includes("%")) return null;
  // An embedded dotted quad must be strict too (ipaddr.js would take "::ffff:01.2.3.0x4").
  if (s.includes(".") && !V4_TAIL_RE.test(s)) return null;
  if (!ipaddr.IPv6.isValid(s)) return null;
  const addr = ipaddr.IPv6.parse(s);
  if (addr.isIPv4MappedAddress()) {
    const [a, b, c, d] = addr.toIPv4Address().octets;
    return { v: 4, n: ((a << 24) | (b << 16) | (c << 8) | d) >>> 0 };
  }
  const p = addr.parts;
  const words = new Uint32Array(4);
  for (let i = 0; i < 4; i++) words[i] = ((p[2 * i] << 16) | p[2 * i + 1]) >>> 0;
  return { v: 6, words };
}

function formatAddr(a: Addr): string {
  if (a.v === 4) {
    return [a.n >>> 24, (a.n >>> 16) & 0xff, (a.n >>> 8) & 0xff, a.n & 0xff].join(".");
  }
  const parts: number[] = [];
  for (const w of a.words) parts.push(w >>> 16, w & 0xffff);
  return new ipaddr.IPv6(parts).toString();
}

/** Mask with the top `bits` (0..32) bits set, as an unsigned 32-bit integer. */
function mask32(bits: number): number {
  return bits <= 0 ? 0 : bits >= 32 ? 0xffffffff : (0xffffffff << (32 - bits)) >>> 0;
}

type Rule = { addr: Addr; bits: number };

/** Parses "addr" or "addr/len"; masks host bits; mapped ::ffff:a.b.c.d/(96+n) becomes a.b.c.d/n. */
function parseRule(entry: string): Rule | null {
  const slash = entry.indexOf("/");
  const addrText = slash === -1 ? entry : entry.slice(0, slash);
  const addr = parseAddr(addrText);
  if (!addr) return null;
  let bits: number;
  if (slash === -1) {
    bits = addr.v === 4 ? 32 : 128;
  } else {
    const prefixText = entry.slice(slash + 1);
    if (!PREFIX_RE.test(prefixText)) return null;
    bits = Number(prefixText);
    // A mapped address in the entry means the prefix counts the 96-bit ::ffff: part.
    const mapped = addr.v === 4 && addrText.includes(":");
    if (mapped) {
      if (bits < 96 || bits > 128) return null;
      bits -= 96;
    }
    if (bits > (addr.v === 4 ? 32 : 128)) return null;
  }
  if (addr.v === 4) return { addr: { v: 4, n: (addr.n & mask32(bits)) >>> 0 }, bits };
  const words = new Uint32Array(4);
  for (let i = 0; i < 4; i++) words[i] = (addr.words[i] & mask32(bits - 32 * i)) >>> 0;
  return { addr: { v: 6, words }, bits };
}

function formatRule(r: Rule): string {
  const full = r.addr.v === 4 ? 32 : 128;
  return r.bits === full ? formatAddr(r.addr) : `${formatAddr(r.addr)}/${r.bits}`;
}

/**
 * Validates and canonicalises an allowlist: null/undefined/[] → null (no allowlist); otherwise a
 * deduplicated list (input order kept) of canonical entries: IPv4 dotted quad, RFC 5952 IPv6,
 * mapped IPv6 as IPv4, CIDR host bits masked off, full-length prefixes (/32, /128) as the bare
 * address. Entries are trimmed. Throws TypeError for a non-array or non-string entry, RangeError
 * for more than 100 entries or an entry that is not an IP address or CIDR range.
 */
export function normalizeAllowlist(input: unknown): string[] | null {
  if (input === null || input === undefined) return null;
  if (!Array.isArray(input)) {
    throw new TypeError("Invalid IP allowlist: expected an array of strings or null");
  }
  if (input.length > MAX_ALLOWLIST_ENTRIES) {
    throw new RangeError(
      `Invalid IP allowlist: ${input.length} entries, at most ${MAX_ALLOWLIST_ENTRIES} allowed`,
    );
  }
  if (input.length === 0) return null;
  const out = new Set<string>();
  for (const entry of input) {
    if (typeof entry !== "string") {
      throw new TypeError(`Invalid IP allowlist entry: expected a string, got ${typeof entry}`);
    }
    const rule = parseRule(entry.trim());
    if (!rule) throw new RangeError(`Invalid IP address or CIDR range: ${JSON.stringify(entry)}`);
    out.add(formatRule(rule));
  }
  return [...out];
}

/**
 * Precompiles an allowlist (normalised or not) into a matcher: true iff `ip` (IPv4, IPv6,
 * bracketed, zoned or IPv4-mapped, see {@link parseClientIp}) falls in some entry;
 * garbage → false.
 * An empty list matches nothing. Throws like {@link normalizeAllowlist} for bad entries.
 */
export function compileAllowlist(list: string[]): (ip: string) => boolean {
  if (!Array.isArray(list)) throw new TypeError("compileAllowlist() expects an array of strings");
  const v4: number[] = []; // pairs: network, mask
  const v6: number[] = []; // quintuples: w0..w3 of network, prefix bits
  for (const entry of list) {
    if (typeof entry !== "string") {
      throw new TypeError(`Invalid IP allowlist entry: expected a string, got ${typeof entry}`);
    }
    const rule = parseRule(entry.trim());
    if (!rule) throw new RangeError(`Invalid IP address or CIDR range: ${JSON.stringify(entry)}`);
    if (rule.addr.v === 4) v4.push(rule.addr.n, mask32(rule.bits));
    else v6.push(...rule.addr.words, rule.bits);
  }
  const v4Rules = Uint32Array.from(v4);
  const v6Rules = Uint32Array.from(v6);

  return (ip: string): boolean => {
    const addr = typeof ip === "string" ? parseClientAddr(ip) : null;
    if (!addr) return false;
    if (addr.v === 4) {
      const n = addr.n;
      for (let i = 0; i < v4Rules.length; i += 2) {
        if (((n & v4Rules[i + 1]) >>> 0) === v4Rules[i]) return true;
      }
      return false;
    }
    const w = addr.words;
    outer: for (let i = 0; i < v6Rules.length; i += 5) {
      const bits = v6Rules[i + 4];
      for (let j = 0; j < 4; j++) {
        const m = mask32(bits - 32 * j);
        if (m === 0) break;
        if (((w[j] & m) >>> 0) !== v6Rules[i + j]) continue outer;
      }
      return true;
    }
    return false;
  };
}

const BRACKETED_RE = /^\[([^\]]+)\](?::[0-9]{1,5})?$/;
const V4_PORT_RE = /^([0-9.]+):[0-9]{1,5}$/;

function parseClientAddr(raw: string): Addr | null {
  let s = raw.trim();
  const bracketed = BRACKETED_RE.exec(s);
  if (bracketed) {
    s = bracketed[1];
    if (!s.includes(":")) return null; // brackets are for IPv6 only
  } else {
    const withPort = V4_PORT_RE.exec(s);
    if (withPort) s = withPort[1];
  }
  const zone = s.indexOf("%");
  if (zone !== -1) {
    if (!s.includes(":") || zone === s.length - 1) return null;
    s = s.slice(0, zone);
  }
  return parseAddr(s);
}

/**
 * Canonical form of a client address, or null if it is not one: trims, strips `[...]` brackets
 * (with an optional `:port` after them), a `:port` after an IPv4 address, and an IPv6 zone id
 * (`%eth0`); IPv4-mapped IPv6 becomes IPv4, IPv6 becomes RFC 5952 (lowercase, compressed).
 */
export function parseClientIp(raw: string): string | null {
  if (typeof raw !== "string") throw new TypeError("parseClientIp() expects a string");
  const addr = parseClientAddr(raw);
  return addr ? formatAddr(addr) : null;
}
