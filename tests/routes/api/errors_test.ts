/**
 * The API's error rules (issue 2, point 8) across every endpoint: every error is
 * `{"error": {"code", "message", ...}}` with a fitting 4xx, never a 5xx or a stack trace.
 */
import assert from "node:assert/strict";
import { type Client, serverWith, signedIn, type TestEnv, testEnv } from "../../helpers.ts";
import { signInFailuresKey } from "../../../lib/kv/keys.ts";
import { FAILURE_WINDOW_MS } from "../../../lib/accounts/sign_in.ts";

/** Checks the shape of an API error body; returns it. */
function checkErrorBody(status: number, text: string, contentType: string | null) {
  assert.ok(status >= 400 && status < 500, `status ${status}: ${text}`);
  assert.match(contentType ?? "", /^application\/json/, text);
  const body = JSON.parse(text);
  assert.equal(typeof body, "object");
  assert.deepEqual(Object.keys(body), ["error"], text);
  assert.equal(typeof body.error.code, "string");
  assert.match(body.error.code, /^[a-z_]+$/);
  assert.equal(typeof body.error.message, "string");
  assert.ok(body.error.message.length > 0);
  assert.ok(!/\bat .*\.ts:\d+/.test(text), `stack trace leaked: ${text}`);
  return body.error as { code: string; message: string };
}

async function expectError(res: Response, status: number, code: string, mentions?: string) {
  const text = await res.text();
  assert.equal(res.status, status, text);
  const err = checkErrorBody(res.status, text, res.headers.get("content-type"));
  assert.equal(err.code, code, text);
  if (mentions) assert.ok(err.message.includes(mentions), err.message);
}

interface Endpoint {
  method: string;
  path: string;
  session: boolean;
  /** A valid body, when the endpoint takes one. */
  body?: Record<string, unknown>;
}

/** Every endpoint of routes/api/accounts.ts, servers.ts and audit.ts. */
function endpoints(slug: string): Endpoint[] {
  return [
    {
      method: "POST",
      path: "/api/users",
      session: false,
      body: { email: "x@example.com", password: "password123" },
    },
    {
      method: "POST",
      path: "/api/session",
      session: false,
      body: { email: "x@example.com", password: "password123" },
    },
    { method: "GET", path: "/api/session", session: true },
    { method: "DELETE", path: "/api/session", session: true },
    {
      method: "POST",
      path: "/api/password",
      session: true,
      body: { current_password: "password123", new_password: "password456" },
    },
    {
      method: "POST",
      path: "/api/password-reset",
      session: false,
      body: { email: "x@example.com" },
    },
    {
      method: "POST",
      path: "/api/password-reset/confirm",
      session: false,
      body: { token: "t".repeat(43), new_password: "password456" },
    },
    { method: "GET", path: "/api/servers", session: true },
    { method: "GET", path: "/api/catalog", session: true },
    {
      method: "POST",
      path: "/api/servers",
      session: true,
      body: { slug: "fresh-slug", name: "Fresh" },
    },
    { method: "GET", path: `/api/servers/${slug}`, session: true },
    {
      method: "POST",
      path: `/api/servers/${slug}/versions`,
      session: true,
      body: { version: "9.0.0", upstream_url: "http://127.0.0.1:9/" },
    },
    { method: "DELETE", path: `/api/servers/${slug}/versions/1.0.0`, session: true },
    { method: "PUT", path: `/api/subscriptions/${slug}`, session: true },
    { method: "DELETE", path: `/api/subscriptions/${slug}`, session: true },
    { method: "GET", path: "/api/audit", session: true },
  ];
}

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);

async function setup(env: TestEnv): Promise<{ client: Client; slug: string }> {
  const client = await signedIn(env);
  const server = await serverWith(env.deps, client.user.id, ["1.0.0"]);
  return { client, slug: server.slug };
}

Deno.test("every session endpoint answers 401 without a valid session", async (t) => {
  const env = await testEnv();
  try {
    const { slug } = await setup(env);
    const cookies = [
      undefined,
      "tg_session=",
      "tg_session=forged-but-well-formed-0000000000",
      "other=1",
    ];
    for (const ep of endpoints(slug).filter((e) => e.session)) {
      await t.step(`${ep.method} ${ep.path}`, async () => {
        for (const cookie of cookies) {
          const headers: Record<string, string> = { "content-type": "application/json" };
          if (cookie) headers.cookie = cookie;
          const res = await env.app.request(ep.path, {
            method: ep.method,
            headers,
            body: ep.body ? JSON.stringify(ep.body) : undefined,
          });
          await expectError(res, 401, "unauthorized");
        }
      });
    }
  } finally {
    env.close();
  }
});

