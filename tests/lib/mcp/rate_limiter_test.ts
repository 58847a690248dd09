import assert from "node:assert/strict";
import { ManualClock } from "../../../lib/clock.ts";
import { RateLimiter } from "../../../lib/mcp/rate_limiter.ts";

const RULE = { limit: 10, window: "minute" } as const;

Deno.test("hit() admits exactly `limit` per window on one instance, then reports the window", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 20));
  const rl = new RateLimiter(kv, clock);
  for (let i = 0; i < 10; i++) assert.equal(rl.hit("u", "s", RULE), null);
  assert.deepEqual(rl.hit("u", "s", RULE), {
    limit: 10,
    resetAt: Date.UTC(2026, 0, 1, 12, 1, 0) / 1000,
    retryAfter: 40,
    windowType: "minute",
  });
  assert.equal(rl.hit("other-user", "s", RULE), null, "per user");
  assert.equal(rl.hit("u", "other-server", RULE), null, "per server");
  clock.advance(40_000);
  assert.equal(rl.hit("u", "s", RULE), null, "a new window starts empty");
  const hour = rl.hit("u", "s", { limit: 1, window: "hour" });
  assert.equal(hour, null);
  assert.equal(rl.hit("u", "s", { limit: 1, window: "hour" })?.windowType, "hour");
  rl.stop();
  kv.close();
});

Deno.test("several instances sharing one KV converge through batched flushes", async (t) => {
  const kv = await Deno.openKv(":memory:");
  const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 0));
  const a = new RateLimiter(kv, clock);
  const b = new RateLimiter(kv, clock);
  const c = new RateLimiter(kv, clock);
  await t.step("flushing between requests: never over the limit", async () => {
    let admitted = 0;
    for (let i = 0; i < 30; i++) {
      const rl = [a, b, c][i % 3];
      if (rl.hit("u", "s", RULE) === null) admitted++;
      await rl.flush();
      await Promise.all([a.flush(), b.flush(), c.flush()]);
    }
    assert.equal(admitted, 10);
  });
  await t.step(
    "between flushes: overshoot bounded by what the others admit in one interval",
    async () => {
      clock.advance(60_000);
      let admitted = 0;
      for (let round = 0; round < 5; round++) {
        // Each instance admits up to 2 requests per flush interval.
        for (const rl of [a, b, c]) {
          for (let i = 0; i < 2; i++) if (rl.hit("u", "s", RULE) === null) admitted++;
        }
        await Promise.all([a.flush(), b.flush(), c.flush()]);
        await Promise.all([a.flush(), b.flush(), c.flush()]);
      }
      assert.ok(admitted >= 10, `admitted ${admitted}`);
      assert.ok(admitted <= 10 + (3 - 1) * 2, `admitted ${admitted}`);
    },
  );
  await t.step("one atomic sum per key per flush: the KV total is exact", async () => {
    clock.advance(60_000);
    for (let i = 0; i < 7; i++) a.hit("v", "s", RULE);
    for (let i = 0; i < 2; i++) b.hit("v", "s", RULE);
    await Promise.all([a.flush(), b.flush()]);
    await c.flush();
    assert.equal(c.hit("v", "s", { limit: 10, window: "minute" }), null); // learns 9 at next flush
    await c.flush();
    assert.notEqual(c.hit("v", "s", RULE), null, "c knows a and b used 9, plus its own 1");
  });
  for (const rl of [a, b, c]) rl.stop();
  kv.close();
});
