import assert from "node:assert/strict";
import { safeEqual, sessionCookieName } from "../../../lib/http/session_auth.ts";
import { testEnv } from "../../helpers.ts";

Deno.test("safeEqual() compares whole strings", async (t) => {
  const cases: [string, string, boolean][] = [
    ["abc", "abc", true],
    ["abc", "abd", false],
    ["abc", "ab", false],
    ["", "", true],
    ["", "a", false],
  ];
  for (const [a, b, want] of cases) {
    await t.step(`${a}|${b}`, () => assert.equal(safeEqual(a, b), want));
  }
});

Deno.test("sessionCookieName() is __Host- prefixed on https only", async () => {
  const http = await testEnv();
  const https = await testEnv({ env: { PLATFORM_URL: "https://tools.example.com" } });
  try {
    assert.equal(sessionCookieName(http.deps), "tg_session");
    assert.equal(sessionCookieName(https.deps), "__Host-tg_session");
  } finally {
    http.close();
    https.close();
  }
});