Deno.test("every unsafe session endpoint answers 403 csrf_failed without the right X-CSRF-Token", async (t) => {
  const env = await testEnv();
  try {
    const { client, slug } = await setup(env);
    const other = await signedIn(env);
    for (const ep of endpoints(slug).filter((e) => e.session && UNSAFE.has(e.method))) {
      await t.step(`${ep.method} ${ep.path}`, async () => {
        for (
          const csrf of [
            undefined,
            "",
            "wrong",
            client.csrf.slice(1),
            other.csrf,
            client.csrf + "x",
          ]
        ) {
          const headers: Record<string, string> = {
            cookie: client.cookie,
            "content-type": "application/json",
          };
          if (csrf !== undefined) headers["x-csrf-token"] = csrf;
          const res = await env.app.request(ep.path, {
            method: ep.method,
            headers,
            body: ep.body ? JSON.stringify(ep.body) : undefined,
          });
          await expectError(res, 403, "csrf_failed");
        }
      });
    }
    // Nothing happened: still signed in, server unchanged.
    assert.equal((await client.request("GET", "/api/session")).status, 200);
    const s = await (await client.request("GET", `/api/servers/${slug}`)).json();
    assert.deepEqual(s.versions.map((v: { live: boolean }) => v.live), [true]);
  } finally {
    env.close();
  }
});

Deno.test("safe methods need no CSRF token", async () => {
  const env = await testEnv();
  try {
    const { client } = await setup(env);
    for (const path of ["/api/session", "/api/servers", "/api/catalog", "/api/audit"]) {
      const res = await env.app.request(path, { headers: { cookie: client.cookie } });
      assert.equal(res.status, 200, path);
    }
  } finally {
    env.close();
  }
});

Deno.test("every body endpoint refuses bad bodies with the right 4xx", async (t) => {
  const env = await testEnv({ env: { MAX_BODY_BYTES: "2048" } });
  try {
    const { client, slug } = await setup(env);
    const bodyEps = endpoints(slug).filter((e) => e.body);
    for (const ep of bodyEps) {
      const send = (body: BodyInit | undefined, contentType?: string) => {
        const headers: Record<string, string> = {
          cookie: client.cookie,
          "x-csrf-token": client.csrf,
        };
        if (contentType) headers["content-type"] = contentType;
        return Promise.resolve(env.app.request(ep.path, { method: ep.method, headers, body }));
      };
      const fields = Object.keys(ep.body!);
      await t.step(`${ep.method} ${ep.path}`, async () => {
        const json = "application/json";
        await expectError(await send("{", json), 400, "invalid_json");
        await expectError(await send('{"a":1,}', json), 400, "invalid_json");
        await expectError(await send("{'single': 1}", json), 400, "invalid_json");
        await expectError(
          await send(new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]), json),
          400,
          "invalid_json",
        );
        await expectError(
          await send(JSON.stringify(ep.body), "text/plain"),
          415,
          "unsupported_media_type",
        );
        await expectError(
          await send("a=b", "application/x-www-form-urlencoded"),
          415,
          "unsupported_media_type",
        );
        await expectError(
          await send(JSON.stringify(ep.body), "multipart/form-data; boundary=x"),
          415,
          "unsupported_media_type",
        );
        for (const v of ["[]", "null", "1", '"text"', "true"]) {
          await expectError(await send(v, json), 400, "invalid_request", "JSON object");
        }
        await expectError(await send(undefined), 400, "invalid_request", `"${fields[0]}"`);
        await expectError(await send("{}", json), 400, "invalid_request", `"${fields[0]}"`);
        for (const field of fields) {
          const missing = { ...ep.body };
          delete missing[field];
          await expectError(
            await send(JSON.stringify(missing), json),
            400,
            "invalid_request",
            `"${field}"`,
          );
          for (const wrong of [42, true, null, [], {}]) {
            const typed = { ...ep.body, [field]: wrong };
            await expectError(
              await send(JSON.stringify(typed), json),
              400,
              "invalid_request",
              `"${field}"`,
            );
          }
        }
        await expectError(
          await send(JSON.stringify({ ...ep.body, surprise: 1 }), json),
          400,
          "unknown_field",
          '"surprise"',
        );
        const big = JSON.stringify({ ...ep.body, pad: "x".repeat(3000) });
        await expectError(await send(big, json), 413, "payload_too_large");
        await expectError(
          await send(new TextEncoder().encode(big), json),
          413,
          "payload_too_large",
        );
      });
    }
  } finally {
    env.close();
  }
});

