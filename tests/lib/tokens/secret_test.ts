import assert from "node:assert/strict";
import {
  BASE62_ALPHABET,
  base62Encode,
  crc32,
  generateSecret,
  hashSecret,
  isWellFormedSecret,
  SECRET_LENGTH,
  SECRET_PREFIX,
  SECRET_REGEX,
  secretPrefix,
} from "../../../lib/tokens/secret.ts";

const ascii = (s: string) => new TextEncoder().encode(s);

/** Builds a secret with a correct checksum from a 38-char random part. */
function withChecksum(randomPart: string): string {
  return "svc_" + randomPart + base62Encode(crc32(ascii(randomPart)), 6);
}

/** Replaces the char at `i` with a different base62 char. */
function mutateAt(s: string, i: number): string {
  const next = BASE62_ALPHABET[(BASE62_ALPHABET.indexOf(s[i]) + 1) % 62];
  return s.slice(0, i) + next + s.slice(i + 1);
}

Deno.test("crc32() matches the IEEE/zlib reference vectors", async (t) => {
  const cases: [string, Uint8Array, number][] = [
    ["check value '123456789'", ascii("123456789"), 0xcbf43926],
    ["empty input", new Uint8Array(), 0],
    ["'a'", ascii("a"), 0xe8b7be43],
    ["'abc'", ascii("abc"), 0x352441c2],
    ["quick brown fox", ascii("The quick brown fox jumps over the lazy dog"), 0x414fa339],
    ["single zero byte", new Uint8Array([0]), 0xd202ef8d],
    ["0xff byte", new Uint8Array([0xff]), 0xff000000],
  ];
  for (const [name, bytes, expected] of cases) {
    await t.step(name, () => assert.equal(crc32(bytes), expected));
  }
  await t.step("result is always an unsigned 32-bit integer", () => {
    for (let i = 0; i < 200; i++) {
      const v = crc32(crypto.getRandomValues(new Uint8Array(i)));
      assert.ok(Number.isInteger(v) && v >= 0 && v <= 0xffffffff);
    }
  });
  await t.step("rejects non-Uint8Array input with TypeError", () => {
    for (const bad of ["123456789", [1, 2, 3], null, undefined, 42, new Uint16Array(2)]) {
      assert.throws(() => crc32(bad as unknown as Uint8Array), TypeError);
    }
  });
});

Deno.test("base62Encode() pads, orders digits 0-9A-Za-z and rejects bad input", async (t) => {
  const cases: [number, number, string][] = [
    [0, 1, "0"],
    [0, 6, "000000"],
    [9, 1, "9"],
    [10, 1, "A"],
    [35, 1, "Z"],
    [36, 1, "a"],
    [61, 1, "z"],
    [62, 2, "10"],
    [62 * 62 - 1, 2, "zz"],
    [0xcbf43926, 6, "3jZRME"],
    [0xffffffff, 6, "4gfFC3"],
    [62 ** 6 - 1, 6, "zzzzzz"],
  ];
  for (const [n, width, expected] of cases) {
    await t.step(`${n} in ${width} -> ${expected}`, () => {
      assert.equal(base62Encode(n, width), expected);
    });
  }
  await t.step("round-trips random 32-bit values", () => {
    for (let i = 0; i < 500; i++) {
      const n = crypto.getRandomValues(new Uint32Array(1))[0];
      const s = base62Encode(n, 6);
      assert.equal(s.length, 6);
      const back = [...s].reduce((acc, ch) => acc * 62 + BASE62_ALPHABET.indexOf(ch), 0);
      assert.equal(back, n);
    }
  });
  const rangeErrors: [string, number, number][] = [
    ["negative", -1, 6],
    ["fraction", 1.5, 6],
    ["NaN", NaN, 6],
    ["Infinity", Infinity, 6],
    ["unsafe integer", 2 ** 53, 12],
    ["does not fit", 62 ** 6, 6],
    ["width 0", 1, 0],
    ["fractional width", 1, 2.5],
  ];
  for (const [name, n, width] of rangeErrors) {
    await t.step(
      `RangeError: ${name}`,
      () => assert.throws(() => base62Encode(n, width), RangeError),
    );
  }
  await t.step("TypeError for non-numbers", () => {
    assert.throws(() => base62Encode("1" as unknown as number, 6), TypeError);
    assert.throws(() => base62Encode(1, "6" as unknown as number), TypeError);
    assert.throws(() => base62Encode(1n as unknown as number, 6), TypeError);
  });
});

