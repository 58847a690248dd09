/**
 * The tokens screen: the first page of tokens comes rendered by the server (no secrets), more
 * from `GET /api/tokens`; create, edit, rotate and revoke go through the API. A new secret lives only in the open secret dialog's state: closing
 * the dialog, leaving the page or restoring it from the back/forward cache drops it.
 */
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { TokenAction, TokenTable } from "../components/TokenTable.tsx";
import { TokenFormDialog, type TokenInput } from "../components/TokenFormDialog.tsx";
import { SecretDialog } from "../components/SecretDialog.tsx";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { Notice } from "../components/Notice.tsx";
import { api, errorMessage } from "../lib/ui/api.ts";
import type { SnippetServer } from "../lib/ui/snippets.ts";
import type { ServerOption, TokenView, TokenWithSecret } from "../lib/ui/types.ts";

/** Which dialog is open. The secret exists only inside `secret`. */
type Open =
  | { kind: "create" }
  | { kind: TokenAction; token: TokenView }
  | { kind: "secret"; token: TokenWithSecret; rotated: boolean }
  | null;

/** Props rendered by the server: never a secret. */
export interface TokensPageProps {
  /** The first page of `GET /api/tokens`. */
  initial: { tokens: TokenView[]; cursor: string | null };
  servers: ServerOption[];
  /** Slug from `?server=`: pre-selected in the create dialog. */
  preselect: string | null;
  /** `?new=1`: open the create dialog at once. */
  openCreate: boolean;
  /** For servers outside `servers` (e.g. a cancelled subscription): `{origin}/s/{slug}`. */
  platformOrigin: string;
}

const withoutSecret = ({ token: _secret, ...view }: TokenWithSecret): TokenView => view;

