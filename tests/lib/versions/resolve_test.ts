import assert from "node:assert/strict";
import {
  compareVersions,
  type DeployedVersion,
  isValidVersion,
  latestLiveVersion,
  parseVersionPath,
  resolveVersion,
  type VersionPattern,
} from "../../../lib/versions/resolve.ts";

Deno.test("isValidVersion() accepts strict SemVer without build metadata", async (t) => {
  const cases: [string, boolean][] = [
    ["0.0.0", true],
    ["1.2.3", true],
    ["10.20.30", true],
    ["1.2.3-beta", true],
    ["1.2.3-beta.1", true],
    ["1.2.3-0", true],
    ["1.2.3-0a", true],
    ["1.2.3-alpha-1.x-y", true],
    ["9007199254740991.0.0", true],
    ["", false],
    ["1", false],
    ["1.2", false],
    ["1.2.3.4", false],
    ["v1.2.3", false],
    ["V1.2.3", false],
    ["=1.2.3", false],
    [" 1.2.3", false],
    ["1.2.3 ", false],
    ["01.2.3", false],
    ["1.02.3", false],
    ["1.2.03", false],
    ["1.2.3-01", false],
    ["1.2.3-beta.01", false],
    ["1.2.3-", false],
    ["1.2.3-a..b", false],
    ["1.2.3+build", false],
    ["1.2.3-beta+build.5", false],
    ["1.2.x", false],
    ["^1.2.3", false],
    ["-1.2.3", false],
    ["9007199254740992.0.0", false],
    ["1.2.3-béta", false],
  ];
  for (const [v, ok] of cases) {
    await t.step(`${JSON.stringify(v)} -> ${ok}`, () => assert.equal(isValidVersion(v), ok));
  }
  await t.step("non-strings are invalid, not an error", () => {
    for (const v of [null, undefined, 1, {}, ["1.2.3"]]) {
      assert.equal(isValidVersion(v as unknown as string), false);
    }
  });
});

Deno.test("compareVersions() follows SemVer precedence", async (t) => {
  const cases: [string, string, -1 | 0 | 1][] = [
    ["1.0.0", "1.0.0", 0],
    ["1.0.0", "2.0.0", -1],
    ["2.0.0", "1.0.0", 1],
    ["1.2.0", "1.10.0", -1],
    ["1.0.9", "1.0.10", -1],
    ["1.0.0-alpha", "1.0.0", -1],
    ["1.0.0-alpha", "1.0.0-alpha.1", -1],
    ["1.0.0-alpha.1", "1.0.0-alpha.beta", -1],
    ["1.0.0-beta.2", "1.0.0-beta.11", -1],
    ["1.0.0-rc.1", "1.0.0-beta.11", 1],
    ["0.9.9", "1.0.0-alpha", -1],
  ];
  for (const [a, b, expected] of cases) {
    await t.step(`${a} vs ${b}`, () => {
      assert.equal(compareVersions(a, b), expected);
      assert.equal(compareVersions(b, a), -expected || 0);
    });
  }
  await t.step("sorting", () => {
    const sorted = ["2.0.0", "1.0.0-rc.1", "1.10.0", "1.2.0", "1.0.0"].sort(compareVersions);
    assert.deepEqual(sorted, ["1.0.0-rc.1", "1.0.0", "1.2.0", "1.10.0", "2.0.0"]);
  });
  await t.step("invalid input throws", () => {
    assert.throws(() => compareVersions("v1.0.0", "1.0.0"), RangeError);
    assert.throws(() => compareVersions("1.0.0", "1.0.0+b"), RangeError);
    assert.throws(() => compareVersions(1 as unknown as string, "1.0.0"), TypeError);
  });
});

