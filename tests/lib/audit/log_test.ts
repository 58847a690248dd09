import assert from "node:assert/strict";
import { addAudit, listAudit, recordAudit } from "../../../lib/audit/log.ts";

const origin = { ip: "192.0.2.1", user_agent: "curl/8" };

Deno.test("recordAudit() stores entries; listAudit() answers them newest first", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const t0 = Date.UTC(2026, 0, 1);
    await recordAudit(kv, "u1", t0, "sign_in", origin);
    await recordAudit(kv, "u1", t0 + 1000, "password_changed", origin, { tokens: 2 });
    await recordAudit(kv, "u2", t0 + 2000, "sign_in", origin);
    const { entries, cursor } = await listAudit(kv, "u1");
    assert.equal(cursor, null);
    assert.deepEqual(entries.map((e) => e.event), ["password_changed", "sign_in"]);
    assert.equal(entries[0].at, new Date(t0 + 1000).toISOString());
    assert.deepEqual(entries[0].details, { tokens: 2 });
    assert.equal(entries[0].ip, "192.0.2.1");
    assert.equal(entries[0].user_agent, "curl/8");
    assert.match(entries[0].id, /^[0-9a-f-]{36}$/);
  } finally {
    kv.close();
  }
});

Deno.test("addAudit() lands with the atomic op and truncates long user agents", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const op = kv.atomic().set(["other"], 1);
    addAudit(op, "u1", 1000, "token_created", { ip: null, user_agent: "x".repeat(1000) });
    assert.equal((await listAudit(kv, "u1")).entries.length, 0, "nothing before commit");
    await op.commit();
    const [e] = (await listAudit(kv, "u1")).entries;
    assert.equal(e.user_agent!.length, 300);
    assert.equal(e.ip, null);
  } finally {
    kv.close();
  }
});

Deno.test("listAudit() pages with a cursor and refuses a bad one", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    for (let i = 0; i < 5; i++) await recordAudit(kv, "u1", 1000 + i, "sign_in", origin, { i });
    const first = await listAudit(kv, "u1", { limit: 2 });
    assert.deepEqual(first.entries.map((e) => e.details.i), [4, 3]);
    assert.ok(first.cursor);
    const second = await listAudit(kv, "u1", { limit: 2, cursor: first.cursor! });
    assert.deepEqual(second.entries.map((e) => e.details.i), [2, 1]);
    const third = await listAudit(kv, "u1", { limit: 2, cursor: second.cursor! });
    assert.deepEqual(third.entries.map((e) => e.details.i), [0]);
    assert.equal(third.cursor, null);
    await assert.rejects(() => listAudit(kv, "u1", { cursor: "!!not-a-cursor!!" }), RangeError);
    assert.equal((await listAudit(kv, "u1", { limit: 0 })).entries.length, 1, "limit clamps to 1");
  } finally {
    kv.close();
  }
});