/** The tokens island. */
export function TokensPage(p: TokensPageProps) {
  const tokens = useSignal<TokenView[] | null>(p.initial.tokens);
  const cursor = useSignal<string | null>(p.initial.cursor);
  const loadError = useSignal<string | null>(null);
  const open = useSignal<Open>(p.openCreate ? { kind: "create" } : null);
  const flash = useSignal<string | null>(null);
  const now = useSignal(Date.now());

  const load = async (after?: string) => {
    try {
      const q = after ? `?cursor=${encodeURIComponent(after)}` : "";
      const res = await api<{ tokens: TokenView[]; cursor: string | null }>(
        "GET",
        `/api/tokens${q}`,
      );
      tokens.value = after ? [...(tokens.value ?? []), ...res.tokens] : res.tokens;
      cursor.value = res.cursor ?? null;
      loadError.value = null;
    } catch (err) {
      loadError.value = errorMessage(err);
    }
  };

  useEffect(() => {
    const tick = setInterval(() => now.value = Date.now(), 30_000);
    // Leaving the page (or coming back from the bfcache) never keeps a secret on screen.
    const drop = () => {
      if (open.peek()?.kind !== "secret") return;
      document.getElementById("token-secret")?.replaceChildren();
      open.value = null;
    };
    const onShow = (e: PageTransitionEvent) => {
      if (!e.persisted) return;
      drop();
      load();
    };
    addEventListener("pagehide", drop);
    addEventListener("pageshow", onShow);
    return () => {
      clearInterval(tick);
      removeEventListener("pagehide", drop);
      removeEventListener("pageshow", onShow);
    };
  }, []);

  const close = () => open.value = null;
  const replace = (t: TokenView) =>
    tokens.value = (tokens.value ?? []).map((x) => x.id === t.id ? t : x);
  const snippetServers = (t: TokenView): SnippetServer[] =>
    t.scopes.map((s) => ({
      slug: s.server_slug,
      url: `${
        p.servers.find((o) => o.id === s.server_id)?.base_url ??
          `${p.platformOrigin}/s/${s.server_slug}`
      }/`,
    }));

  const create = async (input: TokenInput) => {
    const t = await api<TokenWithSecret>("POST", "/api/tokens", input);
    tokens.value = [withoutSecret(t), ...(tokens.value ?? [])];
    if (location.search) history.replaceState(null, "", location.pathname);
    flash.value = null;
    open.value = { kind: "secret", token: t, rotated: false };
  };
  const edit = (id: string) => async (input: TokenInput) => {
    const t = await api<TokenView>("PATCH", `/api/tokens/${id}`, input);
    replace(t);
    flash.value = `Saved changes to “${t.name}”.`;
    close();
  };
  const rotate = (id: string) => async () => {
    const t = await api<TokenWithSecret>("POST", `/api/tokens/${id}/rotate`);
    replace(withoutSecret(t));
    flash.value = null;
    open.value = { kind: "secret", token: t, rotated: true };
  };
  const revoke = (t: TokenView) => async () => {
    await api("DELETE", `/api/tokens/${t.id}`);
    tokens.value = (tokens.value ?? []).filter((x) => x.id !== t.id);
    flash.value = `Revoked “${t.name}”.`;
    close();
  };

  const o = open.value;
  const list = tokens.value;
  return (
    <div class="tokens-page">
      <div class="page-head">
        <div>
          <h1>API tokens</h1>
          <p class="muted">
            Long-lived credentials for scripts, CI and headless MCP clients. Each token works only
            on the servers chosen when it was created and lives at most 90 days.
          </p>
        </div>
        <button
          type="button"
          class="btn btn-primary"
          id="create-token"
          onClick={() => open.value = { kind: "create" }}
        >
          Create token
        </button>
      </div>
      <div aria-live="polite">{flash.value && <Notice tone="success">{flash.value}</Notice>}</div>
      {loadError.value && (
        <Notice tone="error">
          Could not load your tokens: {loadError.value}{" "}
          <button type="button" class="btn btn-sm" onClick={() => load()}>Retry</button>
        </Notice>
      )}
      {list === null && !loadError.value && (
        <p class="loading muted" aria-busy="true">Loading tokens…</p>
      )}
      {list?.length === 0 && (
        <div class="empty">
          <h2>No tokens yet</h2>
          <p class="muted">Create one to call your MCP servers from scripts, CI or an agent.</p>
        </div>
      )}
      {list && list.length > 0 && (
        <TokenTable
          tokens={list}
          now={now.value}
          onAction={(token, kind) => open.value = { kind, token }}
        />
      )}
      {cursor.value && (
        <button type="button" class="btn" onClick={() => load(cursor.value!)}>Load more</button>
      )}
      <noscript>
        <Notice tone="info">Managing tokens needs JavaScript.</Notice>
      </noscript>

      {o?.kind === "create" && (
        <TokenFormDialog
          servers={p.servers}
          preselect={p.preselect}
          now={now.value}
          onSave={create}
          onClose={close}
        />
      )}
      {o?.kind === "edit" && (
        <TokenFormDialog
          token={o.token}
          servers={p.servers}
          now={now.value}
          onSave={edit(o.token.id)}
          onClose={close}
        />
      )}
      {o?.kind === "rotate" && (
        <ConfirmDialog
          title={`Rotate “${o.token.name}”?`}
          confirmLabel="Rotate secret"
          onConfirm={rotate(o.token.id)}
          onClose={close}
        >
          <p>
            A new secret replaces <code class="prefix">{o.token.prefix}…</code>.{" "}
            <strong>The current secret stops working at once</strong>, so update every place that
            uses it.
          </p>
          <p class="muted">
            Name, servers, allowlist and expiration stay the same; the expiration is not extended.
          </p>
        </ConfirmDialog>
      )}
      {o?.kind === "revoke" && (
        <ConfirmDialog
          title={`Revoke “${o.token.name}”?`}
          confirmLabel="Revoke token"
          danger
          onConfirm={revoke(o.token)}
          onClose={close}
        >
          <p>
            Requests with <code class="prefix">{o.token.prefix}…</code> will be refused with 401.
            {" "}
            <strong>Revocation is permanent</strong>{" "}
            and cannot be undone; create a new token if you need access again.
          </p>
        </ConfirmDialog>
      )}
      {o?.kind === "secret" && (
        <SecretDialog
          token={o.token}
          rotated={o.rotated}
          servers={snippetServers(o.token)}
          onClose={close}
        />
      )}
    </div>
  );
}
