/**
 * Starts the real server process (`deno run main.ts`), reads its banner, and talks to it over
 * real HTTP; then stops it with SIGTERM and checks that it exits.
 */
import assert from "node:assert/strict";
import { freePort } from "../helpers.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

interface Proc {
  child: Deno.ChildProcess;
  port: number;
  base: string;
  banner: string;
  output: () => string;
  stop(): Promise<Deno.CommandStatus>;
}

/** Spawns main.ts and resolves once its banner (through the sign-in line) is printed. */
async function startServer(env: Record<string, string>): Promise<Proc> {
  const port = freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "main.ts"],
    cwd: ROOT,
    env: {
      NO_COLOR: "1",
      PORT: String(port),
      PLATFORM_URL: `http://localhost:${port}`,
      SEED_DEMO: "true",
      DEMO_EMAIL: "demo@example.com",
      TRUST_PROXY: "false",
      ...env,
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  let err = "";
  const { promise: bannerSeen, resolve, reject } = Promise.withResolvers<string>();
  const drain = async (stream: ReadableStream<Uint8Array>, onText: (t: string) => void) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) onText(decoder.decode(chunk, { stream: true }));
  };
  const readers = Promise.all([
    drain(child.stdout, (t) => {
      out += t;
      const at = out.indexOf("toolgate listening");
      if (at >= 0 && /sign in:.*\n/.test(out.slice(at))) resolve(out.slice(at));
    }),
    drain(child.stderr, (t) => (err += t)),
  ]);
  const timer = setTimeout(() => reject(new Error(`no banner after 30 s\n${out}\n${err}`)), 30_000);
  child.status.then((s) => reject(new Error(`exited early (${s.code})\n${out}\n${err}`)));
  let stopped: Promise<Deno.CommandStatus> | null = null;
  const proc: Proc = {
    child,
    port,
    base: `http://127.0.0.1:${port}`,
    banner: "",
    output: () => out + err,
    stop() {
      stopped ??= (async () => {
        try {
          child.kill("SIGTERM");
        } catch {
          // already gone
        }
        const killer = setTimeout(() => {
          try {
            child.kill("SIGKILL");
          } catch {
            // already gone
          }
        }, 10_000);
        const status = await child.status;
        clearTimeout(killer);
        await readers;
        return status;
      })();
      return stopped;
    },
  };
  try {
    proc.banner = await bannerSeen;
  } catch (e) {
    await proc.stop();
    throw e;
  } finally {
    clearTimeout(timer);
  }
  return proc;
}

/** Signs in over HTTP; returns the cookie and CSRF token. */
async function signIn(base: string, email: string, password: string) {
  const res = await fetch(`${base}/api/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return { cookie: res.headers.get("set-cookie")!.split(";")[0], csrf: body.csrf_token as string };
}

async function getJson(base: string, path: string, cookie: string) {
  const res = await fetch(`${base}${path}`, { headers: { cookie } });
  assert.equal(res.status, 200, path);
  return await res.json();
}

Deno.test({
  name: "main.ts starts, prints its banner, serves the API over HTTP and stops on SIGTERM",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "toolgate-e2e-" });
    let proc: Proc | null = null;
    try {
      proc = await startServer({
        KV_PATH: `${dir}/kv/toolgate.kv`,
        DEMO_PASSWORD: "some-password",
      });
      const p = `http://localhost:${proc.port}`;
      const banner = proc.banner;
      assert.match(banner, /^toolgate listening on http:\/\/127\.0\.0\.1:\d+/);
      assert.ok(banner.includes(`dashboard:  ${p}/`), banner);
      assert.ok(banner.includes(`http://demo.localhost:${proc.port}/`), banner);
      assert.ok(banner.includes(`${p}/s/demo/`), banner);
      assert.match(banner, /host form/);
      assert.match(banner, /path form/);
      assert.match(banner, /sign in:\s+demo@example\.com/);
      assert.ok(!banner.includes("some-password"), "the configured password is not echoed");
      assert.ok(!banner.includes("generated now"));

      await fetch(`${proc.base}/api/nope`).then(async (r) => {
        assert.equal(r.status, 404);
        assert.equal((await r.json()).error.code, "not_found");
      });
      const { cookie } = await signIn(proc.base, "demo@example.com", "some-password");
      const mine = await getJson(proc.base, "/api/servers", cookie);
      assert.deepEqual(
        mine.servers.map((s: { slug: string; owned: boolean; latest_version: string }) => [
          s.slug,
          s.owned,
          s.latest_version,
        ]),
        [["demo", true, "2.0.0"]],
      );
      const catalog = await getJson(proc.base, "/api/catalog", cookie);
      assert.deepEqual(catalog.servers.map((s: { slug: string }) => s.slug), ["demo", "labs"]);
      const demo = await getJson(proc.base, "/api/servers/demo", cookie);
      assert.deepEqual(
        demo.versions.map((v: { version: string; live: boolean }) => [v.version, v.live]),
        [["2.0.0", true], ["1.1.1", true], ["1.1.0", false], ["1.0.0", true]],
      );

      const status = await proc.stop();
      assert.equal(status.success, true, `exit ${status.code} ${status.signal}\n${proc.output()}`);
      await assert.rejects(() => fetch(`${proc!.base}/api/session`), TypeError);
      assert.ok(!proc.output().includes("[error]"), proc.output());
    } finally {
      await proc?.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "main.ts prints a generated demo password once; a second start on the same KV is idempotent",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "toolgate-e2e-" });
    const kvPath = `${dir}/toolgate.kv`;
    let proc: Proc | null = null;
    try {
      proc = await startServer({ KV_PATH: kvPath, DEMO_PASSWORD: "" });
      const m = proc.banner.match(/sign in:\s+demo@example\.com \/ (\S+)\s+\(generated now/);
      assert.ok(m, proc.banner);
      const password = m[1];
      await signIn(proc.base, "demo@example.com", password);
      assert.equal((await proc.stop()).success, true, proc.output());

      proc = await startServer({ KV_PATH: kvPath, DEMO_PASSWORD: "" });
      assert.ok(!proc.banner.includes(password), proc.banner);
      assert.ok(!proc.banner.includes("generated now"), proc.banner);
      assert.match(proc.banner, /sign in:\s+demo@example\.com/);
      const { cookie } = await signIn(proc.base, "demo@example.com", password);
      const demo = await getJson(proc.base, "/api/servers/demo", cookie);
      assert.deepEqual(demo.versions.map((v: { version: string }) => v.version), [
        "2.0.0",
        "1.1.1",
        "1.1.0",
        "1.0.0",
      ]);
      const catalog = await getJson(proc.base, "/api/catalog", cookie);
      assert.deepEqual(catalog.servers.map((s: { slug: string }) => s.slug), ["demo", "labs"]);
      assert.equal((await proc.stop()).success, true, proc.output());
    } finally {
      await proc?.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
