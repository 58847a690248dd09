/**
 * Configuration read from the environment once at start, validated with clear messages.
 */

/** Everything toolgate needs to know about where and how it runs. */
export interface Config {
  port: number;
  hostname: string;
  platformUrl: URL;
  kvPath: string;
  seedDemo: boolean;
  demoEmail: string;
  demoPassword: string | null;
  trustProxy: boolean;
  /** Authorization servers advertised in protected-resource metadata. */
  authorizationServers: string[];
  /** Cap on request bodies, API and MCP alike. */
  maxBodyBytes: number;
  /** Upstream answer timeout in milliseconds (504 after it). */
  upstreamTimeoutMs: number;
}

/** Thrown when an environment variable has a value toolgate cannot use. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

function parseBool(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === "") return fallback;
  const v = raw.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

function parseIntIn(
  name: string,
  raw: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) {
    throw new ConfigError(`${name} must be a whole number (got "${raw}")`);
  }
  const n = Number(raw.trim());
  if (n < min || n > max) {
    throw new ConfigError(`${name} must be between ${min} and ${max} (got ${n})`);
  }
  return n;
}

function parseHttpUrl(name: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL (got "${raw}")`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`${name} must use http or https (got "${url.protocol}")`);
  }
  if (url.username || url.password) {
    throw new ConfigError(`${name} must not carry a user name or password`);
  }
  if (url.pathname !== "/" || url.search || url.hash) {
    throw new ConfigError(`${name} must be an origin without path or query (got "${raw}")`);
  }
  return url;
}

function parseKvPath(raw: string | undefined): string {
  if (raw === undefined || raw === "") return "./data/toolgate.kv";
  if (raw === ":memory:") return raw;
  if (/^https?:\/\//i.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new ConfigError(`KV_PATH is not a valid KV Connect URL (got "${raw}")`);
    }
    return raw;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw)) {
    throw new ConfigError(`KV_PATH must be a file path, :memory: or an http(s) URL (got "${raw}")`);
  }
  if (raw.endsWith("/")) {
    throw new ConfigError(`KV_PATH must name a file, not a folder (got "${raw}")`);
  }
  return raw;
}

/** Reads and validates the configuration; throws ConfigError naming the bad variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const port = parseIntIn("PORT", env.PORT, 8000, 0, 65535);
  const platformUrl = parseHttpUrl("PLATFORM_URL", env.PLATFORM_URL || `http://localhost:${port}`);
  const demoEmail = (env.DEMO_EMAIL || "demo@example.com").trim().toLowerCase();
  if (demoEmail.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(demoEmail)) {
    throw new ConfigError(`DEMO_EMAIL must be an email address (got "${env.DEMO_EMAIL}")`);
  }
  const demoPassword = env.DEMO_PASSWORD || null;
  if (demoPassword !== null && [...demoPassword].length < 8) {
    throw new ConfigError("DEMO_PASSWORD must be at least 8 characters");
  }
  if (demoPassword !== null && demoPassword.length > 256) {
    throw new ConfigError("DEMO_PASSWORD must be at most 256 characters");
  }
  const authServers = (env.AUTHORIZATION_SERVERS || "").split(",").map((s) => s.trim()).filter(
    Boolean,
  );
  for (const s of authServers) parseHttpUrl("AUTHORIZATION_SERVERS", s);
  return {
    port,
    hostname: env.HOSTNAME_BIND || "0.0.0.0",
    platformUrl,
    kvPath: parseKvPath(env.KV_PATH),
    seedDemo: parseBool("SEED_DEMO", env.SEED_DEMO, true),
    demoEmail,
    demoPassword,
    trustProxy: parseBool("TRUST_PROXY", env.TRUST_PROXY, false),
    authorizationServers: authServers.length ? authServers : [platformUrl.origin],
    maxBodyBytes: parseIntIn("MAX_BODY_BYTES", env.MAX_BODY_BYTES, 1_048_576, 1024, 104_857_600),
    upstreamTimeoutMs: parseIntIn(
      "UPSTREAM_TIMEOUT_MS",
      env.UPSTREAM_TIMEOUT_MS,
      30_000,
      10,
      600_000,
    ),
  };
}
