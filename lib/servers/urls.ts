/** A server's two equivalent base URLs (DESIGN 3). */

/** Host form `{scheme}://{slug}.{platform host}` and path form `{PLATFORM_URL}/s/{slug}`. */
export function serverBaseUrls(platformUrl: URL, slug: string): { host: string; path: string } {
  return {
    host: `${platformUrl.protocol}//${slug}.${platformUrl.host}`,
    path: `${platformUrl.origin}/s/${slug}`,
  };
}

/**
 * The server slug a Host header names in host form (`demo.localhost:8000` → `demo`), or null
 * when the host is the platform's own or another name.
 */
export function slugFromHost(platformUrl: URL, hostHeader: string | null): string | null {
  if (!hostHeader) return null;
  const host = hostHeader.toLowerCase();
  const suffix = `.${platformUrl.host.toLowerCase()}`;
  if (!host.endsWith(suffix)) return null;
  const slug = host.slice(0, -suffix.length);
  return /^[a-z0-9-]{1,63}$/.test(slug) ? slug : null;
}
