import assert from "node:assert/strict";
import { randomUser, testEnv } from "../../helpers.ts";
import {
  FAILURE_WINDOW_MS,
  failureDelayMs,
  MAX_FAILURES_PER_ACCOUNT,
  MAX_FAILURES_PER_IP,
  signIn,
} from "../../../lib/accounts/sign_in.ts";
import { HttpError } from "../../../lib/http/errors.ts";
import type { ManualClock } from "../../../lib/clock.ts";

/** A sleep that records what it was asked to wait and returns at once. */
function fakeSleep() {
  const waits: number[] = [];
  return { waits, sleep: (ms: number) => (waits.push(ms), Promise.resolve()) };
}

const status = (code: number) => (e: unknown) => e instanceof HttpError && e.status === code;

Deno.test("signIn() returns the user for the right password, any email case", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const { sleep, waits } = fakeSleep();
    const got = await signIn(env.deps, u.email.toUpperCase(), "password123", "192.0.2.1", sleep);
    assert.equal(got.id, u.id);
    assert.deepEqual(waits, []);
  } finally {
    env.close();
  }
});

Deno.test("signIn() refuses wrong passwords and unknown accounts alike with 401, slower each time", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const { sleep, waits } = fakeSleep();
    for (let i = 0; i < 3; i++) {
      await assert.rejects(() => signIn(env.deps, u.email, "wrong-password", null, sleep), (e) => {
        assert.ok(e instanceof HttpError);
        assert.equal(e.status, 401);
        assert.equal(e.message, "Wrong email or password");
        return true;
      });
    }
    assert.deepEqual(waits, [failureDelayMs(1), failureDelayMs(2), failureDelayMs(3)]);
    assert.ok(waits[2] > waits[0]);
    await assert.rejects(
      () => signIn(env.deps, "nobody@example.com", "password123", null, sleep),
      (e) => e instanceof HttpError && e.status === 401 && e.message === "Wrong email or password",
    );
    assert.ok(failureDelayMs(1000) <= 2000, "the delay is capped");
  } finally {
    env.close();
  }
});

Deno.test("signIn() locks an account out after too many failures, with Retry-After", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const other = await randomUser(env.deps);
    const { sleep } = fakeSleep();
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT; i++) {
      await assert.rejects(
        () => signIn(env.deps, u.email, "nope-nope", `192.0.2.${i}`, sleep),
        status(401),
      );
    }
    // Now even the right password is refused, from any IP.
    await assert.rejects(
      () => signIn(env.deps, u.email, "password123", "198.51.100.7", sleep),
      (e) => {
        assert.ok(e instanceof HttpError);
        assert.equal(e.status, 429);
        assert.equal(e.kind, "rate_limited");
        const ra = Number(e.headers?.["retry-after"]);
        assert.ok(Number.isInteger(ra) && ra >= 1 && ra <= FAILURE_WINDOW_MS / 1000, `${ra}`);
        return true;
      },
    );
    // Another account is not affected.
    assert.equal(
      (await signIn(env.deps, other.email, "password123", "198.51.100.7", sleep)).id,
      other.id,
    );
  } finally {
    env.close();
  }
});

Deno.test("signIn() counts failures per IP across accounts", async () => {
  const env = await testEnv();
  try {
    const u = await randomUser(env.deps);
    const { sleep } = fakeSleep();
    const ip = "203.0.113.9";
    for (let i = 0; i < MAX_FAILURES_PER_IP; i++) {
      await assert.rejects(
        () => signIn(env.deps, `probe${i}@example.com`, "password123", ip, sleep),
        status(401),
      );
    }
    await assert.rejects(() => signIn(env.deps, u.email, "password123", ip, sleep), status(429));
    // The same account from another IP still signs in: its own count is 0.
    assert.equal((await signIn(env.deps, u.email, "password123", "203.0.113.10", sleep)).id, u.id);
  } finally {
    env.close();
  }
});

Deno.test("signIn() forgets failures when the window rolls over", async () => {
  const env = await testEnv();
  try {
    const clock = env.clock as ManualClock;
    clock.ms = Math.ceil(clock.ms / FAILURE_WINDOW_MS) * FAILURE_WINDOW_MS + 60_000;
    const u = await randomUser(env.deps);
    const { sleep } = fakeSleep();
    for (let i = 0; i < MAX_FAILURES_PER_ACCOUNT; i++) {
      await assert.rejects(() => signIn(env.deps, u.email, "wrong-pass", null, sleep), status(401));
    }
    await assert.rejects(() => signIn(env.deps, u.email, "password123", null, sleep), (e) => {
      assert.ok(e instanceof HttpError && e.status === 429);
      assert.equal(e.headers?.["retry-after"], String(FAILURE_WINDOW_MS / 1000 - 60));
      return true;
    });
    clock.advance(FAILURE_WINDOW_MS - 60_000 - 1);
    await assert.rejects(() => signIn(env.deps, u.email, "password123", null, sleep), (e) => {
      assert.ok(e instanceof HttpError && e.status === 429);
      assert.equal(e.headers?.["retry-after"], "1");
      return true;
    });
    clock.advance(1);
    assert.equal((await signIn(env.deps, u.email, "password123", null, sleep)).id, u.id);
  } finally {
    env.close();
  }
});
