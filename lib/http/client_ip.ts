/** The client's IP: the socket's address, or the first X-Forwarded-For hop behind a trusted proxy. */
import { parseClientIp } from "../net/ip_allowlist.ts";

/** Resolves the caller's address; null when unknown (e.g. in-process test requests). */
export function clientIp(
  req: Request,
  remote: string | undefined,
  trustProxy: boolean,
): string | null {
  if (trustProxy) {
    const xff = req.headers.get("x-forwarded-for");
    if (xff) {
      const first = parseClientIp(xff.split(",")[0].trim());
      if (first) return first;
    }
  }
  return remote ? parseClientIp(remote) : null;
}
