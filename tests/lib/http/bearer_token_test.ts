import assert from "node:assert/strict";
import { bearerToken } from "../../../lib/http/bearer_token.ts";

Deno.test("bearerToken() reads RFC 6750 headers and refuses everything else", async (t) => {
  const cases: [string, string | null][] = [
    ["Bearer abc", "abc"],
    ["bearer abc", "abc"],
    ["BEARER   abc  ", "abc"],
    ["Bearer\tabc\t", "abc"],
    ["Bearer svc_x.y-z~+/=", "svc_x.y-z~+/="],
    ["Bearer", null],
    ["Bearer ", null],
    ["Bearer    ", null],
    ["Bearerabc", null],
    ["Basic abc", null],
    ["Bearer a b", null],
    ["Bearer abc\u00e9", null],
    ["Bearer ab\u0000c", null],
    [" Bearer abc", null],
    ["", null],
    ["Token abc", null],
  ];
  for (const [header, want] of cases) {
    await t.step(JSON.stringify(header), () => assert.equal(bearerToken(header), want));
  }
});
