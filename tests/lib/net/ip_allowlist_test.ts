import assert from "node:assert/strict";
import {
  compileAllowlist,
  MAX_ALLOWLIST_ENTRIES,
  normalizeAllowlist,
  parseClientIp,
} from "../../../lib/net/ip_allowlist.ts";

Deno.test("normalizeAllowlist() maps absent or empty input to null", async (t) => {
  for (const input of [null, undefined, []]) {
    await t.step(JSON.stringify(input) ?? "undefined", () => {
      assert.equal(normalizeAllowlist(input), null);
    });
  }
});

Deno.test("normalizeAllowlist() canonicalises each entry", async (t) => {
  const cases: [string, string][] = [
    ["1.2.3.4", "1.2.3.4"],
    [" 1.2.3.4 ", "1.2.3.4"],
    ["0.0.0.0", "0.0.0.0"],
    ["255.255.255.255", "255.255.255.255"],
    ["1.2.3.4/32", "1.2.3.4"],
    ["10.1.2.3/8", "10.0.0.0/8"],
    ["192.168.1.77/24", "192.168.1.0/24"],
    ["172.16.5.4/12", "172.16.0.0/12"],
    ["172.31.255.255/12", "172.16.0.0/12"],
    ["1.2.3.4/31", "1.2.3.4/31"],
    ["1.2.3.5/31", "1.2.3.4/31"],
    ["203.0.113.9/0", "0.0.0.0/0"],
    ["0.0.0.0/0", "0.0.0.0/0"],
    ["2001:DB8::1", "2001:db8::1"],
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["::1", "::1"],
    ["::", "::"],
    ["::1/128", "::1"],
    ["2001:db8:abcd:12::1/48", "2001:db8:abcd::/48"],
    ["2001:db8::/32", "2001:db8::/32"],
    ["2001:db8:ffff:ffff::/33", "2001:db8:8000::/33"],
    ["fe80::1/10", "fe80::/10"],
    ["febf::1/10", "fe80::/10"],
    ["ffff::/0", "::/0"],
    ["2001:db8::7/127", "2001:db8::6/127"],
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["::FFFF:1.2.3.4", "1.2.3.4"],
    ["::ffff:102:304", "1.2.3.4"],
    ["0:0:0:0:0:ffff:1.2.3.4", "1.2.3.4"],
    ["::ffff:1.2.3.4/128", "1.2.3.4"],
    ["::ffff:10.9.8.7/104", "10.0.0.0/8"],
    ["::ffff:0:0/96", "0.0.0.0/0"],
    ["::ffff:1.2.3.4/120", "1.2.3.0/24"],
  ];
  for (const [input, expected] of cases) {
    await t.step(`${input} -> ${expected}`, () => {
      assert.deepEqual(normalizeAllowlist([input]), [expected]);
    });
  }
});

Deno.test("normalizeAllowlist() dedupes after normalising, keeping first-seen order", async (t) => {
  const cases: [string, string[], string[]][] = [
    ["exact duplicates", ["1.2.3.4", "1.2.3.4"], ["1.2.3.4"]],
    ["address and /32", ["1.2.3.4/32", "1.2.3.4"], ["1.2.3.4"]],
    ["mapped and plain", ["::ffff:1.2.3.4", "1.2.3.4"], ["1.2.3.4"]],
    ["same network, different hosts", ["10.1.1.1/8", "10.2.2.2/8", "10.0.0.0/8"], ["10.0.0.0/8"]],
    ["IPv6 spellings", ["2001:DB8::1", "2001:db8:0::1", "2001:db8::1/128"], ["2001:db8::1"]],
    [
      "order kept",
      ["9.9.9.9", "::1", "1.1.1.1/16", "9.9.9.9"],
      ["9.9.9.9", "::1", "1.1.0.0/16"],
    ],
    ["overlapping ranges are kept", ["10.0.0.0/8", "10.1.0.0/16"], ["10.0.0.0/8", "10.1.0.0/16"]],
  ];
  for (const [name, input, expected] of cases) {
    await t.step(name, () => assert.deepEqual(normalizeAllowlist(input), expected));
  }
});

