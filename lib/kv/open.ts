/** Opens Deno KV for a configured path: a local file (folder created), `:memory:`, or a KV Connect URL. */
export async function openKv(path: string): Promise<Deno.Kv> {
  if (path !== ":memory:" && !/^https?:\/\//i.test(path)) {
    const slash = path.lastIndexOf("/");
    if (slash > 0) await Deno.mkdir(path.slice(0, slash), { recursive: true });
  }
  return await Deno.openKv(path);
}