Deno.test("unknown API routes and methods are a JSON 404", async (t) => {
  const env = await testEnv();
  try {
    const { client, slug } = await setup(env);
    const cases: [string, string][] = [
      ["GET", "/api"],
      ["GET", "/api/"],
      ["GET", "/api/nope"],
      ["POST", "/api/nope/deeper"],
      ["PATCH", "/api/session"],
      ["PUT", "/api/users"],
      ["GET", "/api/users"],
      ["GET", "/api/password-reset"],
      ["DELETE", "/api/catalog"],
      ["GET", `/api/servers/${slug}/versions`],
      ["GET", `/api/servers/${slug}/versions/1.0.0/extra`],
      ["GET", "/api/subscriptions/nope-nope"],
      ["GET", "/api/%ZZ"],
    ];
    for (const [method, path] of cases) {
      await t.step(`${method} ${path}`, async () => {
        await expectError(await client.request(method, path), 404, "not_found");
      });
    }
  } finally {
    env.close();
  }
});

/** A small deterministic PRNG (mulberry32). */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  return { next, int, pick };
}

type Rng = ReturnType<typeof prng>;

const FIELD_NAMES = [
  "email",
  "password",
  "current_password",
  "new_password",
  "token",
  "slug",
  "name",
  "rate_limit",
  "version",
  "upstream_url",
  "limit",
  "window",
  "__proto__",
  "constructor",
  "",
  "x",
];

function randomString(r: Rng, max = 40): string {
  const pools = [
    "abcdefghijklmnopqrstuvwxyz0123456789-",
    "ABCxyz!@#$%^&*()[]{}\"'\\/<>?,.;:`~ \t",
    "äöü€😀\u0000\u2028\u202e\ud800",
  ];
  const pool = r.pick(pools);
  const chars = [...pool];
  let s = "";
  const n = r.int(max);
  for (let i = 0; i < n; i++) s += r.pick(chars);
  return s;
}

function randomJson(r: Rng, depth = 0): unknown {
  switch (r.int(depth > 2 ? 6 : 8)) {
    case 0:
      return null;
    case 1:
      return r.next() < 0.5;
    case 2:
      return r.pick([0, -1, 1.5, 1e308, -0, 2 ** 53 + 1, 120, 65535]);
    case 3:
      return randomString(r);
    case 4:
      return r.pick(["x@example.com", "1.0.0", "http://127.0.0.1:9/", "minute", "demo-srv"]);
    case 5:
      return r.pick(["", "a".repeat(300), "9.9.9-beta.1", "ftp://x/", "WWW"]);
    case 6:
      return Array.from({ length: r.int(4) }, () => randomJson(r, depth + 1));
    default: {
      const o: Record<string, unknown> = Object.create(null); // "__proto__" stays a plain key
      for (let i = r.int(4); i > 0; i--) o[r.pick(FIELD_NAMES)] = randomJson(r, depth + 1);
      return o;
    }
  }
}

function randomBody(r: Rng, ep: Endpoint): BodyInit | undefined {
  switch (r.int(7)) {
    case 0:
      return undefined;
    case 1:
      return randomString(r, 200);
    case 2: {
      const bytes = new Uint8Array(r.int(64));
      for (let i = 0; i < bytes.length; i++) bytes[i] = r.int(256);
      return bytes;
    }
    case 3: {
      // A valid body with one field mutated.
      const b: Record<string, unknown> = Object.assign(Object.create(null), ep.body ?? { x: 1 });
      b[r.pick([...Object.keys(b), r.pick(FIELD_NAMES)])] = randomJson(r);
      return JSON.stringify(b);
    }
    case 4: {
      const s = JSON.stringify(randomJson(r)) ?? "null";
      return s.slice(0, r.int(s.length + 1));
    }
    default:
      return JSON.stringify(randomJson(r));
  }
}