Deno.test("parseVersionPath() recognises the four URL shapes", async (t) => {
  const cases: [string, VersionPattern | null][] = [
    ["", { kind: "latest" }],
    ["/", { kind: "latest" }],
    ["/v0", { kind: "major", major: 0 }],
    ["/v1", { kind: "major", major: 1 }],
    ["/v1/", { kind: "major", major: 1 }],
    ["/v12", { kind: "major", major: 12 }],
    ["/v1.2", { kind: "minor", major: 1, minor: 2 }],
    ["/v1.2/", { kind: "minor", major: 1, minor: 2 }],
    ["/v0.0", { kind: "minor", major: 0, minor: 0 }],
    ["/v10.20", { kind: "minor", major: 10, minor: 20 }],
    ["/v1.2.3", { kind: "exact", version: "1.2.3" }],
    ["/v1.2.3/", { kind: "exact", version: "1.2.3" }],
    ["/v0.0.0", { kind: "exact", version: "0.0.0" }],
    ["/v1.2.3-beta.1", { kind: "exact", version: "1.2.3-beta.1" }],
    ["/v1.2.3-rc-1/", { kind: "exact", version: "1.2.3-rc-1" }],
    // not a version path
    ["//", null],
    ["/v", null],
    ["/v/", null],
    ["/v.", null],
    ["/vx", null],
    ["/v01", null],
    ["/v1.02", null],
    ["/v01.2.3", null],
    ["/v1.2.03", null],
    ["/v1.", null],
    ["/v1.2.", null],
    ["/v1.2.3.", null],
    ["/v1.2.3.4", null],
    ["/v1.2.3-", null],
    ["/v1.2.3-beta.01", null],
    ["/v1.2.3+build", null],
    ["/v1.2.3-beta+build", null],
    ["/v-1", null],
    ["/v1.x", null],
    ["/v1.2.x", null],
    ["/v^1.2.3", null],
    ["/V1", null],
    ["/1.2.3", null],
    ["/version1", null],
    ["/foo", null],
    ["v1", null],
    ["v1.2.3", null],
    ["/v1//", null],
    ["/v1/mcp", null],
    ["/v1.2.3/extra", null],
    ["/v 1", null],
    ["/v1 ", null],
    ["/v1?x=1", null],
    ["/v99999999999999999999", null],
    ["/v1.99999999999999999999", null],
    ["/v9007199254740992.0.0", null],
  ];
  for (const [path, expected] of cases) {
    await t.step(
      `${JSON.stringify(path)}`,
      () => assert.deepEqual(parseVersionPath(path), expected),
    );
  }
  await t.step("non-string is a TypeError", () => {
    assert.throws(() => parseVersionPath(null as unknown as string), TypeError);
  });
});

/** Builds a deploy history from "1.0.0" (live) and "!1.1.0" (not live) strings. */
function history(...specs: string[]): DeployedVersion[] {
  return specs.map((s) =>
    s.startsWith("!") ? { version: s.slice(1), live: false } : {
      version: s,
      live: true,
    }
  );
}

Deno.test("resolveVersion() over deploy histories", async (t) => {
  const P = (path: string) => {
    const p = parseVersionPath(path);
    assert.ok(p, `test bug: ${path} does not parse`);
    return p;
  };
  const cases: [string, DeployedVersion[], [string, string | null][]][] = [
    ["typical history", history("1.0.0", "!1.1.0", "1.1.1", "2.0.0"), [
      ["/", "2.0.0"],
      ["/v1", "1.1.1"],
      ["/v2", "2.0.0"],
      ["/v3", null],
      ["/v0", null],
      ["/v1.0", "1.0.0"],
      ["/v1.1", "1.1.1"],
      ["/v1.2", null],
      ["/v2.0", "2.0.0"],
      ["/v1.0.0", "1.0.0"],
      ["/v1.1.0", null], // exact but not live: 404, never a neighbour
      ["/v1.1.1", "1.1.1"],
      ["/v1.0.1", null],
      ["/v2.0.0", "2.0.0"],
    ]],
    ["exact never moves to a newer version", history("1.2.3", "1.3.0", "1.2.4"), [
      ["/v1.2.3", "1.2.3"],
      ["/v1.2", "1.2.4"],
      ["/v1", "1.3.0"],
    ]],
    ["exact of a non-live version is null", history("!1.2.3", "1.3.0"), [
      ["/v1.2.3", null],
      ["/v1.2", null],
      ["/v1", "1.3.0"],
      ["/", "1.3.0"],
    ]],
    ["empty history", [], [
      ["/", null],
      ["/v1", null],
      ["/v1.0", null],
      ["/v1.0.0", null],
    ]],
    ["nothing live", history("!1.0.0", "!2.0.0"), [
      ["/", null],
      ["/v1", null],
      ["/v2.0.0", null],
    ]],
    ["only prereleases live", history("1.0.0-alpha.1", "1.0.0-beta.1", "!1.0.0-beta.2"), [
      ["/", null],
      ["/v1", null],
      ["/v1.0", null],
      ["/v1.0.0", null],
      ["/v1.0.0-beta.1", "1.0.0-beta.1"],
      ["/v1.0.0-alpha.1", "1.0.0-alpha.1"],
      ["/v1.0.0-beta.2", null],
      ["/v1.0.0-rc.1", null],
    ]],
    [
      "prerelease of a newer version does not win ranges",
      history("1.4.2", "1.5.0-rc.1", "2.0.0-beta"),
      [
        ["/", "1.4.2"],
        ["/v1", "1.4.2"],
        ["/v1.5", null],
        ["/v2", null],
        ["/v1.5.0-rc.1", "1.5.0-rc.1"],
        ["/v2.0.0-beta", "2.0.0-beta"],
      ],
    ],
    ["retired major", history("!1.0.0", "!1.9.9", "2.0.0", "2.3.1", "3.0.0"), [
      ["/", "3.0.0"],
      ["/v1", null],
      ["/v1.9", null],
      ["/v1.9.9", null],
      ["/v2", "2.3.1"],
      ["/v2.3", "2.3.1"],
      ["/v3", "3.0.0"],
    ]],
    ["latest version retired: falls back to highest live", history("1.0.0", "1.1.0", "!2.0.0"), [
      ["/", "1.1.0"],
      ["/v2", null],
      ["/v1", "1.1.0"],
    ]],
    ["numeric, not lexical, ordering", history("1.9.0", "1.10.0", "1.2.10", "1.2.9"), [
      ["/", "1.10.0"],
      ["/v1", "1.10.0"],
      ["/v1.2", "1.2.10"],
      ["/v1.9", "1.9.0"],
    ]],
    ["deploy order does not matter", history("3.0.0", "1.0.0", "2.5.0", "2.10.0", "2.9.9"), [
      ["/", "3.0.0"],
      ["/v2", "2.10.0"],
    ]],
    ["major 0", history("0.1.0", "0.2.0", "0.2.1"), [
      ["/", "0.2.1"],
      ["/v0", "0.2.1"],
      ["/v0.1", "0.1.0"],
      ["/v0.0", null],
      ["/v1", null],
    ]],
    ["duplicate entries: any live entry counts", history("!1.0.0", "1.0.0"), [
      ["/v1.0.0", "1.0.0"],
      ["/", "1.0.0"],
    ]],
  ];
  for (const [name, versions, probes] of cases) {
    await t.step(name, async (t2) => {
      for (const [path, expected] of probes) {
        await t2.step(`${path} -> ${expected}`, () => {
          assert.equal(resolveVersion(P(path), versions), expected);
        });
      }
    });
  }

  await t.step("an exact pattern only ever resolves to itself", () => {
    const versions = history("1.2.2", "1.2.3", "1.2.4", "1.3.0", "2.0.0", "1.2.3-rc.1");
    for (const { version } of versions) {
      assert.equal(resolveVersion({ kind: "exact", version }, versions), version);
    }
    for (const v of ["1.2.5", "1.2.3-rc.2", "1.4.0", "0.0.1"]) {
      assert.equal(resolveVersion({ kind: "exact", version: v }, versions), null);
    }
  });

  await t.step("does not mutate or reorder its input", () => {
    const versions = history("2.0.0", "1.0.0", "!3.0.0");
    const copy = structuredClone(versions);
    resolveVersion({ kind: "latest" }, versions);
    assert.deepEqual(versions, copy);
  });
});

