/**
 * `deno task rotate-token`: rotates an API token with only the token itself and saves the new
 * secret safely.
 *
 *   TOOLGATE_TOKEN_FILE=~/.config/toolgate/token deno task rotate-token
 *   deno task rotate-token --file ./secrets/toolgate.token --api https://toolgate.example.com
 *   TOOLGATE_TOKEN=svc_… deno task rotate-token --print     # new secret on stdout, nothing saved
 *
 * The current secret comes from TOOLGATE_TOKEN, else from the file. The token id comes from --id
 * or TOOLGATE_TOKEN_ID, else is asked of `GET /api/tokens/self`. The file is rewritten atomically
 * (temporary file in the same folder, mode 0600, fsync, rename, fsync of the folder), so a crash
 * leaves either the old or the new secret in place, never a torn file. Only the new prefix is
 * printed, unless --print.
 *
 * @module
 */
import { isWellFormedSecret } from "../lib/tokens/secret.ts";

const USAGE = `Usage: deno task rotate-token [--file PATH] [--id TOKEN_ID] [--api URL] [--print]

  --file PATH   read the current secret from PATH (unless TOOLGATE_TOKEN is set) and write the
                new one back atomically, mode 0600      (env TOOLGATE_TOKEN_FILE)
  --id ID       the token's id; asked of GET /api/tokens/self when absent (env TOOLGATE_TOKEN_ID)
  --api URL     toolgate's address (env TOOLGATE_URL, default http://localhost:8000)
  --print       print the new secret on stdout (needed when there is no file to keep it in)`;

/** Options of one run, from flags and environment. */
export interface RotateOptions {
  file: string | null;
  id: string | null;
  api: string;
  print: boolean;
}

/** Thrown for a usage mistake (exit code 2). */
export class UsageError extends Error {}

/** Parses flags (`--x v` or `--x=v`) over environment defaults. */
export function parseArgs(args: string[], env: Record<string, string | undefined>): RotateOptions {
  const opts: RotateOptions = {
    file: env.TOOLGATE_TOKEN_FILE || null,
    id: env.TOOLGATE_TOKEN_ID || null,
    api: env.TOOLGATE_URL || "http://localhost:8000",
    print: false,
  };
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].split(/=(.*)/s, 2);
    const value = () => {
      const v = inline ?? args[++i];
      if (v === undefined || v === "") throw new UsageError(`${flag} needs a value`);
      return v;
    };
    if (flag === "--file") opts.file = value();
    else if (flag === "--id") opts.id = value();
    else if (flag === "--api") opts.api = value();
    else if (flag === "--print" && inline === undefined) opts.print = true;
    else throw new UsageError(`Unknown argument ${JSON.stringify(args[i])}`);
  }
  try {
    new URL(opts.api);
  } catch {
    throw new UsageError(`--api must be an absolute URL (got ${JSON.stringify(opts.api)})`);
  }
  if (!opts.file && !opts.print) {
    throw new UsageError("Nothing would keep the new secret: pass --file PATH or --print");
  }
  return opts;
}

function dirOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "." : slash === 0 ? "/" : path.slice(0, slash);
}

/**
 * Prepares an atomic replacement of `path`: creates a 0600 temporary file beside it now (so an
 * unwritable folder is found before anything irreversible), and returns `commit(text)` that
 * writes, fsyncs and renames it over `path`, then fsyncs the folder. On failure the temporary file
 * is kept and named in the error, so its content is not lost.
 */
export async function prepareAtomicWrite(
  path: string,
): Promise<{ tmp: string; commit(text: string): Promise<void>; abort(): Promise<void> }> {
  const tmp = `${dirOf(path)}/.${path.slice(path.lastIndexOf("/") + 1)}.${crypto.randomUUID()}.tmp`;
  const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
  await Deno.chmod(tmp, 0o600).catch(() => {}); // mode is masked by umask; make it exact
  return {
    tmp,
    async commit(text: string) {
      try {
        const bytes = new TextEncoder().encode(text);
        let written = 0;
        while (written < bytes.length) written += await file.write(bytes.subarray(written));
        await file.sync();
        file.close();
        await Deno.rename(tmp, path);
      } catch (err) {
        throw new Error(`could not replace ${path}; the new content is in ${tmp}: ${err}`);
      }
      try {
        const dir = await Deno.open(dirOf(path), { read: true });
        await dir.sync().finally(() => dir.close());
      } catch {
        // Some systems cannot fsync a folder; the rename itself is still atomic.
      }
    },
    async abort() {
      try {
        file.close();
      } catch { /* already closed */ }
      await Deno.remove(tmp).catch(() => {});
    },
  };
}

async function call(
  api: string,
  method: string,
  path: string,
  secret: string,
): Promise<Record<string, unknown>> {
  const res = await fetch(new URL(path, api), {
    method,
    headers: { authorization: `Bearer ${secret}`, accept: "application/json" },
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  if (!res.ok) {
    const err = json.error as { message?: string } | undefined;
    throw new Error(
      `${method} ${path} answered ${res.status}: ${err?.message ?? text.slice(0, 200)}`,
    );
  }
  return json;
}

/** Runs one rotation; returns the process exit code. Never prints the secret unless `--print`. */
export async function run(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<number> {
  let opts: RotateOptions;
  try {
    opts = parseArgs(args, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`rotate-token: ${err.message}\n\n${USAGE}`);
    return 2;
  }
  let secret = env.TOOLGATE_TOKEN?.trim() ?? "";
  if (!secret && opts.file) {
    try {
      secret = (await Deno.readTextFile(opts.file)).trim();
    } catch (err) {
      console.error(`rotate-token: cannot read ${opts.file}: ${(err as Error).message}`);
      return 1;
    }
  }
  if (!isWellFormedSecret(secret)) {
    console.error(
      `rotate-token: no well-formed API token in ${
        env.TOOLGATE_TOKEN ? "TOOLGATE_TOKEN" : opts.file ?? "TOOLGATE_TOKEN"
      } (expected svc_ followed by 44 base62 characters)`,
    );
    return 1;
  }
  let writer: Awaited<ReturnType<typeof prepareAtomicWrite>> | null = null;
  try {
    if (opts.file) writer = await prepareAtomicWrite(opts.file);
    const id = opts.id ?? String((await call(opts.api, "GET", "/api/tokens/self", secret)).id);
    const rotated = await call(
      opts.api,
      "POST",
      `/api/tokens/${encodeURIComponent(id)}/rotate`,
      secret,
    );
    const next = String(rotated.token);
    if (!isWellFormedSecret(next)) throw new Error("the server answered without a new token");
    const keep = writer;
    writer = null; // from here on a failure must leave the temporary file (it holds the secret)
    await keep?.commit(next + "\n");
    if (opts.print) console.log(next);
    console.error(
      `rotate-token: rotated token ${id} (${rotated.name}); new prefix ${rotated.prefix}` +
        (opts.file ? `, saved to ${opts.file}` : ""),
    );
    return 0;
  } catch (err) {
    await writer?.abort();
    console.error(`rotate-token: ${(err as Error).message}`);
    return 1;
  }
}

if (import.meta.main) Deno.exit(await run(Deno.args, Deno.env.toObject()));