const CONTENT_TYPES = [
  undefined,
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/problem+json",
  "text/plain",
  "text/html",
  "application/xml",
  "multipart/form-data",
  "application/x-www-form-urlencoded",
  "json",
  "",
  ";;;",
];

function randomPath(r: Rng, ep: Endpoint, slug: string): string {
  const roll = r.int(10);
  if (roll < 6) return ep.path;
  let seg: string;
  try {
    seg = encodeURIComponent(randomString(r, 20)) || "x";
  } catch {
    seg = r.pick(["%ff%fe", "%ZZ", "%", "%c3%28", "%00"]); // lone surrogates: raw bad escapes
  }
  if (roll === 6) return ep.path.replace(slug, seg);
  if (roll === 7) return `/api/${seg}`;
  if (roll === 8) return `${ep.path}/${seg}`;
  return ep.path.replace("1.0.0", seg);
}

Deno.test("API fuzz: thousands of malformed requests all get a well-formed 4xx (or a success)", async () => {
  const env = await testEnv({ env: { MAX_BODY_BYTES: "2048", TRUST_PROXY: "true" } });
  try {
    const { client, slug } = await setup(env);
    // Sign-in attempts from the fuzz IP are locked out up front, so a well-formed but wrong
    // sign-in answers 429 at once instead of sleeping.
    const fuzzIp = "198.51.100.77";
    const window = Math.floor(env.clock.now() / FAILURE_WINDOW_MS);
    await env.kv.set(signInFailuresKey("ip", fuzzIp, window), 10_000);
    const eps = endpoints(slug).filter((e) =>
      !(e.method === "DELETE" && e.path === "/api/session")
    );
    const methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"];
    const r = prng(20261122);
    const statuses = new Map<number, number>();
    const N = 3000;
    for (let i = 0; i < N; i++) {
      const ep = r.pick(eps);
      const method = r.next() < 0.85 ? ep.method : r.pick(methods);
      const path = randomPath(r, ep, slug);
      const headers = new Headers();
      const ct = r.pick(CONTENT_TYPES);
      if (ct !== undefined) headers.set("content-type", ct);
      const auth = r.int(4);
      if (auth > 0) {
        headers.set(
          "cookie",
          auth === 3 ? `tg_session=${randomString(r).replace(/[^\x21-\x7e]/g, "")}` : client.cookie,
        );
      }
      if (auth === 2) headers.set("x-csrf-token", client.csrf);
      else if (r.next() < 0.3) {
        headers.set("x-csrf-token", randomString(r).replace(/[^\x20-\x7e]/g, ""));
      }
      if (r.next() < 0.1) headers.set("content-length", String(r.pick([0, 1, 2049, 10 ** 9])));
      if (r.next() < 0.1) headers.set("accept", r.pick(["text/html", "*/*", "application/xml"]));
      headers.set("x-forwarded-for", fuzzIp);
      const body = method === "GET" || method === "HEAD" ? undefined : randomBody(r, ep);
      let res: Response;
      try {
        res = await env.app.request(path, { method, headers, body });
      } catch (err) {
        // Only a Request the runtime itself refuses to build may throw here (e.g. a bad
        // content-length); the app must never throw.
        assert.ok(err instanceof TypeError, `request ${i} ${method} ${path}: ${err}`);
        continue;
      }
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const text = await res.text();
      assert.ok(res.status < 500, `request ${i} ${method} ${path}: ${res.status} ${text}`);
      if (res.status >= 400 && method !== "HEAD") {
        checkErrorBody(res.status, text, res.headers.get("content-type"));
      }
    }
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    assert.ok(total > N * 0.9, `only ${total} requests were sent`);
    const errors = [...statuses].filter(([s]) => s >= 400).reduce((a, [, n]) => a + n, 0);
    assert.ok(errors > total * 0.7, JSON.stringify([...statuses]));
    // The app still works (the fuzz may have signed the client out with a valid DELETE).
    assert.equal(
      (await (await signedIn(env, client.user)).request("GET", "/api/servers")).status,
      200,
    );
    assert.ok(!env.log.some((l) => l.startsWith("[error]")), env.log.join("\n"));
  } finally {
    env.close();
  }
});
