/** The tokens table: name, prefix, servers, expiry (warned/expired), last used, allowlist, actions. */
import { ServerChips } from "./ServerChips.tsx";
import { absoluteTime, expiryState, relativeTime } from "../lib/ui/format.ts";
import type { TokenView } from "../lib/ui/types.ts";

/** What a row's buttons ask for. */
export type TokenAction = "edit" | "rotate" | "revoke";

function Expiry({ iso, now }: { iso: string; now: number }) {
  const state = expiryState(iso, now);
  return (
    <span class={`expiry expiry-${state}`} title={absoluteTime(iso)}>
      {state === "expired"
        ? <span class="badge badge-danger">Expired {relativeTime(iso, now)}</span>
        : state === "soon"
        ? <span class="badge badge-warning">Expires {relativeTime(iso, now)}</span>
        : relativeTime(iso, now)}
    </span>
  );
}

function Allowlist({ ips }: { ips: string[] | null }) {
  if (!ips) return <span class="muted">Any IP</span>;
  return (
    <span class="mono small" title={ips.join(", ")}>
      {ips.slice(0, 2).join(", ")}
      {ips.length > 2 && ` +${ips.length - 2}`}
    </span>
  );
}

/** The table (stacked cards on phones); `onAction` gets the token and what was asked. */
export function TokenTable(
  { tokens, now, onAction }: {
    tokens: TokenView[];
    now: number;
    onAction(token: TokenView, action: TokenAction): void;
  },
) {
  return (
    <div class="table-wrap">
      <table class="table tokens">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Token</th>
            <th scope="col">Servers</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">Allowlist</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((t) => (
            <tr
              key={t.id}
              data-token-id={t.id}
              class={expiryState(t.expires_at, now) === "expired" ? "row-expired" : undefined}
            >
              <th scope="row" data-label="Name">
                <span class="token-name">{t.name}</span>
                <span class="sub">Created {relativeTime(t.created_at, now)}</span>
              </th>
              <td data-label="Token">
                <code class="prefix">{t.prefix}…</code>
              </td>
              <td data-label="Servers">
                <ServerChips scopes={t.scopes} />
              </td>
              <td data-label="Expires">
                <Expiry iso={t.expires_at} now={now} />
              </td>
              <td data-label="Last used">
                {t.last_used_at
                  ? (
                    <span title={absoluteTime(t.last_used_at)}>
                      {relativeTime(t.last_used_at, now)}
                    </span>
                  )
                  : <span class="muted">Never</span>}
              </td>
              <td data-label="Allowlist">
                <Allowlist ips={t.allowed_ips} />
              </td>
              <td class="actions">
                {(["edit", "rotate", "revoke"] as const).map((a) => (
                  <button
                    type="button"
                    class={a === "revoke" ? "btn btn-sm btn-ghost-danger" : "btn btn-sm"}
                    aria-label={`${a[0].toUpperCase()}${a.slice(1)} token ${t.name}`}
                    onClick={() => onAction(t, a)}
                  >
                    {a[0].toUpperCase() + a.slice(1)}
                  </button>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
