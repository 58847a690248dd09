/**
 * The dashboard in a real Chromium against a real toolgate: sign-in, the show-once secret that
 * works on the MCP endpoint, rotate, edit, revoke, pre-selection from a server page, keyboard-only
 * create, and screenshots of every screen (desktop and phone, light and dark) in ./screenshots/.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { hydrated, shot, signIn, startBrowserEnv, toolsList } from "./browser.ts";

const SECRET = /^svc_[0-9A-Za-z]{44}$/;

/** The secret shown in the open secret dialog. */
async function readSecret(page: Page): Promise<string> {
  const secret = (await page.textContent("#secret-dialog #token-secret"))?.trim() ?? "";
  assert.match(secret, SECRET);
  return secret;
}

/** Asserts the secret is nowhere: markup, visible text, form values. */
async function assertSecretGone(page: Page, secret: string): Promise<void> {
  assert.ok(!(await page.content()).includes(secret), "secret in the page's HTML");
  const values = await page.evaluate(() =>
    document.body.innerText +
    [...document.querySelectorAll("input, textarea")].map((e) => (e as HTMLInputElement).value)
      .join("")
  );
  assert.ok(!values.includes(secret), "secret in the page's text or inputs");
}

/** Clicks a row's action button for the token named `name`. */
const rowAction = (page: Page, action: string, name: string) =>
  page.click(`button[aria-label="${action} token ${name}"]`);

