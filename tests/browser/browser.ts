/**
 * Browser-test plumbing: a real toolgate (demo seed, in-memory KV) and Debian Chromium driven by
 * playwright-core, screenshots to ./screenshots/, and one `close()` for both.
 */
import { type Browser, chromium, type Page } from "playwright-core";
import { loadConfig } from "../../lib/config.ts";
import { type Running, startToolgate } from "../../lib/start.ts";
import { freePort, TEST_ITERATIONS } from "../helpers.ts";

/** The demo user's password in browser tests. */
export const DEMO_PASSWORD = "browser-demo-password";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A running toolgate and a browser pointed at it. */
export interface BrowserEnv {
  server: Running;
  browser: Browser;
  base: string;
  close(): Promise<void>;
}

/** Starts toolgate (demo seeded) and Chromium; fails early when the bundle was not built. */
export async function startBrowserEnv(): Promise<BrowserEnv> {
  await Deno.stat(new URL("../../static/build/islands.js", import.meta.url)).catch(() => {
    throw new Error("static/build/islands.js is missing: run `deno task bundle` first");
  });
  const port = freePort();
  const server = await startToolgate(
    loadConfig({
      KV_PATH: ":memory:",
      PORT: String(port),
      HOSTNAME_BIND: "127.0.0.1",
      SEED_DEMO: "true",
      DEMO_PASSWORD,
    }),
    { passwordIterations: TEST_ITERATIONS, log: () => {} },
  );
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ARGS });
  return {
    server,
    browser,
    base: server.listenUrl,
    async close() {
      await browser.close();
      await server.close();
    },
  };
}

/** Saves a full-page screenshot as `screenshots/<name>.png`. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({
    path: `screenshots/${name}.png`,
    fullPage: true,
    animations: "disabled",
  });
}

/** Signs in through the no-JavaScript form and waits for the tokens page to hydrate. */
export async function signIn(page: Page, base: string, email: string): Promise<void> {
  await page.goto(`${base}/sign-in`);
  await page.fill("#email", email);
  await page.fill("#password", DEMO_PASSWORD);
  await Promise.all([page.waitForURL(`${base}/tokens`), page.click("button[type=submit]")]);
  await hydrated(page);
}

/** Waits until the islands bundle has hydrated the page. */
export async function hydrated(page: Page): Promise<void> {
  await page.waitForSelector("html[data-hydrated]", { state: "attached" });
}

/** Calls `tools/list` on the demo server's MCP endpoint (path form) with a Bearer secret. */
export async function toolsList(base: string, secret: string, slug = "demo"): Promise<Response> {
  const res = await fetch(`${base}/s/${slug}/`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${secret}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
  await res.body?.cancel();
  return res;
}
