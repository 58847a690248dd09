/** `deno task rotate-token` end to end: a real server, the script run as its own process. */
import assert from "node:assert/strict";
import { freePort, TEST_ITERATIONS } from "../helpers.ts";
import { loadConfig } from "../../lib/config.ts";
import { startToolgate } from "../../lib/start.ts";
import { createUser } from "../../lib/accounts/users.ts";
import { createServer } from "../../lib/servers/servers.ts";
import { createToken, revokeToken } from "../../lib/tokens/lifecycle.ts";
import { lookupSecret } from "../../lib/tokens/lookup.ts";
import { isWellFormedSecret } from "../../lib/tokens/secret.ts";
import type { AppDeps } from "../../lib/context.ts";

const SCRIPT = new URL("../../scripts/rotate_token.ts", import.meta.url).pathname;
const origin = { ip: null, user_agent: null };

async function runScript(args: string[], env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net",
      "--allow-env",
      "--allow-read",
      "--allow-write",
      SCRIPT,
      ...args,
    ],
    env: { NO_COLOR: "1", ...env },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

async function newToken(deps: AppDeps) {
  const user = await createUser(deps, `rot-${crypto.randomUUID()}@example.com`, "password123");
  const server = await createServer(deps, user.id, {
    slug: `rot-${crypto.randomUUID().slice(0, 8)}`,
    name: "Rot",
  });
  const issued = await createToken(deps, user.id, {
    name: "headless",
    server_ids: [server.id],
    expires_in_days: 30,
  }, origin);
  return { user, ...issued };
}

Deno.test("rotate-token rewrites the token file atomically and prints only the prefix", async (t) => {
  const config = loadConfig({ PORT: String(freePort()), SEED_DEMO: "false", KV_PATH: ":memory:" });
  const running = await startToolgate(config, {
    log: () => {},
    passwordIterations: TEST_ITERATIONS,
  });
  const deps = running.deps;
  const api = running.listenUrl;
  const dir = await Deno.makeTempDir();
  const works = async (s: string) => (await lookupSecret(deps.kv, s, Date.now())).ok;
  const leftovers = async () => {
    const names = [];
    for await (const e of Deno.readDir(dir)) names.push(e.name);
    return names.filter((n) => n.endsWith(".tmp"));
  };
  try {
    await t.step("file in, file out; id discovered with /api/tokens/self", async () => {
      const { secret, record } = await newToken(deps);
      const file = `${dir}/token`;
      await Deno.writeTextFile(file, secret + "\n", { mode: 0o644 });
      const r = await runScript(["--file", file, "--api", api]);
      assert.equal(r.code, 0, r.stderr);
      const next = (await Deno.readTextFile(file)).trim();
      assert.ok(isWellFormedSecret(next));
      assert.notEqual(next, secret);
      assert.equal((await Deno.stat(file)).mode! & 0o777, 0o600);
      assert.ok(!(await works(secret)), "old secret dead");
      assert.ok(await works(next), "new secret works");
      assert.ok(!r.stdout.includes(next) && !r.stderr.includes(next), "secret never printed");
      assert.ok(!r.stdout.includes(secret) && !r.stderr.includes(secret));
      assert.match(r.stderr, new RegExp(next.slice(0, 12)));
      assert.match(r.stderr, new RegExp(record.id));
      assert.deepEqual(await leftovers(), []);
    });
    await t.step("env and file variables, --id=", async () => {
      const { secret, record } = await newToken(deps);
      const file = `${dir}/from-env`;
      const r = await runScript([`--id=${record.id}`], {
        TOOLGATE_TOKEN: secret,
        TOOLGATE_TOKEN_FILE: file,
        TOOLGATE_URL: api,
      });
      assert.equal(r.code, 0, r.stderr);
      assert.ok(await works((await Deno.readTextFile(file)).trim()));
    });
    await t.step("--print puts the secret alone on stdout", async () => {
      const { secret } = await newToken(deps);
      const r = await runScript(["--print", "--api", api], { TOOLGATE_TOKEN: secret });
      assert.equal(r.code, 0, r.stderr);
      const next = r.stdout.trim();
      assert.ok(isWellFormedSecret(next));
      assert.ok(await works(next));
      assert.ok(!r.stderr.includes(next));
    });
    await t.step("a revoked token: exit 1, file untouched, no temp file left", async () => {
      const { secret, record, user } = await newToken(deps);
      await revokeToken(deps, user.id, record.id, origin);
      const file = `${dir}/revoked`;
      await Deno.writeTextFile(file, secret);
      const r = await runScript(["--file", file, "--api", api]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /401.*revoked/);
      assert.equal(await Deno.readTextFile(file), secret);
      assert.deepEqual(await leftovers(), []);
    });
    await t.step("usage and input errors", async () => {
      const cases: [string, string[], Record<string, string>, number, RegExp][] = [
        ["nothing to keep the secret in", [], { TOOLGATE_TOKEN: "x" }, 2, /--file PATH or --print/],
        ["unknown flag", ["--print", "--nope"], {}, 2, /Unknown argument/],
        ["flag without value", ["--file"], {}, 2, /needs a value/],
        ["bad --api", ["--print", "--api", "nope"], {}, 2, /absolute URL/],
        ["missing file", ["--file", `${dir}/absent`], {}, 1, /cannot read/],
        ["malformed secret", ["--print"], { TOOLGATE_TOKEN: "svc_nope" }, 1, /well-formed/],
        [
          "server unreachable",
          ["--print", "--api", `http://127.0.0.1:${freePort()}`],
          { TOOLGATE_TOKEN: (await newToken(deps)).secret },
          1,
          /rotate-token:/,
        ],
      ];
      for (const [name, args, env, code, message] of cases) {
        const r = await runScript(args, env);
        assert.equal(r.code, code, `${name}: ${r.stderr}`);
        assert.match(r.stderr, message, name);
      }
    });
  } finally {
    await running.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("prepareAtomicWrite() keeps the new content when the rename fails", async () => {
  const { prepareAtomicWrite } = await import("../../scripts/rotate_token.ts");
  const dir = await Deno.makeTempDir();
  try {
    const target = `${dir}/occupied`;
    await Deno.mkdir(target); // renaming a file over a folder fails
    const w = await prepareAtomicWrite(target);
    await assert.rejects(() => w.commit("svc_new\n"), (err: Error) => err.message.includes(w.tmp));
    assert.equal(await Deno.readTextFile(w.tmp), "svc_new\n");
    assert.equal((await Deno.stat(w.tmp)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
