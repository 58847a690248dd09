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

Deno.test("LruMap keeps every entry used within the last capacity/2 insertions", () => {
  const m = new LruMap<number, number>(100);
  for (let i = 0; i < 100; i++) m.set(i, i);
  // Key 0 is the oldest; use it, then insert 50 more: it must survive, 1..50 must go.
  assert.equal(m.get(0), 0);
  for (let i = 100; i < 150; i++) {
    m.set(i, i);
    assert.equal(m.get(0), 0, `after inserting ${i}`);
  }
  assert.equal(m.size, 100);
  for (let i = 1; i <= 50; i++) assert.equal(m.get(i), undefined, `key ${i} evicted`);
  for (let i = 51; i < 150; i++) assert.equal(m.get(i), i);
});
