/**
 * `/static/*`: the stylesheet, favicon and the islands bundle, with content-hash URLs so they
 * can be cached for a year.
 */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";

const ROOT = new URL("../../static/", import.meta.url);

const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
  map: "application/json",
};

const versions = new Map<string, string | null>();

function contentVersion(path: string): string | null {
  if (!versions.has(path)) {
    try {
      const bytes = Deno.readFileSync(new URL(path, ROOT));
      let h = 0x811c9dc5; // FNV-1a: enough to tell builds apart
      for (const b of bytes) h = Math.imul(h ^ b, 0x01000193);
      versions.set(path, (h >>> 0).toString(36));
    } catch {
      versions.set(path, null);
    }
  }
  return versions.get(path)!;
}

/** The URL of a static file with its content version, e.g. `/static/app.css?v=1x2y3z`. */
export function assetUrl(path: string): string {
  const v = contentVersion(path);
  return v ? `/static/${path}?v=${v}` : `/static/${path}`;
}

/** Whether a static file exists (the bundle is missing until `deno task bundle` ran). */
export const hasAsset = (path: string): boolean => contentVersion(path) !== null;

/** Serves files under `static/`; nothing outside it, no directory listings. */
export function staticRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.get("/static/*", async (c) => {
    const rel = c.req.path.slice("/static/".length);
    const ext = rel.split(".").pop() ?? "";
    if (!/^[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*\.[a-z0-9]+$/.test(rel) || !TYPES[ext]) {
      return c.text("Not found", 404);
    }
    let bytes: Uint8Array;
    try {
      bytes = await Deno.readFile(new URL(rel, ROOT));
    } catch {
      return c.text("Not found", 404);
    }
    c.header("content-type", TYPES[ext]);
    c.header("x-content-type-options", "nosniff");
    c.header(
      "cache-control",
      c.req.query("v") ? "public, max-age=31536000, immutable" : "no-cache",
    );
    return c.body(bytes as Uint8Array<ArrayBuffer>);
  });
  return r;
}
