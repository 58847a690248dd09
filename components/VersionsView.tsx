/** A server's routing (what `/`, `/v1`, `/v1.1` reach now) and its versions, live or not. */
import type { ComponentChildren } from "preact";
import { absoluteTime } from "../lib/ui/format.ts";
import type { ServerDetail, VersionView } from "../lib/ui/types.ts";

/** Both tables; `action` adds a last cell per version (the owner's Retire button). */
export function VersionsView(
  { server, action }: { server: ServerDetail; action?: (v: VersionView) => ComponentChildren },
) {
  return (
    <div class="stack">
      <section class="card">
        <h2>Routing now</h2>
        <p class="muted">
          Which version each URL pattern reaches for a new connection. Exact patterns like{" "}
          <code>/v1.1.1</code> never move.
        </p>
        <div class="table-wrap">
          <table class="table routes">
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Resolves to</th>
              </tr>
            </thead>
            <tbody>
              {server.routes.map((r) => (
                <tr data-route={r.path}>
                  <th scope="row" data-label="URL">
                    <code>{`${server.base_url}${r.path}`}</code>
                  </th>
                  <td data-label="Resolves to">
                    {r.version
                      ? <span class="mono">{r.version}</span>
                      : <span class="muted">no live version</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section class="card">
        <h2>Versions</h2>
        <div class="table-wrap">
          <table class="table versions">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Status</th>
                <th scope="col">Deployed</th>
                {server.owned && <th scope="col">Upstream</th>}
                {action && (
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {server.versions.map((v) => (
                <tr data-version={v.version}>
                  <th scope="row" data-label="Version" class="mono">{v.version}</th>
                  <td data-label="Status">
                    {v.live
                      ? <span class="badge badge-success">Live</span>
                      : <span class="badge">Not live</span>}
                    {v.version === server.latest_version && <span class="badge">latest</span>}
                  </td>
                  <td data-label="Deployed">{absoluteTime(v.deployed_at)}</td>
                  {server.owned && (
                    <td data-label="Upstream" class="mono small break">{v.upstream_url}</td>
                  )}
                  {action && <td class="actions">{action(v)}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </div>
  );
}