Deno.test("normalizeAllowlist() rejects entries that are not addresses or ranges", async (t) => {
  const bad = [
    "",
    " ",
    "foo",
    "localhost",
    "1.2.3",
    "1.2.3.4.5",
    "256.1.1.1",
    "1.2.3.-1",
    "01.2.3.4",
    "1.2.3.04",
    "0x7f.0.0.1",
    "127.1",
    "2130706433",
    "1.2.3.4/33",
    "1.2.3.4/-1",
    "1.2.3.4/",
    "1.2.3.4/08",
    "1.2.3.4/8/8",
    "1.2.3.4/ 8",
    "1.2.3.4/abc",
    "1.2.3.4/1e1",
    "/8",
    "::1/129",
    "::1/1000",
    "2001:db8::/0032",
    ":::1",
    "1::2::3",
    "2001:db8::g",
    "12345::1",
    "1:2:3:4:5:6:7:8:9",
    "fe80::1%eth0",
    "fe80::1%eth0/64",
    "[::1]",
    "[::1]/128",
    "::ffff:01.2.3.4",
    "::ffff:1.2.3",
    "::ffff:1.2.3.4/95",
    "::ffff:1.2.3.4/129",
    "1.2.3.4:80",
    "1.2.3.4 5.6.7.8",
    "1.2.3.4,5.6.7.8",
    "١.٢.٣.٤",
  ];
  for (const entry of bad) {
    await t.step(JSON.stringify(entry), () => {
      assert.throws(() => normalizeAllowlist(["1.1.1.1", entry]), (e: unknown) => {
        assert.ok(e instanceof RangeError);
        assert.equal(e.message, `Invalid IP address or CIDR range: ${JSON.stringify(entry)}`);
        return true;
      });
    });
  }
});

Deno.test("normalizeAllowlist() rejects wrong shapes and oversize lists", async (t) => {
  const typeErrors: [string, unknown][] = [
    ["string", "1.2.3.4"],
    ["number", 42],
    ["object", { 0: "1.2.3.4", length: 1 }],
    ["true", true],
    ["number entry", [1]],
    ["null entry", ["1.2.3.4", null]],
    ["nested array", [["1.2.3.4"]]],
    ["object entry", [{ ip: "1.2.3.4" }]],
  ];
  for (const [name, input] of typeErrors) {
    await t.step(`TypeError: ${name}`, () => {
      assert.throws(() => normalizeAllowlist(input), TypeError);
    });
  }
  const hundred = Array.from({ length: MAX_ALLOWLIST_ENTRIES }, (_, i) => `10.0.${i}.1`);
  await t.step("exactly 100 entries is fine", () => {
    assert.equal(normalizeAllowlist(hundred)?.length, 100);
  });
  await t.step("101 entries is a RangeError, even if they would dedupe", () => {
    assert.throws(() => normalizeAllowlist([...hundred, "10.0.0.1"]), RangeError);
    assert.throws(() => normalizeAllowlist(Array(101).fill("1.2.3.4")), RangeError);
  });
  await t.step("output is stable: normalising twice is a no-op", () => {
    const once = normalizeAllowlist(["10.1.2.3/8", "::FFFF:1.2.3.4", "2001:DB8::1/64"]);
    assert.deepEqual(normalizeAllowlist(once), once);
  });
});

