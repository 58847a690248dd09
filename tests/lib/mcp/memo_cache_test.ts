import assert from "node:assert/strict";
import { ManualClock } from "../../../lib/clock.ts";
import { MemoCache } from "../../../lib/mcp/memo_cache.ts";

Deno.test("MemoCache loads once per key, expires, evicts and forgets on invalidate", async () => {
  const clock = new ManualClock(0);
  let loads = 0;
  let release!: () => void;
  let gate = Promise.resolve();
  const cache = new MemoCache<string>(clock, { maxAgeMs: 1000, maxEntries: 2 }, async (k) => {
    loads++;
    await gate;
    return `${k}#${loads}`;
  });
  const [a, b] = await Promise.all([cache.get("a"), cache.get("a")]);
  assert.equal(a, "a#1");
  assert.equal(b, "a#1");
  assert.equal(cache.get("a"), "a#1", "a hit is synchronous");
  clock.advance(1001);
  assert.equal(await cache.get("a"), "a#2", "too old: loaded again");
  await cache.get("b");
  await cache.get("c");
  assert.equal(cache.size, 2);
  assert.equal(cache.peek("a"), undefined, "oldest evicted");
  cache.invalidate("c");
  assert.equal(cache.peek("c"), undefined);
  // A change during a load: the loaded value is answered but not kept.
  gate = new Promise<void>((r) => (release = r));
  const pending = cache.get("d");
  cache.invalidate("d");
  release();
  await pending;
  assert.equal(cache.peek("d"), undefined);
});