Deno.test("generateSecret() yields 48-char well-formed, unique secrets", async (t) => {
  const secrets = Array.from({ length: 2000 }, generateSecret);
  await t.step("shape", () => {
    for (const s of secrets) {
      assert.equal(s.length, SECRET_LENGTH);
      assert.ok(s.startsWith(SECRET_PREFIX));
      assert.match(s, SECRET_REGEX);
    }
  });
  await t.step("checksum is CRC32 of the 38 random chars", () => {
    for (const s of secrets) {
      assert.equal(s.slice(42), base62Encode(crc32(ascii(s.slice(4, 42))), 6));
      assert.ok(isWellFormedSecret(s));
    }
  });
  await t.step("no duplicates", () => assert.equal(new Set(secrets).size, secrets.length));
});

Deno.test("generateSecret() random chars are roughly uniform over base62", () => {
  // 4000 secrets * 38 chars = 152 000 samples, expected ~2452 per symbol. Chi-square with 61
  // degrees of freedom has mean 61 and sd ~11; a modulo-bias bug (no rejection sampling) gives
  // ~+25% on the first 8 symbols, i.e. chi-square in the thousands. 200 is > 12 sd: never flakes.
  const counts = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < 4000; i++) {
    for (const ch of generateSecret().slice(4, 42)) {
      counts.set(ch, (counts.get(ch) ?? 0) + 1);
      total++;
    }
  }
  assert.equal(counts.size, 62);
  const expected = total / 62;
  let chi2 = 0;
  for (const ch of BASE62_ALPHABET) chi2 += ((counts.get(ch) ?? 0) - expected) ** 2 / expected;
  assert.ok(chi2 < 200, `chi-square ${chi2.toFixed(1)} too high: characters are biased`);
});

Deno.test("isWellFormedSecret() checks shape and checksum offline", async (t) => {
  const good = generateSecret();
  const fixed = withChecksum("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZab");
  const valid: [string, string][] = [
    ["generated", good],
    ["fixed vector", fixed],
    ["all zeros random part", withChecksum("0".repeat(38))],
    ["all z random part", withChecksum("z".repeat(38))],
  ];
  for (const [name, s] of valid) {
    await t.step(`valid: ${name}`, () => assert.equal(isWellFormedSecret(s), true));
  }
  await t.step("fixed vector has the expected literal form", () => {
    assert.equal(fixed.length, 48);
    // Cross-checked with Python zlib.crc32.
    assert.equal(fixed, "svc_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZab0yIm7m");
  });

  const invalid: [string, unknown][] = [
    ["empty", ""],
    ["prefix only", "svc_"],
    ["wrong prefix sk_", "sk__" + good.slice(4)],
    ["uppercase prefix", "SVC_" + good.slice(4)],
    ["prefix without underscore", "svc-" + good.slice(4)],
    ["one char short", good.slice(0, 47)],
    ["one char long", good + "0"],
    ["leading space", " " + good],
    ["trailing newline", good + "\n"],
    ["non-base62 char", good.slice(0, 20) + "-" + good.slice(21)],
    ["non-ASCII char", good.slice(0, 20) + "é" + good.slice(21)],
    ["checksum swapped for zeros", good.slice(0, 42) + "000000"],
    ["case-flipped char", good.slice(0, 10) + flipCase(good[10]) + good.slice(11)],
    ["null", null],
    ["undefined", undefined],
    ["number", 48],
    ["object", { toString: () => good }],
    ["String object", new String(good)],
    ["array", [good]],
  ];
  for (const [name, s] of invalid) {
    await t.step(`invalid: ${name}`, () => assert.equal(isWellFormedSecret(s), false));
  }

  await t.step("every single-char change in the random or checksum part is caught", () => {
    for (let i = 4; i < 48; i++) {
      assert.equal(isWellFormedSecret(mutateAt(good, i)), false, `change at ${i} not caught`);
    }
  });
  await t.step("swapping two different adjacent chars is caught", () => {
    for (let i = 4; i < 41; i++) {
      if (good[i] === good[i + 1]) continue;
      const swapped = good.slice(0, i) + good[i + 1] + good[i] + good.slice(i + 2);
      assert.equal(isWellFormedSecret(swapped), false, `swap at ${i} not caught`);
    }
  });
  await t.step("random 48-char look-alikes almost never pass", () => {
    let passed = 0;
    for (let i = 0; i < 2000; i++) {
      const s = generateSecret();
      if (isWellFormedSecret(s.slice(0, 42) + generateSecret().slice(42))) passed++;
    }
    assert.ok(passed <= 1, `${passed} look-alikes passed`);
  });
});

