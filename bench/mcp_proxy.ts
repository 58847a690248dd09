/**
 * `deno task bench` (DESIGN 6): the fast upstream, a bare pass-through proxy (`fetch`), the same
 * proxy over toolgate's own upstream client (lib/mcp/http1_client.ts) and toolgate, each in
 * its own process, driven by wrk with the same load (POST tools/list with a Bearer API token) in
 * interleaved rounds. Prints requests/s, p50 and p99 for each (median over rounds) and the ratios
 * against the bars: toolgate ≥ 0.85 × the proxy's requests/s, added p50 ≤ 0.5 ms.
 *
 * The verdict uses paired rounds: in each round every target runs back to back, the round's
 * ratio and added p50 are taken against the proxy's figures of the same round, and the bars are
 * checked on the medians of those per-round figures. On a shared 2-core machine throughput
 * drifts by ±15% over a minute; pairing within a round keeps that drift out of the comparison.
 * The bars are against the `fetch` proxy, as DESIGN 6 defines it; toolgate is also set against the
 * proxy that shares its transport, which isolates what the gateway's own logic costs.
 *
 * Env: BENCH_SECONDS (8), BENCH_CONNECTIONS (16), BENCH_THREADS (1), BENCH_ROUNDS (5),
 * BENCH_TOKENS (0; e.g. 1000000 adds a toolgate whose KV holds that many more tokens).
 */
const here = new URL(".", import.meta.url);
const deno = Deno.execPath();
const env = (name: string, fallback: number) => Number(Deno.env.get(name) ?? fallback);
const SECONDS = env("BENCH_SECONDS", 8);
const CONNECTIONS = env("BENCH_CONNECTIONS", 16);
const THREADS = env("BENCH_THREADS", 1);
const ROUNDS = env("BENCH_ROUNDS", 5);
const WARMUP_SECONDS = 5;
const EXTRA_TOKENS = env("BENCH_TOKENS", 0);

const children: Deno.ChildProcess[] = [];

/** Spawns bench/server.ts in its own process and waits for its JSON ready line. */
async function participant(
  ...args: string[]
): Promise<{ url: string; secret?: string; pid: number }> {
  const child = new Deno.Command(deno, {
    args: ["run", "-A", new URL("server.ts", here).pathname, ...args],
    stdout: "piped",
    stderr: "inherit",
    env: { NO_COLOR: "1" },
  }).spawn();
  children.push(child);
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  while (!buf.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`bench participant ${args[0]} exited before it was ready`);
    buf += value;
  }
  reader.releaseLock();
  return { ...JSON.parse(buf.split("\n")[0]), pid: child.pid };
}

interface Result {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time (user + system, all threads) the server spent per request, µs; NaN without /proc. */
  cpuUs: number;
}

/**
 * CPU time a process has used, in clock ticks (USER_HZ, 100 per second on Linux), or NaN
 * where /proc is not available. Read around each run: the figure that explains requests/s,
 * since throughput here is bound by the server's one JavaScript thread.
 */
function cpuTicks(pid: number): number {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return NaN;
  }
}

function ms(text: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!m) throw new Error(`Cannot read wrk latency "${text}"`);
  return Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000 } as const)[m[2] as "us" | "ms" | "s"];
}

