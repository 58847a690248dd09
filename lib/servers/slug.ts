/** Server slugs: 3–40 chars of `[a-z0-9-]`, a valid DNS label, not a reserved name. */

/** Names no server may take: they are, or may become, the platform's own hosts. */
export const RESERVED_SLUGS = new Set([
  "www",
  "api",
  "app",
  "admin",
  "auth",
  "oauth",
  "login",
  "dashboard",
  "static",
  "assets",
  "cdn",
  "mail",
  "smtp",
  "status",
  "docs",
  "help",
  "support",
  "billing",
  "blog",
  "dev",
  "staging",
  "localhost",
  "mcp",
  "platform",
  "toolgate",
  "well-known",
]);

/** Throws RangeError unless `slug` is an acceptable server slug. */
export function checkSlug(slug: string): void {
  if (slug.length < 3 || slug.length > 40) {
    throw new RangeError("Slug must be 3 to 40 characters long");
  }
  if (!/^[a-z0-9-]+$/.test(slug)) {
    throw new RangeError("Slug may contain only lower-case letters, digits and hyphens");
  }
  if (slug.startsWith("-") || slug.endsWith("-")) {
    throw new RangeError("Slug must start and end with a letter or digit");
  }
  if (slug.includes("--")) throw new RangeError("Slug must not contain two hyphens in a row");
  if (RESERVED_SLUGS.has(slug)) throw new RangeError(`Slug "${slug}" is reserved`);
}
