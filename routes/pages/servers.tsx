/** `/servers` (yours and the catalog) and `/servers/:slug` (base URLs, routing, versions). */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";
import { getServerBySlug } from "../../lib/servers/servers.ts";
import { isSubscribed } from "../../lib/servers/subscriptions.ts";
import { serverDetailView } from "../../lib/servers/views.ts";
import { Island } from "../../lib/ui/island.tsx";
import { Notice } from "../../components/Notice.tsx";
import { VersionsView } from "../../components/VersionsView.tsx";
import { renderPage, requirePage } from "./render.tsx";
import { catalog, type ServerSummary, userServers } from "../../lib/servers/listing.ts";

/** The user's relation to a server: Owner, or the subscription island (badge and button). */
function Relation({ s }: { s: ServerSummary }) {
  if (s.owned) return <span class="badge badge-accent">Owner</span>;
  return (
    <Island
      name="SubscribeButton"
      props={{ slug: s.slug, name: s.name, subscribed: s.subscribed }}
    />
  );
}

function ServerList({ servers, empty }: { servers: ServerSummary[]; empty: string }) {
  if (!servers.length) return <p class="muted">{empty}</p>;
  return (
    <ul class="server-list">
      {servers.map((s) => (
        <li class="server-item" data-slug={s.slug}>
          <div class="server-main">
            <a class="server-name" href={`/servers/${s.slug}`}>{s.name}</a>
            <span class="mono muted small">{s.slug}</span>
          </div>
          <div class="server-meta">
            <span class="small muted">
              {s.latest_version ? `latest ${s.latest_version}` : "no live version"}
            </span>
            <Relation s={s} />
          </div>
        </li>
      ))}
    </ul>
  );
}

function UrlRow({ label, url }: { label: string; url: string }) {
  return (
    <div class="url-row">
      <span class="label">{label}</span>
      <code class="url">{url}/</code>
      <Island name="CopyButton" props={{ text: `${url}/`, label: `Copy ${label}` }} />
    </div>
  );
}

/** The servers pages. */
export function serverPages(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.use("/servers", requirePage);
  r.use("/servers/*", requirePage);

  r.get("/servers", async (c) => {
    const deps = c.get("deps");
    const userId = c.get("user").id;
    const [mine, all] = await Promise.all([userServers(deps, userId), catalog(deps, userId)]);
    return renderPage(
      c,
      { title: "Servers", active: "servers" },
      <div class="stack">
        <div class="page-head">
          <div>
            <h1>Servers</h1>
            <p class="muted">MCP tool servers you own or subscribe to, and the full catalog.</p>
          </div>
        </div>
        <section class="card">
          <h2>Your servers</h2>
          <ServerList servers={mine} empty="You own no servers and subscribe to none yet." />
        </section>
        <section class="card">
          <h2>Catalog</h2>
          <ServerList servers={all} empty="No servers are published yet." />
        </section>
      </div>,
    );
  });

  r.get("/servers/:slug", async (c) => {
    const deps = c.get("deps");
    const userId = c.get("user").id;
    const record = await getServerBySlug(deps.kv, c.req.param("slug"));
    if (!record) {
      return renderPage(
        c,
        { title: "Server not found", active: "servers", status: 404 },
        <div class="empty">
          <h1>Server not found</h1>
          <p class="muted">
            No server has this slug. <a href="/servers">Back to servers</a>
          </p>
        </div>,
      );
    }
    const subscribed = await isSubscribed(deps.kv, userId, record.id);
    const server = serverDetailView(deps.config.platformUrl, record, userId, subscribed);
    const canUse = server.owned || subscribed;
    return renderPage(
      c,
      { title: server.name, active: "servers" },
      <div class="stack">
        <nav class="crumbs" aria-label="Breadcrumb">
          <a href="/servers">Servers</a> / <span aria-current="page">{server.slug}</span>
        </nav>
        <div class="page-head">
          <div>
            <h1>
              {server.name} {server.owned && <Relation s={server} />}
            </h1>
            <p class="muted">
              {server.latest_version
                ? `Latest live version ${server.latest_version}.`
                : "No live version."} Rate limit {server.rate_limit.limit} requests per{" "}
              {server.rate_limit.window}.
            </p>
          </div>
          <div class="head-actions">
            {!server.owned && <Relation s={server} />}
            {canUse && (
              <a
                class="btn btn-primary"
                id="create-token-for-server"
                href={`/tokens?new=1&server=${encodeURIComponent(server.slug)}`}
              >
                Create token for this server
              </a>
            )}
          </div>
        </div>
        {!canUse && <Notice tone="info">Subscribe to this server to create tokens for it.</Notice>}
        <section class="card">
          <h2>Base URL</h2>
          <p class="muted">
            Both forms are equivalent. Append <code>/v1</code>, <code>/v1.1</code> or an exact{" "}
            <code>/v1.1.1</code> to pin a version.
          </p>
          <UrlRow label="Host form" url={server.base_url} />
          <UrlRow label="Path form" url={server.path_url} />
        </section>
        {server.owned
          ? <Island name="VersionsPanel" props={{ server }} />
          : <VersionsView server={server} />}
      </div>,
    );
  });
  return r;
}
