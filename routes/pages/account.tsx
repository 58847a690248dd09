/** `/account` (password change, sign-out) and `/security` (the security log). */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";
import { type AuditEntry, type AuditEvent, listAudit } from "../../lib/audit/log.ts";
import { Island } from "../../lib/ui/island.tsx";
import { absoluteTime } from "../../lib/ui/format.ts";
import { renderPage, requirePage } from "./render.tsx";

const EVENTS: Record<AuditEvent, string> = {
  sign_in: "Signed in",
  sign_in_failed: "Failed sign-in",
  sign_out: "Signed out",
  password_changed: "Password changed",
  password_reset: "Password reset",
  token_created: "Token created",
  token_rotated: "Token rotated",
  token_edited: "Token edited",
  token_revoked: "Token revoked",
  tokens_auto_revoked: "All tokens revoked",
};

const ISO = /^\d{4}-\d\d-\d\dT[\d:.]+Z$/;

/** Non-secret details as a short line: the token's name first, ids left out, dates readable. */
function details(d: Record<string, unknown>): string {
  const parts: string[] = [];
  const name = d.name ?? d.token_name;
  if (typeof name === "string") parts.push(`“${name}”`);
  for (const [k, v] of Object.entries(d)) {
    if (k === "name" || k === "token_name" || k === "id" || /_ids?$/.test(k)) continue;
    const label = k.replace(/_/g, " ");
    if (typeof v === "string") parts.push(`${label}: ${ISO.test(v) ? absoluteTime(v) : v}`);
    else if (typeof v === "number" || typeof v === "boolean") parts.push(`${label}: ${v}`);
    else if (Array.isArray(v)) parts.push(`${label}: ${v.join(", ").replace(/_/g, " ") || "none"}`);
  }
  return parts.join(" · ");
}

function AuditTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <div class="table-wrap">
      <table class="table audit">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Details</th>
            <th scope="col">IP address</th>
            <th scope="col">Client</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => (
            <tr>
              <td data-label="When" class="nowrap">{absoluteTime(e.at)}</td>
              <th scope="row" data-label="Event">
                <span class={`event event-${e.event}`}>{EVENTS[e.event] ?? e.event}</span>
              </th>
              <td data-label="Details">{details(e.details) || <span class="muted">—</span>}</td>
              <td data-label="IP address" class="mono small">{e.ip ?? "—"}</td>
              <td data-label="Client" class="small muted ua" title={e.user_agent ?? undefined}>
                {e.user_agent ?? "—"}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The account and security-log pages. */
export function accountPages(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.use("/account", requirePage);
  r.use("/security", requirePage);

  r.get("/account", (c) => {
    const user = c.get("user");
    const csrf = c.get("session").session.csrf_token;
    return renderPage(
      c,
      { title: "Account", active: "account" },
      <div class="stack narrow">
        <div class="page-head">
          <div>
            <h1>Account</h1>
            <p class="muted">
              Signed in as <strong>{user.email}</strong>, member since{" "}
              {absoluteTime(user.created_at)}.
            </p>
          </div>
        </div>
        <section class="card">
          <h2>Change password</h2>
          <Island name="PasswordForm" props={{}} />
        </section>
        <section class="card">
          <h2>Sign out</h2>
          <p class="muted">
            Ends this browser's session. Your API tokens keep working. Every sign-in is listed in
            {" "}
            the <a href="/security">security log</a>.
          </p>
          <form method="post" action="/sign-out">
            <input type="hidden" name="_csrf" value={csrf} />
            <button type="submit" class="btn">Sign out</button>
          </form>
        </section>
      </div>,
    );
  });

  r.get("/security", async (c) => {
    const cursor = c.req.query("cursor");
    let page;
    try {
      page = await listAudit(c.get("deps").kv, c.get("user").id, { limit: 50, cursor });
    } catch {
      return c.redirect("/security", 303);
    }
    return renderPage(
      c,
      { title: "Security log", active: "security" },
      <div class="stack">
        <div class="page-head">
          <div>
            <h1>Security log</h1>
            <p class="muted">
              Sign-ins, password changes and every change to your API tokens, newest first. Kept for
              90 days.
            </p>
          </div>
        </div>
        {page.entries.length
          ? <AuditTable entries={page.entries} />
          : <p class="empty muted">Nothing recorded yet.</p>}
        <p>
          {cursor && <a class="btn" href="/security">Newest</a>}{" "}
          {page.cursor && (
            <a class="btn" href={`/security?cursor=${encodeURIComponent(page.cursor)}`}>
              Older entries
            </a>
          )}
        </p>
      </div>,
    );
  });
  return r;
}
