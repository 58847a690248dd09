import assert from "node:assert/strict";
import {
  checkPasswordStrength,
  DUMMY_HASH,
  dummyHash,
  hashPassword,
  PASSWORD_ITERATIONS,
  verifyPassword,
} from "../../../lib/accounts/passwords.ts";

Deno.test("hashPassword() records algorithm, iterations, salt and hash", async () => {
  const h = await hashPassword("correct horse", 1000);
  const [alg, iter, salt, hash, ...rest] = h.split("$");
  assert.equal(alg, "pbkdf2-sha256");
  assert.equal(iter, "1000");
  assert.equal(atob(salt).length, 16);
  assert.equal(atob(hash).length, 32);
  assert.deepEqual(rest, []);
  assert.ok(!h.includes("correct horse"));
});

Deno.test("hashPassword() defaults to at least 600 000 iterations", () => {
  assert.ok(PASSWORD_ITERATIONS >= 600_000);
  assert.ok(DUMMY_HASH.startsWith(`pbkdf2-sha256$${PASSWORD_ITERATIONS}$`));
});

Deno.test("hashPassword() salts: the same password hashes differently", async () => {
  assert.notEqual(
    await hashPassword("same-password", 1000),
    await hashPassword("same-password", 1000),
  );
});

Deno.test("verifyPassword() accepts the password and refuses everything else", async (t) => {
  const stored = await hashPassword("password123", 1000);
  const cases: [string, string, string, boolean][] = [
    ["right", "password123", stored, true],
    ["wrong", "password124", stored, false],
    ["empty", "", stored, false],
    ["case", "PASSWORD123", stored, false],
    ["other algorithm", "password123", stored.replace("pbkdf2-sha256", "md5"), false],
    ["truncated record", "password123", stored.split("$").slice(0, 3).join("$"), false],
    ["empty record", "password123", "", false],
    ["dummy hash", "password123", dummyHash(1000), false],
  ];
  for (const [name, pw, rec, want] of cases) {
    await t.step(name, async () => assert.equal(await verifyPassword(pw, rec), want));
  }
});

Deno.test("verifyPassword() handles non-ASCII passwords", async () => {
  const stored = await hashPassword("pässwörd-🔑", 1000);
  assert.equal(await verifyPassword("pässwörd-🔑", stored), true);
  assert.equal(await verifyPassword("passwörd-🔑", stored), false);
});

Deno.test("checkPasswordStrength() refuses too short and too long", async (t) => {
  const cases: [string, string, boolean][] = [
    ["7 chars", "1234567", false],
    ["8 chars", "12345678", true],
    ["256 chars", "x".repeat(256), true],
    ["257 chars", "x".repeat(257), false],
  ];
  for (const [name, pw, ok] of cases) {
    await t.step(name, () => {
      if (ok) checkPasswordStrength(pw);
      else assert.throws(() => checkPasswordStrength(pw), RangeError);
    });
  }
});