Deno.test("dashboard: tokens, secrets and servers in Chromium", async (t) => {
  await Deno.mkdir("screenshots", { recursive: true });
  const env = await startBrowserEnv();
  const { base } = env;
  const email = env.server.seed!.email;
  try {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (e) => pageErrors.push(String(e)));

    await t.step("signed-out dashboard pages redirect to sign-in", async () => {
      await page.goto(`${base}/tokens`);
      assert.equal(new URL(page.url()).pathname, "/sign-in");
      await shot(page, "sign-in");
      await page.goto(`${base}/sign-up`);
      await shot(page, "sign-up");
    });

    await t.step("sign in", async () => {
      await signIn(page, base, email);
      assert.equal(await page.textContent("h1"), "API tokens");
      await shot(page, "tokens-empty");
    });

    let secret = "";
    await t.step("create a token; the secret dialog shows it once", async () => {
      await page.click("#create-token");
      await page.waitForSelector("#create-dialog[open]");
      assert.equal(await page.evaluate(() => document.activeElement?.id), "token-name");
      await page.fill("#token-name", "CI deploy");
      assert.ok(await page.isChecked("input[name=server]"), "the only server is pre-selected");
      await page.fill("#token-ips", "127.0.0.1\n10.0.0.300");
      await page.waitForSelector("#token-ips-error");
      assert.match((await page.textContent("#token-ips-error"))!, /10\.0\.0\.300/);
      await shot(page, "create-dialog-invalid-allowlist");
      await page.fill("#token-ips", "127.0.0.0/8\n::1");
      assert.equal(await page.$("#token-ips-error"), null);
      await page.check("input[name=expiry][value='7']");
      await shot(page, "create-dialog");
      await page.click("#create-dialog button[type=submit]");
      await page.waitForSelector("#secret-dialog[open]");
      secret = await readSecret(page);
      const snippet = await page.textContent("#secret-dialog pre");
      assert.ok(snippet?.includes(`Bearer ${secret}`) && snippet.includes("tools/list"));
      await shot(page, "secret-dialog");
    });

    await t.step("the secret works on the MCP endpoint", async () => {
      const res = await toolsList(base, secret);
      assert.equal(res.status, 200);
      assert.ok(res.headers.get("x-mcp-version"));
    });

    await t.step("closing, reloading and going back never show the secret again", async () => {
      await page.click("#secret-dialog .dialog-foot .btn-primary");
      await page.waitForSelector("#secret-dialog", { state: "detached" });
      assert.equal(await page.evaluate(() => document.activeElement?.id), "create-token");
      await assertSecretGone(page, secret);
      const row = page.locator("tr", { hasText: "CI deploy" });
      assert.match((await row.textContent())!, /svc_\w{8}…/);
      assert.match((await row.textContent())!, /in 7 days|in 6 days/);
      await shot(page, "tokens-list");
      await page.reload();
      await hydrated(page);
      await assertSecretGone(page, secret);
      const html = await (await context.request.get(`${base}/tokens`)).text();
      assert.ok(!html.includes(secret) && html.includes("CI deploy"));
      await page.goto(`${base}/servers`);
      await page.goBack();
      await hydrated(page);
      await assertSecretGone(page, secret);
    });

    await t.step("rotate: the new secret works, the old one fails", async () => {
      await rowAction(page, "Rotate", "CI deploy");
      await page.waitForSelector("dialog[open]");
      assert.match((await page.textContent("dialog[open]"))!, /stops working at once/);
      await shot(page, "rotate-confirm");
      await page.click("dialog[open] button[type=submit]");
      await page.waitForSelector("#secret-dialog[open]");
      const rotated = await readSecret(page);
      assert.notEqual(rotated, secret);
      assert.match((await page.textContent("#secret-dialog"))!, /previous secret has stopped/);
      await page.keyboard.press("Escape");
      await page.waitForSelector("#secret-dialog", { state: "detached" });
      assert.equal((await toolsList(base, rotated)).status, 200);
      assert.equal((await toolsList(base, secret)).status, 401);
      secret = rotated;
    });

    await t.step("edit: name, expiration and allowlist; servers read-only", async () => {
      await rowAction(page, "Edit", "CI deploy");
      await page.waitForSelector("#edit-dialog[open]");
      assert.match(
        (await page.textContent("#edit-dialog"))!,
        /Create a new token to change servers/,
      );
      assert.equal(await page.$("#edit-dialog input[name=server]"), null);
      await page.fill("#token-name", "CI deploy (prod)");
      await page.check("input[name=expiry][value='90']");
      await page.fill("#token-ips", "");
      await shot(page, "edit-dialog");
      await page.click("#edit-dialog button[type=submit]");
      await page.waitForSelector("#edit-dialog", { state: "detached" });
      const row = page.locator("tr", { hasText: "CI deploy (prod)" });
      assert.match((await row.textContent())!, /Any IP/);
      assert.match((await row.textContent())!, /in 3 months|in 89 days|in 90 days/);
      assert.equal((await toolsList(base, secret)).status, 200);
    });

    await t.step("revoke: confirmation, then the secret fails", async () => {
      await rowAction(page, "Revoke", "CI deploy (prod)");
      await page.waitForSelector("dialog[open]");
      assert.match((await page.textContent("dialog[open]"))!, /permanent/);
      await shot(page, "revoke-confirm");
      await page.click("dialog[open] button[type=submit]");
      await page.waitForSelector("dialog[open]", { state: "detached" });
      assert.equal(await page.locator("tr", { hasText: "CI deploy (prod)" }).count(), 0);
      assert.equal((await toolsList(base, secret)).status, 401);
    });

    await t.step("servers: subscribe from the catalog; the server page", async () => {
      await page.goto(`${base}/servers`);
      await hydrated(page);
      await page.click('button[aria-label="Subscribe to Labs (not subscribed)"]');
      await page.waitForSelector("li[data-slug=labs] >> text=Cancel subscription");
      await shot(page, "servers");
      await page.goto(`${base}/servers/demo`);
      await hydrated(page);
      const routes = await page.locator("table.routes").textContent();
      assert.match(routes!, /\/v1\.1\s*1\.1\.1/);
      await shot(page, "server-demo");
    });

    await t.step("create from a server page pre-selects that server", async () => {
      await page.goto(`${base}/servers/labs`);
      await hydrated(page);
      await page.click("#create-token-for-server");
      await page.waitForSelector("#create-dialog[open]");
      const checked = await page.$$eval(
        "input[name=server]:checked",
        (els) => els.map((e) => e.closest("label")!.textContent),
      );
      assert.equal(checked.length, 1);
      assert.match(checked[0]!, /labs/);
      await page.fill("#token-name", "labs agent");
      await page.click("#create-dialog button[type=submit]");
      await page.waitForSelector("#secret-dialog[open]");
      const labs = await readSecret(page);
      assert.equal(new URL(page.url()).search, "", "?new=1 is dropped so reload won't reopen it");
      await page.click("#secret-dialog .dialog-foot .btn-primary");
      assert.equal((await toolsList(base, labs, "labs")).status, 200);
      assert.equal((await toolsList(base, labs, "demo")).status, 403);
    });

    await t.step("keyboard-only create", async () => {
      await page.goto(`${base}/tokens`);
      await hydrated(page);
      for (let i = 0; i < 40; i++) {
        if (await page.evaluate(() => document.activeElement?.id === "create-token")) break;
        await page.keyboard.press("Tab");
      }
      assert.equal(await page.evaluate(() => document.activeElement?.id), "create-token");
      await page.keyboard.press("Enter");
      await page.waitForSelector("#create-dialog[open]");
      await page.keyboard.type("keyboard token");
      await page.keyboard.press("Tab"); // first server checkbox (demo)
      await page.keyboard.press("Space");
      await page.keyboard.press("Shift+Tab");
      await page.keyboard.press("Enter");
      await page.waitForSelector("#secret-dialog[open]");
      const kb = await readSecret(page);
      await page.keyboard.press("Enter"); // "I have saved it" has focus
      await page.waitForSelector("#secret-dialog", { state: "detached" });
      assert.equal(await page.evaluate(() => document.activeElement?.id), "create-token");
      assert.equal((await toolsList(base, kb)).status, 200);
    });

    await t.step("account and security log", async () => {
      await page.goto(`${base}/account`);
      await hydrated(page);
      assert.match((await page.textContent("main"))!, /revokes every API token/);
      await shot(page, "account");
      await page.goto(`${base}/security`);
      const log = (await page.textContent("main"))!;
      for (const e of ["Signed in", "Token created", "Token rotated", "Token revoked"]) {
        assert.ok(log.includes(e), e);
      }
      await shot(page, "security-log");
    });

    await t.step("phone width and dark mode", async () => {
      for (
        const [label, viewport, colorScheme] of [
          ["desktop-dark", { width: 1280, height: 800 }, "dark"],
          ["phone-light", { width: 390, height: 844 }, "light"],
          ["phone-dark", { width: 390, height: 844 }, "dark"],
        ] as const
      ) {
        const ctx = await env.browser.newContext({ viewport, colorScheme });
        const p = await ctx.newPage();
        await p.goto(`${base}/sign-in`);
        await shot(p, `${label}-sign-in`);
        await signIn(p, base, email);
        await shot(p, `${label}-tokens`);
        const width = await p.evaluate(() => document.documentElement.scrollWidth);
        assert.ok(width <= viewport.width, `no sideways scroll at ${viewport.width}px (${width})`);
        await p.click("#create-token");
        await p.waitForSelector("#create-dialog[open]");
        await p.fill("#token-name", `${label} token`);
        await p.check("input[name=server] >> nth=0");
        await shot(p, `${label}-create-dialog`);
        await p.click("#create-dialog button[type=submit]");
        await p.waitForSelector("#secret-dialog[open]");
        await shot(p, `${label}-secret-dialog`);
        await p.keyboard.press("Escape");
        await p.goto(`${base}/servers/demo`);
        await shot(p, `${label}-server-demo`);
        await p.goto(`${base}/account`);
        await shot(p, `${label}-account`);
        await ctx.close();
      }
    });

    assert.deepEqual(pageErrors, []);
    await context.close();
  } finally {
    await env.close();
  }
});
