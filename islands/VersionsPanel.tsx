/** The owner's versions panel: the routing and versions tables plus deploy and retire. */
import { useState } from "preact/hooks";
import { VersionsView } from "../components/VersionsView.tsx";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { describedBy, Field } from "../components/Field.tsx";
import { Notice } from "../components/Notice.tsx";
import { api } from "../lib/ui/api.ts";
import { useSubmit } from "../lib/ui/use_submit.ts";
import type { ServerDetail } from "../lib/ui/types.ts";

/** Shows `server` and keeps it in step with what deploy and retire answer. */
export function VersionsPanel({ server: initial }: { server: ServerDetail }) {
  const [server, setServer] = useState(initial);
  const [retiring, setRetiring] = useState<string | null>(null);
  const [version, setVersion] = useState("");
  const [upstream, setUpstream] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const deploy = useSubmit();
  const base = `/api/servers/${encodeURIComponent(server.slug)}/versions`;

  const onDeploy = (e: Event) => {
    e.preventDefault();
    deploy.run(async () => {
      const v = version.trim();
      setServer(
        await api<ServerDetail>("POST", base, { version: v, upstream_url: upstream.trim() }),
      );
      setDone(`Deployed ${v}.`);
      setVersion("");
    });
  };

  return (
    <div class="stack">
      <VersionsView
        server={server}
        action={(v) =>
          v.live && (
            <button
              type="button"
              class="btn btn-sm btn-ghost-danger"
              aria-label={`Retire version ${v.version}`}
              onClick={() => setRetiring(v.version)}
            >
              Retire
            </button>
          )}
      />
      <section class="card">
        <h2>Deploy a version</h2>
        <form class="inline-form" onSubmit={onDeploy} noValidate>
          <Field id="deploy-version" label="Version" hint="Semantic version, e.g. 2.1.0.">
            <input
              id="deploy-version"
              class="mono"
              required
              autocomplete="off"
              placeholder="2.1.0"
              value={version}
              aria-describedby={describedBy("deploy-version", true)}
              onInput={(e) => setVersion(e.currentTarget.value)}
            />
          </Field>
          <Field id="deploy-upstream" label="Upstream MCP URL" hint="Where this version runs.">
            <input
              id="deploy-upstream"
              class="mono"
              type="url"
              required
              autocomplete="off"
              placeholder="https://mcp.internal.example/v2"
              value={upstream}
              aria-describedby={describedBy("deploy-upstream", true)}
              onInput={(e) => setUpstream(e.currentTarget.value)}
            />
          </Field>
          <button type="submit" class="btn btn-primary" disabled={deploy.busy}>
            {deploy.busy ? "Deploying…" : "Deploy"}
          </button>
        </form>
        <p class="hint">
          Deploying a patch replaces the previous patch of the same minor: that one stops being
          live.
        </p>
        {deploy.error && <Notice tone="error">{deploy.error}</Notice>}
        {done && !deploy.error && <Notice tone="success">{done}</Notice>}
      </section>
      {retiring && (
        <ConfirmDialog
          title={`Retire ${retiring}?`}
          confirmLabel="Retire version"
          danger
          onClose={() => setRetiring(null)}
          onConfirm={async () => {
            setServer(await api<ServerDetail>("DELETE", `${base}/${encodeURIComponent(retiring)}`));
            setDone(`Retired ${retiring}.`);
            setRetiring(null);
          }}
        >
          <p>
            New connections to <code>/v{retiring}</code> get 404. Broader patterns (<code>/</code>,
            {" "}
            <code>/v{retiring.split(".")[0]}</code>…) move to the highest version still live. Open
            sessions keep their version until they reconnect.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
