/** A token's IP allowlist on the request path: compiled once per record, then a few integer ops. */
import { compileAllowlist } from "../net/ip_allowlist.ts";
import type { TokenRecord } from "./store.ts";

const compiled = new WeakMap<string[], (ip: string) => boolean>();

/** True when the token has no allowlist, or `ip` is known and inside it. */
export function ipAllowed(token: TokenRecord, ip: string | null): boolean {
  const list = token.allowed_ips;
  if (list === null) return true;
  if (ip === null) return false;
  let match = compiled.get(list);
  if (!match) {
    match = compileAllowlist(list);
    compiled.set(list, match);
  }
  return match(ip);
}
