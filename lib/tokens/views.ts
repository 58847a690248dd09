/** What the API answers about a token (SPEC 2.1): never the hash, the secret only when asked. */
import { serverKey, tokenLastUsedKey } from "../kv/keys.ts";
import type { ServerRecord } from "../servers/servers.ts";
import { getManyChunked, type TokenRecord } from "./store.ts";

/** One server a token may access. */
export interface TokenScope {
  server_id: string;
  server_name: string;
  server_slug: string;
}

/** A token as the API shows it, without its secret. */
export interface TokenView {
  id: string;
  name: string;
  prefix: string;
  expires_at: string;
  allowed_ips: string[] | null;
  scopes: TokenScope[];
  created_at: string;
  last_used_at: string | null;
}

/** A token with its full secret: the answer of create and rotate only. */
export type TokenWithSecret = { token: string } & TokenView;

/** Views of `records` in order, with server names and slugs and the last use. */
export async function tokenViews(kv: Deno.Kv, records: TokenRecord[]): Promise<TokenView[]> {
  const serverIds = [...new Set(records.flatMap((r) => r.server_ids))];
  const servers = new Map<string, ServerRecord>();
  for (const e of await getManyChunked<ServerRecord>(kv, serverIds.map(serverKey))) {
    if (e.value) servers.set(e.value.id, e.value);
  }
  const lastUsed = await getManyChunked<number>(kv, records.map((r) => tokenLastUsedKey(r.id)));
  return records.map((r, i) => ({
    id: r.id,
    name: r.name,
    prefix: r.prefix,
    expires_at: r.expires_at,
    allowed_ips: r.allowed_ips,
    scopes: r.server_ids.map((id) => ({
      server_id: id,
      server_name: servers.get(id)?.name ?? "",
      server_slug: servers.get(id)?.slug ?? "",
    })),
    created_at: r.created_at,
    last_used_at: typeof lastUsed[i].value === "number"
      ? new Date(lastUsed[i].value as number).toISOString()
      : null,
  }));
}

/** The view of one token. */
export async function tokenView(kv: Deno.Kv, record: TokenRecord): Promise<TokenView> {
  return (await tokenViews(kv, [record]))[0];
}

/** The view of one token with its secret first. */
export async function tokenWithSecret(
  kv: Deno.Kv,
  record: TokenRecord,
  secret: string,
): Promise<TokenWithSecret> {
  return { token: secret, ...await tokenView(kv, record) };
}