async function wrk(url: string, script: string, seconds: number, pid: number): Promise<Result> {
  const before = cpuTicks(pid);
  const out = await new Deno.Command("wrk", {
    args: [
      `-t${THREADS}`,
      `-c${CONNECTIONS}`,
      `-d${seconds}s`,
      "--latency",
      "-s",
      script,
      url,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const ticks = cpuTicks(pid) - before;
  const text = new TextDecoder().decode(out.stdout);
  if (!out.success) throw new Error(`wrk failed: ${new TextDecoder().decode(out.stderr)}`);
  const requests = Number(/(\d+) requests in/.exec(text)?.[1]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(text)?.[1]);
  const p50 = ms(/\s50%\s+(\S+)/.exec(text)![1]);
  const p99 = ms(/\s99%\s+(\S+)/.exec(text)![1]);
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(text)?.[1] ?? 0) +
    Number(/Socket errors:.*?timeout (\d+)/.exec(text)?.[1] ?? 0);
  return { rps, p50, p99, errors, cpuUs: (ticks * 10_000) / requests };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const upstream = await participant("upstream");
  const proxy = await participant("proxy", upstream.url);
  const http1Proxy = await participant("proxy-http1", upstream.url);
  const kvDir = await Deno.makeTempDir({ prefix: "toolgate-bench-" });
  // 9 stored tokens besides the bench's own: "10 tokens".
  const toolgate = await participant("toolgate", upstream.url, `${kvDir}/small.kv`, "9");
  const targets: { name: string; url: string; token: string; pid: number }[] = [
    { name: "upstream (direct)", url: upstream.url, token: toolgate.secret!, pid: upstream.pid },
    { name: "bare proxy", url: proxy.url, token: toolgate.secret!, pid: proxy.pid },
    {
      name: "bare proxy, toolgate's client",
      url: http1Proxy.url,
      token: toolgate.secret!,
      pid: http1Proxy.pid,
    },
    { name: "toolgate (10 tokens)", url: toolgate.url, token: toolgate.secret!, pid: toolgate.pid },
  ];
  if (EXTRA_TOKENS > 0) {
    console.log(`storing ${EXTRA_TOKENS} tokens in a second toolgate's KV…`);
    const big = await participant(
      "toolgate",
      upstream.url,
      `${kvDir}/big.kv`,
      String(EXTRA_TOKENS - 1),
    );
    targets.push({
      name: `toolgate (${EXTRA_TOKENS} tokens)`,
      url: big.url,
      token: big.secret!,
      pid: big.pid,
    });
  }
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
  const scriptFor = async (token: string) => {
    const path = await Deno.makeTempFile({ dir: kvDir, suffix: ".lua" });
    await Deno.writeTextFile(
      path,
      [
        'wrk.method = "POST"',
        `wrk.body = '${body}'`,
        'wrk.headers["Content-Type"] = "application/json"',
        'wrk.headers["Accept"] = "application/json, text/event-stream"',
        `wrk.headers["Authorization"] = "Bearer ${token}"`,
      ].join("\n"),
    );
    return path;
  };
  const scripts = new Map<string, string>();
  for (const t of targets) {
    const token = t.token;
    scripts.set(t.name, await scriptFor(token));
    const check = await fetch(t.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
      },
      body,
    });
    const versionHeader = check.headers.get("x-mcp-version");
    await check.body?.cancel();
    if (check.status !== 200) throw new Error(`${t.name} answered ${check.status}`);
    if (t.name.startsWith("toolgate") && versionHeader !== "1.0.0") {
      throw new Error(`${t.name} did not answer with X-MCP-Version`);
    }
  }

  console.log(
    `wrk -t${THREADS} -c${CONNECTIONS} -d${SECONDS}s, ${ROUNDS} interleaved rounds, ` +
      `${navigator.hardwareConcurrency} CPUs, Deno ${Deno.version.deno}`,
  );
  const results = new Map<string, Result[]>(targets.map((t) => [t.name, []]));
  // Warm-up: JIT, connection pools and caches of every participant.
  for (const t of targets) await wrk(t.url, scripts.get(t.name)!, WARMUP_SECONDS, t.pid);
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of targets) {
      const r = await wrk(t.url, scripts.get(t.name)!, SECONDS, t.pid);
      results.get(t.name)!.push(r);
      console.log(
        `  round ${round + 1} ${t.name.padEnd(30)} ${r.rps.toFixed(0).padStart(7)} req/s  ` +
          `p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms  cpu ${
            r.cpuUs.toFixed(0)
          } µs/req${r.errors ? `  ERRORS ${r.errors}` : ""}`,
      );
    }
  }
  const summary = new Map(
    [...results].map(([name, rs]) => [name, {
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      errors: rs.reduce((n, r) => n + r.errors, 0),
    }]),
  );
  console.log("\nmedian over rounds:");
  console.log("| target | requests/s | p50 ms | p99 ms |");
  console.log("|---|---:|---:|---:|");
  for (const [name, s] of summary) {
    console.log(`| ${name} | ${s.rps.toFixed(0)} | ${s.p50.toFixed(3)} | ${s.p99.toFixed(3)} |`);
  }
  const proxyRounds = results.get("bare proxy")!;
  let pass = true;
  console.log("\nper round, against the proxy's figures of the same round (median decides):");
  for (const [name, rs] of results) {
    if (!name.startsWith("toolgate")) continue;
    const ratios = rs.map((r, i) => r.rps / proxyRounds[i].rps);
    const addeds = rs.map((r, i) => r.p50 - proxyRounds[i].p50);
    const ratio = median(ratios);
    const added = median(addeds);
    const cpu = median(rs.map((r, i) => r.cpuUs - proxyRounds[i].cpuUs));
    const errors = summary.get(name)!.errors;
    const ok = ratio >= 0.85 && added <= 0.5 && errors === 0;
    pass &&= ok;
    console.log(
      `${name}: ratios ${ratios.map((x) => x.toFixed(2)).join(" ")}; added p50 ms ${
        addeds.map((x) => x.toFixed(2)).join(" ")
      }`,
    );
    console.log(
      `${name}: ${ratio.toFixed(2)} × the bare proxy's requests/s (bar ≥ 0.85), ` +
        `added p50 ${added.toFixed(3)} ms (bar ≤ 0.5), added CPU ${cpu.toFixed(0)} µs/req${
          errors ? `, ${errors} errors` : ""
        } → ${ok ? "PASS" : "FAIL"}`,
    );
    const same = results.get("bare proxy, toolgate's client")!;
    console.log(
      `${name}: for the record, ${
        median(rs.map((r, i) => r.rps / same[i].rps)).toFixed(2)
      } × the requests/s of the proxy with the same upstream client, gateway logic ${
        median(rs.map((r, i) => r.cpuUs - same[i].cpuUs)).toFixed(0)
      } µs CPU per request`,
    );
  }
  const small = summary.get("toolgate (10 tokens)")!;
  const big = [...summary].find(([n]) =>
    n.startsWith("toolgate (") && n !== "toolgate (10 tokens)"
  );
  if (big) {
    console.log(
      `${big[0]} vs 10 tokens: ${(big[1].rps / small.rps).toFixed(2)} × requests/s, ` +
        `p50 ${(big[1].p50 - small.p50).toFixed(3)} ms`,
    );
  }
  await Deno.remove(kvDir, { recursive: true }).catch(() => {});
  return pass;
}

let pass = false;
try {
  pass = await main();
} finally {
  for (const child of children) {
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    await child.status;
  }
}
Deno.exit(pass ? 0 : 1);
