/**
 * Shows a new secret once, after create or rotate: Copy, a warning, and ready-to-paste snippets.
 * It holds the secret only in its props; closing it lets the owner drop the secret.
 */
import { Dialog } from "./Dialog.tsx";
import { Notice } from "./Notice.tsx";
import { CopyButton } from "../islands/CopyButton.tsx";
import { curlSnippet, mcpConfigSnippet, type SnippetServer } from "../lib/ui/snippets.ts";
import type { TokenWithSecret } from "../lib/ui/types.ts";

/** The secret, once. `servers` are the token's servers with their MCP URLs. */
export function SecretDialog(
  { token, rotated, servers, onClose }: {
    token: TokenWithSecret;
    rotated: boolean;
    servers: SnippetServer[];
    onClose(): void;
  },
) {
  const first = servers[0];
  const curl = first ? curlSnippet(first.url, token.token) : null;
  const config = mcpConfigSnippet(servers, token.token);
  return (
    <Dialog
      id="secret-dialog"
      wide
      title={rotated ? `New secret for “${token.name}”` : `Token “${token.name}” created`}
      onClose={onClose}
      footer={
        <button type="button" class="btn btn-primary" onClick={onClose} data-autofocus>
          I have saved it
        </button>
      }
    >
      <Notice tone="warning">
        <strong>Copy this secret now. It will not be shown again.</strong>{" "}
        toolgate keeps only a hash of it. Store it in a secret manager, never in source control.
        {rotated && " The previous secret has stopped working."}
      </Notice>
      <div class="secret-row">
        <code id="token-secret" class="secret">{token.token}</code>
        <CopyButton text={token.token} label="Copy secret" />
      </div>
      {curl && (
        <section class="snippet">
          <div class="snippet-head">
            <h3>Try it: list the tools of {first.slug}</h3>
            <CopyButton text={curl} label="Copy curl command" />
          </div>
          <pre><code>{curl}</code></pre>
        </section>
      )}
      <section class="snippet">
        <div class="snippet-head">
          <h3>MCP client configuration</h3>
          <CopyButton text={config} label="Copy MCP client configuration" />
        </div>
        <pre><code>{config}</code></pre>
      </section>
    </Dialog>
  );
}
