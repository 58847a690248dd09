/** Input checks for token create and edit. */
import assert from "node:assert/strict";
import {
  checkAllowedIps,
  checkEditFields,
  checkExpiresInDays,
  checkServerIdList,
  checkTokenName,
  expiryFrom,
  isTokenId,
} from "../../../lib/tokens/validate.ts";
import { HttpError } from "../../../lib/http/errors.ts";

Deno.test("checkTokenName() trims and allows 1–100 characters, no control characters", async (t) => {
  const ok: [string, string][] = [["a", "a"], ["  ci  ", "ci"], ["é".repeat(100), "é".repeat(100)]];
  for (const [input, expected] of ok) {
    await t.step(`ok ${JSON.stringify(input).slice(0, 20)}`, () => {
      assert.equal(checkTokenName(input), expected);
    });
  }
  for (const bad of ["", "   ", "x".repeat(101), "a\tb", "nul\u0000"]) {
    await t.step(`bad ${JSON.stringify(bad).slice(0, 20)}`, () => {
      assert.throws(() => checkTokenName(bad), RangeError);
    });
  }
});

Deno.test("checkExpiresInDays() allows 7, 30 and 90 only; expiryFrom() counts from now", async (t) => {
  for (const d of [7, 30, 90]) await t.step(`${d}`, () => assert.equal(checkExpiresInDays(d), d));
  for (const d of [0, 1, 6, 8, 31, 89, 91, 365, -7, 7.5, NaN, Infinity]) {
    await t.step(`bad ${d}`, () => assert.throws(() => checkExpiresInDays(d), RangeError));
  }
  assert.equal(expiryFrom(0, 90), new Date(90 * 86_400_000).toISOString());
  assert.throws(() => expiryFrom(0, 91), RangeError);
});

Deno.test("checkServerIdList() dedupes and needs one to 100 ids", () => {
  assert.deepEqual(checkServerIdList(["a", " a ", "b"]), ["a", "b"]);
  assert.throws(() => checkServerIdList([]), RangeError);
  assert.throws(() => checkServerIdList([" "]), RangeError);
  assert.throws(
    () => checkServerIdList(Array.from({ length: 101 }, (_, i) => `s${i}`)),
    RangeError,
  );
});

Deno.test("checkAllowedIps() normalises and turns every bad input into a RangeError", async (t) => {
  assert.equal(checkAllowedIps(null), null);
  assert.equal(checkAllowedIps(undefined), null);
  assert.equal(checkAllowedIps([]), null);
  assert.deepEqual(checkAllowedIps(["10.0.0.1/8"]), ["10.0.0.0/8"]);
  for (const bad of ["1.2.3.4", [1], [null], ["x"], ["1.2.3.4/40"], {}]) {
    await t.step(JSON.stringify(bad), () => assert.throws(() => checkAllowedIps(bad), RangeError));
  }
});

Deno.test("checkEditFields() names fixed and unknown fields", async (t) => {
  const cases: [string, unknown, RegExp | null][] = [
    ["editable only", { name: "x", expires_in_days: 7, allowed_ips: null }, null],
    ["not an object (left to validateBody)", [1], null],
    ["scopes", { scopes: [] }, /"scopes".*fixed at creation.*new token/],
    ["id and token", { id: 1, token: 2 }, /"id", "token"/],
    ["unknown", { a: 1, b: 2 }, /Unknown fields "a", "b"/],
    [
      "many unknown",
      Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}`, 1])),
      /and 2 more/,
    ],
  ];
  for (const [name, body, message] of cases) {
    await t.step(name, () => {
      if (!message) return checkEditFields(body);
      assert.throws(
        () => checkEditFields(body),
        (e: unknown) =>
          e instanceof HttpError && e.kind === "unknown_field" && message.test(e.message),
      );
    });
  }
});

Deno.test("isTokenId() accepts lower-case UUIDs only", () => {
  assert.ok(isTokenId(crypto.randomUUID()));
  for (const bad of ["", "self", crypto.randomUUID().toUpperCase(), "../x"]) {
    assert.ok(!isTokenId(bad));
  }
});