Deno.test("resolveVersion() rejects malformed input", async (t) => {
  const ok = history("1.0.0");
  const cases: [string, () => unknown, typeof TypeError | typeof RangeError][] = [
    ["versions not an array", () => resolveVersion({ kind: "latest" }, null as never), TypeError],
    [
      "entry not an object",
      () => resolveVersion({ kind: "latest" }, ["1.0.0"] as never),
      TypeError,
    ],
    [
      "live not boolean",
      () => resolveVersion({ kind: "latest" }, [{ version: "1.0.0" }] as never),
      TypeError,
    ],
    [
      "version not a string",
      () => resolveVersion({ kind: "latest" }, [{ version: 1, live: true }] as never),
      TypeError,
    ],
    [
      "invalid version string",
      () => resolveVersion({ kind: "latest" }, history("v1.0.0")),
      RangeError,
    ],
    ["build metadata", () => resolveVersion({ kind: "latest" }, history("1.0.0+b")), RangeError],
    [
      "invalid even when not live",
      () => resolveVersion({ kind: "latest" }, history("!1.0")),
      RangeError,
    ],
    ["pattern null", () => resolveVersion(null as never, ok), TypeError],
    ["unknown kind", () => resolveVersion({ kind: "newest" } as never, ok), TypeError],
    [
      "major not a number",
      () => resolveVersion({ kind: "major", major: "1" } as never, ok),
      TypeError,
    ],
    ["negative major", () => resolveVersion({ kind: "major", major: -1 }, ok), RangeError],
    [
      "fractional minor",
      () => resolveVersion({ kind: "minor", major: 1, minor: 0.5 }, ok),
      RangeError,
    ],
    ["invalid exact", () => resolveVersion({ kind: "exact", version: "1.0" }, ok), RangeError],
  ];
  for (const [name, fn, err] of cases) {
    await t.step(`${err.name}: ${name}`, () => assert.throws(fn, err));
  }
});

Deno.test("latestLiveVersion() is the highest live non-prerelease version", async (t) => {
  const cases: [string, DeployedVersion[], string | null][] = [
    ["empty", [], null],
    ["single", history("0.0.1"), "0.0.1"],
    ["typical", history("1.0.0", "!1.1.0", "1.1.1", "2.0.0"), "2.0.0"],
    ["newest retired", history("1.0.0", "!2.0.0"), "1.0.0"],
    ["prerelease ignored", history("1.0.0", "2.0.0-rc.1"), "1.0.0"],
    ["only prereleases", history("1.0.0-rc.1"), null],
    ["nothing live", history("!1.0.0"), null],
  ];
  for (const [name, versions, expected] of cases) {
    await t.step(name, () => assert.equal(latestLiveVersion(versions), expected));
  }
});