Deno.test("parseClientIp() canonicalises client addresses", async (t) => {
  const cases: [string, string | null][] = [
    ["1.2.3.4", "1.2.3.4"],
    [" 1.2.3.4\t", "1.2.3.4"],
    ["1.2.3.4:8080", "1.2.3.4"],
    ["::1", "::1"],
    ["[::1]", "::1"],
    ["[::1]:443", "::1"],
    ["[2001:DB8::1]:65535", "2001:db8::1"],
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    ["fe80::1%eth0", "fe80::1"],
    ["fe80::1%25", "fe80::1"],
    ["[fe80::1%eth0]:80", "fe80::1"],
    ["::ffff:1.2.3.4", "1.2.3.4"],
    ["::FFFF:1.2.3.4", "1.2.3.4"],
    ["::ffff:0102:0304", "1.2.3.4"],
    ["[::ffff:1.2.3.4]:80", "1.2.3.4"],
    ["0.0.0.0", "0.0.0.0"],
    // junk
    ["", null],
    ["unknown", null],
    ["1.2.3", null],
    ["01.2.3.4", null],
    ["256.0.0.1", null],
    ["127.1", null],
    ["0x7f000001", null],
    ["1.2.3.4%eth0", null],
    ["fe80::1%", null],
    ["[1.2.3.4]", null],
    ["[::1", null],
    ["::1]", null],
    ["[::1]:", null],
    ["[::1]:abc", null],
    ["1.2.3.4:", null],
    ["1.2.3.4:80:80", null],
    ["::g", null],
    ["1.2.3.4/32", null],
    ["1.2.3.4, 5.6.7.8", null],
  ];
  for (const [input, expected] of cases) {
    await t.step(`${JSON.stringify(input)} -> ${expected}`, () => {
      assert.equal(parseClientIp(input), expected);
    });
  }
  await t.step("non-string is a TypeError", () => {
    assert.throws(() => parseClientIp(null as unknown as string), TypeError);
  });
});

