/** Subscription state of a server with Subscribe, or Cancel after a confirmation of what stops. */
import { useState } from "preact/hooks";
import { ConfirmDialog } from "../components/ConfirmDialog.tsx";
import { api } from "../lib/ui/api.ts";
import { useSubmit } from "../lib/ui/use_submit.ts";

/** The button for one server; reflects the state the API confirmed. */
export function SubscribeButton(
  { slug, name, subscribed: initial }: { slug: string; name: string; subscribed: boolean },
) {
  const [subscribed, setSubscribed] = useState(initial);
  const [confirming, setConfirming] = useState(false);
  const submit = useSubmit();
  const path = `/api/subscriptions/${encodeURIComponent(slug)}`;
  return (
    <span class="subscribe">
      {subscribed
        ? <span class="badge badge-success">Subscribed</span>
        : <span class="badge">Not subscribed</span>}
      {subscribed
        ? (
          <button type="button" class="btn btn-sm" onClick={() => setConfirming(true)}>
            Cancel subscription
          </button>
        )
        : (
          <button
            type="button"
            class="btn btn-sm btn-primary"
            disabled={submit.busy}
            onClick={() => submit.run(() => api("PUT", path).then(() => setSubscribed(true)))}
            aria-label={`Subscribe to ${name}`}
          >
            {submit.busy ? "Subscribing…" : "Subscribe"}
          </button>
        )}
      {submit.error && <span class="field-error" role="alert">{submit.error}</span>}
      {confirming && (
        <ConfirmDialog
          title={`Cancel your subscription to ${name}?`}
          confirmLabel="Cancel subscription"
          danger
          onClose={() => setConfirming(false)}
          onConfirm={async () => {
            await api("DELETE", path);
            setSubscribed(false);
            setConfirming(false);
          }}
        >
          <p>
            Your API tokens and MCP clients will get <code>402 Payment Required</code>{" "}
            on this server until you subscribe again. Tokens are not deleted.
          </p>
        </ConfirmDialog>
      )}
    </span>
  );
}
