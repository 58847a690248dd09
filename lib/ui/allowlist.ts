/**
 * The IP allowlist as typed in a textarea: split into entries and checked in the browser with
 * the URL parser (no IP library in the bundle). The API has the final word.
 */

/** Entries of a typed list: split on commas, spaces and newlines, blanks dropped. */
export const splitAllowlist = (text: string): string[] =>
  text.split(/[\s,]+/).map((s) => s.trim()).filter(Boolean);

function isIpv4(s: string): boolean {
  const parts = s.split(".");
  return parts.length === 4 && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) < 256);
}

function isIpv6(s: string): boolean {
  if (!s.includes(":") || !/^[0-9a-fA-F:.]+$/.test(s)) return false;
  try {
    new URL(`http://[${s}]/`);
    return true;
  } catch {
    return false;
  }
}

/** Whether one entry is an IPv4/IPv6 address or CIDR range. */
export function isAllowlistEntry(entry: string): boolean {
  const [addr, bits, extra] = entry.split("/");
  if (extra !== undefined) return false;
  const v4 = isIpv4(addr);
  if (!v4 && !isIpv6(addr)) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (v4 ? 32 : 128);
}

/** The entries of `text` that are not valid, for a message while typing. */
export const invalidEntries = (text: string): string[] =>
  splitAllowlist(text).filter((e) => !isAllowlistEntry(e));

/** The API value: null when nothing was typed. */
export function allowlistValue(text: string): string[] | null {
  const entries = splitAllowlist(text);
  return entries.length ? entries : null;
}