Deno.test("compileAllowlist() matchers", async (t) => {
  const cases: [string, string[], [string, boolean][]][] = [
    ["empty list matches nothing", [], [["1.2.3.4", false], ["::1", false]]],
    ["single IPv4", ["1.2.3.4"], [
      ["1.2.3.4", true],
      ["1.2.3.5", false],
      ["::ffff:1.2.3.4", true],
      ["[::ffff:1.2.3.4]:1234", true],
      ["::ffff:102:304", true],
      ["1.2.3.4:80", true],
      ["::1.2.3.4", true], // ipaddr.js reads deprecated IPv4-compatible as mapped
      ["64:ff9b::1.2.3.4", false], // NAT64 is not IPv4
      ["::102:304", false],
    ]],
    ["IPv4 /8", ["10.0.0.0/8"], [
      ["10.0.0.0", true],
      ["10.255.255.255", true],
      ["10.1.2.3", true],
      ["9.255.255.255", false],
      ["11.0.0.0", false],
      ["::ffff:10.9.9.9", true],
      ["::ffff:11.0.0.0", false],
    ]],
    ["IPv4 /31 boundaries", ["192.0.2.6/31"], [
      ["192.0.2.5", false],
      ["192.0.2.6", true],
      ["192.0.2.7", true],
      ["192.0.2.8", false],
    ]],
    ["IPv4 /1 boundaries", ["128.0.0.0/1"], [
      ["127.255.255.255", false],
      ["128.0.0.0", true],
      ["255.255.255.255", true],
    ]],
    ["IPv4 /0 matches all IPv4 but no IPv6", ["0.0.0.0/0"], [
      ["0.0.0.0", true],
      ["255.255.255.255", true],
      ["::ffff:8.8.8.8", true],
      ["::1", false],
      ["2001:db8::1", false],
    ]],
    ["IPv6 /0 matches all IPv6 but no IPv4", ["::/0"], [
      ["::", true],
      ["::1", true],
      ["ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", true],
      ["1.2.3.4", false],
      ["::ffff:1.2.3.4", false],
    ]],
    ["IPv6 /128", ["2001:db8::1/128"], [
      ["2001:db8::1", true],
      ["2001:DB8:0:0:0:0:0:1", true],
      ["[2001:db8::1]:443", true],
      ["2001:db8::1%eth0", true],
      ["2001:db8::2", false],
      ["2001:db8::", false],
      ["2001:db8:0:0:0:0:1:1", false],
    ]],
    ["IPv6 /32", ["2001:db8::/32"], [
      ["2001:db8::", true],
      ["2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", true],
      ["2001:db9::", false],
      ["2001:db7:ffff::", false],
    ]],
    ["IPv6 /33, /64, /65, /127 word and bit boundaries", [
      "2001:db8:8000::/33",
      "2001:db8:1:2::/64",
      "2001:db8:3:4:8000::/65",
      "2001:db8::6/127",
    ], [
      ["2001:db8:8000::1", true],
      ["2001:db8:7fff::1", false],
      ["2001:db8:1:2:ffff:ffff:ffff:ffff", true],
      ["2001:db8:1:3::", false],
      ["2001:db8:3:4:8000::1", true],
      ["2001:db8:3:4:7fff::1", false],
      ["2001:db8::6", true],
      ["2001:db8::7", true],
      ["2001:db8::8", false],
      ["2001:db8::5", false],
    ]],
    ["mapped rule matches IPv4 clients", ["::ffff:10.0.0.0/104"], [
      ["10.200.0.1", true],
      ["::ffff:10.200.0.1", true],
      ["11.0.0.1", false],
    ]],
    ["mixed v4 and v6 rules", ["203.0.113.0/24", "2001:db8::/48", "198.51.100.7"], [
      ["203.0.113.200", true],
      ["198.51.100.7", true],
      ["198.51.100.8", false],
      ["2001:db8:0:ffff::1", true],
      ["2001:db8:1::1", false],
    ]],
    ["unnormalised entries are accepted", ["10.1.2.3/8", " ::FFFF:1.2.3.4 "], [
      ["10.9.9.9", true],
      ["1.2.3.4", true],
    ]],
    ["garbage never matches, even with allow-all rules", ["0.0.0.0/0", "::/0"], [
      ["", false],
      ["garbage", false],
      ["1.2.3", false],
      ["01.2.3.4", false],
      ["1.2.3.4/8", false],
      ["[1.2.3.4]", false],
      ["::g", false],
      [null as unknown as string, false],
      [123 as unknown as string, false],
    ]],
  ];
  for (const [name, list, probes] of cases) {
    await t.step(name, async (t2) => {
      const allowed = compileAllowlist(list);
      for (const [ip, expected] of probes) {
        await t2.step(`${String(ip)} -> ${expected}`, () => assert.equal(allowed(ip), expected));
      }
    });
  }
  await t.step("bad entries throw at compile time", () => {
    assert.throws(() => compileAllowlist(["10.0.0.0/33"]), RangeError);
    assert.throws(() => compileAllowlist(["nope"]), RangeError);
    assert.throws(() => compileAllowlist([1 as unknown as string]), TypeError);
    assert.throws(() => compileAllowlist("1.2.3.4" as unknown as string[]), TypeError);
  });
  await t.step("agrees with ipaddr.js on random IPv4 probes", async () => {
    const { default: ipaddr } = await import("ipaddr.js");
    const rules = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "1.2.3.4"];
    const allowed = compileAllowlist(rules);
    const parsed = rules.map((r) => r.includes("/") ? ipaddr.IPv4.parseCIDR(r) : null);
    for (let i = 0; i < 5000; i++) {
      const b = crypto.getRandomValues(new Uint8Array(4));
      // Bias half the probes into the private ranges.
      if (i % 2) b[0] = [10, 172, 192, 100, 1][i % 5];
      const ip = [...b].join(".");
      const addr = ipaddr.IPv4.parse(ip);
      const expected = ip === "1.2.3.4" ||
        parsed.some((p) => p !== null && addr.match(p[0] as typeof addr, p[1]));
      assert.equal(allowed(ip), expected, ip);
    }
  });
});
