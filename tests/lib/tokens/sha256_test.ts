import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { sha256Hex } from "../../../lib/tokens/sha256.ts";

const reference = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

Deno.test("sha256Hex: FIPS 180-4 test vectors", () => {
  assert.equal(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(
    sha256Hex("abc"),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
  assert.equal(
    sha256Hex("a".repeat(1_000_000)),
    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
  );
});

Deno.test("sha256Hex: equals node:crypto at every length around the block edges", () => {
  for (let n = 0; n <= 200; n++) {
    const s = Array.from({ length: n }, (_, i) => String.fromCharCode(33 + ((i * 7 + n) % 94)))
      .join("");
    assert.equal(sha256Hex(s), reference(s), `length ${n}`);
  }
});

Deno.test("sha256Hex: equals node:crypto on random and non-ASCII strings", () => {
  const samples = ["é", "日本語のテキスト", "emoji 🔑 key", "mixed ünïcödé " + "x".repeat(70)];
  for (let i = 0; i < 300; i++) {
    // Random UTF-16 units, lone surrogates included (both sides encode them as U+FFFD).
    samples.push(String.fromCharCode(...crypto.getRandomValues(new Uint16Array(1 + (i % 90)))));
  }
  for (const s of samples) assert.equal(sha256Hex(s), reference(s));
});

Deno.test("sha256Hex: a long input after a short one (scratch reuse) stays right", () => {
  for (const s of ["short", "y".repeat(5000), "z", "ü".repeat(300), "w"]) {
    assert.equal(sha256Hex(s), reference(s));
  }
});
