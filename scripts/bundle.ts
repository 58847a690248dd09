/**
 * Builds the islands bundle: `deno bundle --platform browser --minify` of lib/ui/boot.ts into
 * static/build/islands.js, then prints its raw and gzip sizes.
 */
const root = new URL("../", import.meta.url);
const entry = new URL("lib/ui/boot.ts", root).pathname;
const out = new URL("static/build/islands.js", root).pathname;

/** Gzip size of `bytes` (default level, as a static server would send it). */
export async function gzipSize(bytes: Uint8Array<ArrayBuffer>): Promise<number> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

if (import.meta.main) {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--platform", "browser", "--minify", "--output", out, entry],
    cwd: root.pathname,
    stdout: "inherit",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    console.error(new TextDecoder().decode(stderr));
    Deno.exit(code);
  }
  const bytes = await Deno.readFile(out);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  console.log(
    `bundle: static/build/islands.js ${kb(bytes.length)}, ${kb(await gzipSize(bytes))} gzip`,
  );
}
