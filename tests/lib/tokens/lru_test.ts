/** LruMap: bounded, evicts the least recently used. */
import assert from "node:assert/strict";
import { LruMap } from "../../../lib/tokens/lru.ts";

Deno.test("LruMap evicts the least recently used beyond capacity", () => {
  const m = new LruMap<string, number>(2);
  m.set("a", 1);
  m.set("b", 2);
  assert.equal(m.get("a"), 1); // a is now the most recent
  m.set("c", 3);
  assert.equal(m.get("b"), undefined);
  assert.equal(m.get("a"), 1);
  assert.equal(m.get("c"), 3);
  assert.equal(m.size, 2);
  m.deleteWhere((v) => v === 3);
  assert.equal(m.size, 1);
  assert.ok(m.delete("a"));
  assert.equal(m.size, 0);
});

Deno.test("LruMap refuses a capacity that is not a positive integer", async (t) => {
  for (const c of [0, -1, 1.5, NaN]) {
    await t.step(String(c), () => assert.throws(() => new LruMap(c), RangeError));
  }
});