function flipCase(ch: string): string {
  const flipped = ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase();
  return flipped === ch ? (ch === "0" ? "1" : "0") : flipped;
}

Deno.test("SECRET_REGEX is anchored and stateless", async (t) => {
  const s = generateSecret();
  await t.step("no global/sticky flag", () => {
    assert.equal(SECRET_REGEX.global, false);
    assert.equal(SECRET_REGEX.sticky, false);
  });
  await t.step("repeated test() calls agree", () => {
    for (let i = 0; i < 3; i++) assert.equal(SECRET_REGEX.test(s), true);
  });
  await t.step("does not match embedded secrets", () => {
    assert.equal(SECRET_REGEX.test(`token=${s}`), false);
    assert.equal(SECRET_REGEX.test(`${s} `), false);
  });
});

Deno.test("secretPrefix() returns the first 12 chars of a well-formed secret", async (t) => {
  await t.step("generated secret", () => {
    const s = generateSecret();
    const p = secretPrefix(s);
    assert.equal(p, s.slice(0, 12));
    assert.equal(p.length, 12);
    assert.ok(p.startsWith("svc_"));
  });
  const bad: [string, unknown, typeof TypeError | typeof RangeError][] = [
    ["non-string", 123, TypeError],
    ["null", null, TypeError],
    ["short string", "svc_abc", RangeError],
    ["bad checksum", generateSecret().slice(0, 42) + "zzzzzz", RangeError],
    ["wrong prefix", "abc_" + generateSecret().slice(4), RangeError],
  ];
  for (const [name, input, err] of bad) {
    await t.step(`throws ${err.name}: ${name}`, () => {
      assert.throws(() => secretPrefix(input as string), err);
    });
  }
});

Deno.test("hashSecret() is lowercase hex SHA-256", async (t) => {
  const cases: [string, string][] = [
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
  ];
  for (const [input, hex] of cases) {
    await t.step(`known vector ${JSON.stringify(input)}`, () => {
      assert.equal(hashSecret(input), hex);
    });
  }
  await t.step("deterministic, 64 hex chars, differs between secrets", () => {
    const a = generateSecret();
    const b = generateSecret();
    const ha = hashSecret(a);
    assert.match(ha, /^[0-9a-f]{64}$/);
    assert.equal(hashSecret(a), ha);
    assert.notEqual(hashSecret(b), ha);
  });
  await t.step("rejects non-strings with TypeError", () => {
    for (const bad of [null, undefined, 1, new Uint8Array(4)]) {
      assert.throws(() => hashSecret(bad as unknown as string), TypeError);
    }
  });
});
