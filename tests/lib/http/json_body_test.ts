import assert from "node:assert/strict";
import { readBodyText, readJson, validateBody } from "../../../lib/http/json_body.ts";
import { HttpError } from "../../../lib/http/errors.ts";

const kind = (k: string, field?: string) => (e: unknown) =>
  e instanceof HttpError && e.kind === k && (field === undefined || e.message.includes(field));

const post = (body: BodyInit | null, headers: Record<string, string> = {}) =>
  new Request("http://x/", { method: "POST", body, headers });

Deno.test("readJson() parses JSON bodies; an empty body is undefined", async (t) => {
  const cases: [string, Request, unknown][] = [
    ["object", post('{"a":1}', { "content-type": "application/json" }), { a: 1 }],
    ["charset", post("[1]", { "content-type": "application/json; charset=utf-8" }), [1]],
    ["+json", post("true", { "content-type": "application/merge-patch+json" }), true],
    ["no content-type", post(new TextEncoder().encode('{"a":1}')), { a: 1 }],
    ["empty", post(null), undefined],
    ["whitespace", post("  \n", { "content-type": "text/plain" }), undefined],
  ];
  for (const [name, req, want] of cases) {
    await t.step(name, async () => assert.deepEqual(await readJson(req, 1024), want));
  }
});

Deno.test("readJson() refuses bad bodies with the right error", async (t) => {
  const cases: [string, Request, (e: unknown) => boolean][] = [
    ["malformed", post("{", { "content-type": "application/json" }), kind("invalid_json")],
    [
      "trailing garbage",
      post('{"a":1} x', { "content-type": "application/json" }),
      kind("invalid_json"),
    ],
    ["string body gets text/plain", post('{"a":1}'), kind("unsupported_media_type")],
    ["not UTF-8", post(new Uint8Array([0x7b, 0xff, 0x7d])), kind("invalid_json")],
    ["text/plain", post("{}", { "content-type": "text/plain" }), kind("unsupported_media_type")],
    [
      "form",
      post("a=1", { "content-type": "application/x-www-form-urlencoded" }),
      kind("unsupported_media_type"),
    ],
    ["too large", post("x".repeat(2000)), kind("payload_too_large")],
    ["declared too large", post("{}", { "content-length": "999999" }), kind("payload_too_large")],
  ];
  for (const [name, req, check] of cases) {
    await t.step(name, async () => await assert.rejects(() => readJson(req, 1024), check));
  }
});

Deno.test("readBodyText() stops reading a stream past the cap", async () => {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      pulled++;
      c.enqueue(new Uint8Array(512));
      if (pulled > 1000) c.close();
    },
  });
  const req = new Request("http://x/", { method: "POST", body: stream });
  await assert.rejects(() => readBodyText(req, 2048), kind("payload_too_large"));
  assert.ok(pulled < 20, `read ${pulled} chunks`);
});

Deno.test("validateBody() checks presence, types and unknown fields, naming the field", async (t) => {
  const schema = {
    name: { type: "string", min: 1, max: 5 },
    n: { type: "integer", optional: true, min: 1, max: 9 },
    flag: { type: "boolean", optional: true },
    list: { type: "string[]", optional: true, nullable: true, maxItems: 2 },
    obj: { type: "object", optional: true },
  } as const;
  assert.deepEqual(validateBody({ name: "ab" }, schema), { name: "ab" });
  assert.deepEqual(
    validateBody({ name: "ab", n: 3, flag: false, list: null, obj: {} }, schema),
    { name: "ab", n: 3, flag: false, list: null, obj: {} },
  );
  const cases: [string, unknown, (e: unknown) => boolean][] = [
    ["not an object", [1], kind("invalid_request", "JSON object")],
    ["string body", "x", kind("invalid_request", "JSON object")],
    ["null body", null, kind("invalid_request", "JSON object")],
    ["missing", {}, kind("invalid_request", '"name"')],
    ["wrong type", { name: 5 }, kind("invalid_request", '"name"')],
    ["null not allowed", { name: null }, kind("invalid_request", '"name"')],
    ["too short", { name: "" }, kind("invalid_request", '"name"')],
    ["too long", { name: "abcdef" }, kind("invalid_request", '"name"')],
    ["fraction", { name: "a", n: 1.5 }, kind("invalid_request", '"n"')],
    ["integer as string", { name: "a", n: "1" }, kind("invalid_request", '"n"')],
    ["integer too big", { name: "a", n: 10 }, kind("invalid_request", '"n"')],
    ["boolean as string", { name: "a", flag: "true" }, kind("invalid_request", '"flag"')],
    ["list of numbers", { name: "a", list: [1] }, kind("invalid_request", '"list"')],
    ["list too long", { name: "a", list: ["a", "b", "c"] }, kind("invalid_request", '"list"')],
    ["object as array", { name: "a", obj: [] }, kind("invalid_request", '"obj"')],
    ["unknown field", { name: "a", extra: 1 }, kind("unknown_field", '"extra"')],
    ["__proto__", JSON.parse('{"name":"a","__proto__":{}}'), kind("unknown_field", "__proto__")],
  ];
  for (const [name, body, check] of cases) {
    await t.step(name, () => assert.throws(() => validateBody(body, schema), check));
  }
  await t.step("unknown field carries field in data", () => {
    try {
      validateBody({ name: "a", zzz: 1 }, schema);
      assert.fail("no throw");
    } catch (e) {
      assert.ok(e instanceof HttpError);
      assert.deepEqual(e.data, { field: "zzz" });
    }
  });
  await t.step("unknownMessage", () => {
    assert.throws(
      () => validateBody({ name: "a", scopes: [] }, schema, (f) => `${f} cannot be edited`),
      (e) => e instanceof HttpError && e.message === "scopes cannot be edited",
    );
  });
});
