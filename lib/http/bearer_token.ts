/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 2.1): scheme case-insensitive,
 * then spaces or tabs, a token of visible ASCII, optional trailing spaces or tabs. Null when the
 * header is not of that form. A hand-written scan rather than a regex: the MCP endpoint runs it
 * on every request.
 */
export function bearerToken(header: string): string | null {
  const n = header.length;
  if (n < 8 || header.slice(0, 6).toLowerCase() !== "bearer" || !isBlank(header.charCodeAt(6))) {
    return null;
  }
  let start = 7;
  while (start < n && isBlank(header.charCodeAt(start))) start++;
  let end = start;
  while (end < n) {
    const c = header.charCodeAt(end);
    if (c < 0x21 || c > 0x7e) break;
    end++;
  }
  if (end === start) return null;
  for (let i = end; i < n; i++) if (!isBlank(header.charCodeAt(i))) return null;
  return header.slice(start, end);
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9;
}
