import assert from "node:assert/strict";
import { checkSlug, RESERVED_SLUGS } from "../../../lib/servers/slug.ts";

Deno.test("checkSlug() accepts DNS-safe slugs of 3 to 40 characters", async (t) => {
  for (const slug of ["abc", "demo", "my-tools", "a1b2", "0ab", "x".repeat(40), "a-b-c"]) {
    await t.step(slug, () => checkSlug(slug));
  }
});

Deno.test("checkSlug() refuses bad slugs with RangeError", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["too short", "ab", /3 to 40/],
    ["empty", "", /3 to 40/],
    ["too long", "x".repeat(41), /3 to 40/],
    ["uppercase", "Demo", /lower-case/],
    ["underscore", "my_tools", /lower-case/],
    ["dot", "my.tools", /lower-case/],
    ["space", "my tools", /lower-case/],
    ["unicode", "tööls", /lower-case/],
    ["leading hyphen", "-tools", /start and end/],
    ["trailing hyphen", "tools-", /start and end/],
    ["double hyphen", "xn--tools", /two hyphens/],
    ["reserved www", "www", /reserved/],
    ["reserved api", "api", /reserved/],
    ["reserved app", "app", /reserved/],
    ["reserved admin", "admin", /reserved/],
  ];
  for (const [name, slug, msg] of cases) {
    await t.step(
      name,
      () =>
        assert.throws(() => checkSlug(slug), (e) => e instanceof RangeError && msg.test(e.message)),
    );
  }
  assert.ok(["www", "api", "app"].every((s) => RESERVED_SLUGS.has(s)));
});
