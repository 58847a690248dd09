/**
 * Create and edit a token in one form. Create: name, servers (owned or subscribed, the current
 * one pre-selected), expiration, allowlist. Edit: the same minus servers, which are fixed at
 * creation and shown read-only (SPEC 2.1 rule 1).
 */
import { useState } from "preact/hooks";
import { Dialog } from "./Dialog.tsx";
import { describedBy, Field } from "./Field.tsx";
import { Notice } from "./Notice.tsx";
import { ExpiryChoice } from "./ExpiryChoice.tsx";
import { allowlistError, AllowlistField } from "./AllowlistField.tsx";
import { ServerChips } from "./ServerChips.tsx";
import { allowlistValue } from "../lib/ui/allowlist.ts";
import { useSubmit } from "../lib/ui/use_submit.ts";
import type { ServerOption, TokenView } from "../lib/ui/types.ts";

/** The body sent to `POST /api/tokens` or `PATCH /api/tokens/:id`. */
export type TokenInput = {
  name?: string;
  server_ids?: string[];
  expires_in_days?: number;
  allowed_ips?: string[] | null;
};

/** Create (no `token`) or edit (`token` given) dialog; `onSave` gets only what changed. */
export function TokenFormDialog(
  { token, servers, preselect, now, onSave, onClose }: {
    token?: TokenView;
    servers: ServerOption[];
    /** Slug of the server to pre-select on create. */
    preselect?: string | null;
    now: number;
    onSave(input: TokenInput): Promise<unknown>;
    onClose(): void;
  },
) {
  const [name, setName] = useState(token?.name ?? "");
  const [picked, setPicked] = useState<string[]>(() =>
    servers.filter((s) => s.slug === preselect || servers.length === 1).map((s) => s.id)
  );
  const [days, setDays] = useState(token ? 0 : 30);
  const [ips, setIps] = useState((token?.allowed_ips ?? []).join("\n"));
  const [nameError, setNameError] = useState<string | null>(null);
  const [serversError, setServersError] = useState<string | null>(null);
  const submit = useSubmit();

  const save = () => {
    const trimmed = name.trim();
    const badName = trimmed ? null : "Give the token a name, e.g. where it is used.";
    const badServers = !token && picked.length === 0 ? "Choose at least one server." : null;
    setNameError(badName);
    setServersError(badServers);
    if (badName || badServers || allowlistError(ips)) return;
    const allowed = allowlistValue(ips);
    const input: TokenInput = token ? {} : { server_ids: picked };
    if (!token || trimmed !== token.name) input.name = trimmed;
    if (days) input.expires_in_days = days;
    if (!token || (allowed ?? []).join("\n") !== (token.allowed_ips ?? []).join("\n")) {
      input.allowed_ips = allowed;
    }
    submit.run(() => onSave(input));
  };

  const toggle = (id: string, on: boolean) =>
    setPicked((cur) => on ? [...cur, id] : cur.filter((x) => x !== id));

  return (
    <Dialog
      id={token ? "edit-dialog" : "create-dialog"}
      title={token ? `Edit “${token.name}”` : "Create API token"}
      onClose={onClose}
      onSubmit={save}
      footer={
        <>
          <button type="button" class="btn" onClick={onClose}>Cancel</button>
          <button type="submit" class="btn btn-primary" disabled={submit.busy}>
            {submit.busy ? "Saving…" : token ? "Save changes" : "Create token"}
          </button>
        </>
      }
    >
      <Field
        id="token-name"
        label="Name"
        hint="Say where it is used, e.g. “CI deploy” or “laptop agent”."
        error={nameError}
      >
        <input
          id="token-name"
          type="text"
          maxLength={100}
          autocomplete="off"
          required
          data-autofocus
          value={name}
          aria-invalid={nameError ? "true" : undefined}
          aria-describedby={describedBy("token-name", true, nameError)}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </Field>
      {token
        ? (
          <div class="field">
            <span class="label">Servers</span>
            <ServerChips scopes={token.scopes} />
            <p class="hint">Servers are fixed. Create a new token to change servers.</p>
          </div>
        )
        : (
          <fieldset
            class={serversError ? "field field-invalid" : "field"}
            aria-describedby={describedBy("token-servers", true, serversError)}
          >
            <legend>Servers</legend>
            {servers.length === 0 && (
              <Notice tone="info">
                You have no servers yet. <a href="/servers">Subscribe to one</a> first.
              </Notice>
            )}
            <div class="checks">
              {servers.map((s) => (
                <label class="check">
                  <input
                    type="checkbox"
                    name="server"
                    value={s.id}
                    checked={picked.includes(s.id)}
                    onChange={(e) => toggle(s.id, e.currentTarget.checked)}
                  />
                  <span>
                    <strong>{s.name}</strong> <span class="mono muted">{s.slug}</span>
                    {s.owned && <span class="badge">owner</span>}
                  </span>
                </label>
              ))}
            </div>
            <p class="hint" id="token-servers-hint">
              The token works only on these servers. This cannot be changed later.
            </p>
            {serversError && <p class="field-error" id="token-servers-error">{serversError}</p>}
          </fieldset>
        )}
      <ExpiryChoice value={days} onChange={setDays} keep={token?.expires_at} now={now} />
      <AllowlistField id="token-ips" value={ips} onInput={setIps} />
      {submit.error && <Notice tone="error">{submit.error}</Notice>}
    </Dialog>
  );
}
