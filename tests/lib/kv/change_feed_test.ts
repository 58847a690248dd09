import assert from "node:assert/strict";
import { type Change, ChangeFeed } from "../../../lib/kv/change_feed.ts";
import { ManualClock } from "../../../lib/clock.ts";
import { changePrefix } from "../../../lib/kv/keys.ts";

const change = (slug: string): Change => ({ kind: "server", id: `id-${slug}`, slug });

async function listChanges(kv: Deno.Kv): Promise<Change[]> {
  const out: Change[] = [];
  for await (const e of kv.list<Change>({ prefix: changePrefix() })) out.push(e.value);
  return out;
}

Deno.test("ChangeFeed.commit() writes the entries with the op and applies them locally", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const feed = new ChangeFeed(kv, new ManualClock());
    const seen: Change[] = [];
    feed.subscribe((c) => seen.push(c));
    const res = await feed.commit(kv.atomic().set(["x"], 1), [change("a"), change("b")]);
    assert.equal(res.ok, true);
    assert.deepEqual(seen, [change("a"), change("b")]);
    assert.equal((await kv.get(["x"])).value, 1);
    assert.equal((await listChanges(kv)).length, 2);
    // A poll of the same feed does not apply its own entries a second time.
    await feed.poll();
    assert.equal(seen.length, 2);
  } finally {
    kv.close();
  }
});

Deno.test("ChangeFeed.commit() applies nothing and writes nothing when the check fails", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    await kv.set(["x"], 1);
    const feed = new ChangeFeed(kv, new ManualClock());
    const seen: Change[] = [];
    feed.subscribe((c) => seen.push(c));
    const res = await feed.commit(
      kv.atomic().check({ key: ["x"], versionstamp: null }).set(["x"], 2),
      [change("a")],
    );
    assert.equal(res.ok, false);
    assert.deepEqual(seen, []);
    assert.deepEqual(await listChanges(kv), []);
    assert.equal((await kv.get(["x"])).value, 1);
  } finally {
    kv.close();
  }
});

Deno.test("ChangeFeed.poll() lets a second instance on the same KV see a change once", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = new ManualClock();
    const a = new ChangeFeed(kv, clock);
    const b = new ChangeFeed(kv, clock);
    const seenByB: Change[] = [];
    b.subscribe((c) => seenByB.push(c));
    await a.commit(kv.atomic(), [change("demo")]);
    assert.deepEqual(seenByB, [], "b sees nothing before it polls");
    await b.poll();
    assert.deepEqual(seenByB, [change("demo")]);
    await b.poll();
    assert.deepEqual(seenByB, [change("demo")], "an entry is applied once");
    await a.commit(kv.atomic(), [change("labs")]);
    await b.poll();
    assert.deepEqual(seenByB, [change("demo"), change("labs")]);
  } finally {
    kv.close();
  }
});

Deno.test("ChangeFeed.start() polls by itself until stop()", async () => {
  const kv = await Deno.openKv(":memory:");
  const b = new ChangeFeed(kv);
  try {
    const a = new ChangeFeed(kv);
    const { promise, resolve } = Promise.withResolvers<Change>();
    b.subscribe(resolve);
    b.start(10);
    await a.commit(kv.atomic(), [change("x")]);
    const got = await Promise.race([
      promise,
      new Promise<null>((r) => setTimeout(() => r(null), 2000)),
    ]);
    assert.deepEqual(got, change("x"));
  } finally {
    b.stop();
    kv.close();
  }
});

Deno.test("ChangeFeed entries expire: an instance ignores entries older than its look-back", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const clock = new ManualClock();
    const a = new ChangeFeed(kv, clock);
    await a.commit(kv.atomic(), [change("old")]);
    clock.advance(60_000);
    const b = new ChangeFeed(kv, clock);
    const seen: Change[] = [];
    b.subscribe((c) => seen.push(c));
    await b.poll();
    assert.deepEqual(seen, [], "a stale entry is not applied");
    await a.commit(kv.atomic(), [change("new")]);
    await b.poll();
    assert.deepEqual(seen, [change("new")]);
  } finally {
    kv.close();
  }
});

Deno.test("ChangeFeed: a failing listener does not stop the others; unsubscribe works", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const feed = new ChangeFeed(kv, new ManualClock());
    const seen: string[] = [];
    feed.subscribe(() => {
      throw new Error("boom");
    });
    const off = feed.subscribe((c) => seen.push(c.kind));
    await feed.commit(kv.atomic(), [change("a")]);
    off();
    await feed.commit(kv.atomic(), [change("b")]);
    assert.deepEqual(seen, ["server"]);
  } finally {
    kv.close();
  }
});

Deno.test("ChangeFeed.poll() on a closed KV does not throw", async () => {
  const kv = await Deno.openKv(":memory:");
  const feed = new ChangeFeed(kv, new ManualClock());
  kv.close();
  await feed.poll();
});
