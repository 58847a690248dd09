/** Change password: warns that every API token is revoked, then calls `POST /api/password`. */
import { useState } from "preact/hooks";
import { describedBy, Field } from "../components/Field.tsx";
import { Notice } from "../components/Notice.tsx";
import { api } from "../lib/ui/api.ts";
import { useSubmit } from "../lib/ui/use_submit.ts";

/** The password-change form of the account page. */
export function PasswordForm() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeat, setRepeat] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const submit = useSubmit();
  const mismatch = repeat !== "" && repeat !== next ? "The two new passwords differ." : null;

  const onSubmit = (e: Event) => {
    e.preventDefault();
    setDone(null);
    if (next.length < 8) return submit.setError("The new password needs at least 8 characters.");
    if (mismatch) return submit.setError(mismatch);
    submit.run(async () => {
      const res = await api<{ tokens_revoked: number }>("POST", "/api/password", {
        current_password: current,
        new_password: next,
      });
      setCurrent("");
      setNext("");
      setRepeat("");
      setDone(
        `Password changed. ${res.tokens_revoked} API token${
          res.tokens_revoked === 1 ? " was" : "s were"
        } revoked and your other sessions were signed out.`,
      );
    });
  };

  return (
    <form class="stack-sm" onSubmit={onSubmit} noValidate>
      <Notice tone="warning">
        Changing your password <strong>revokes every API token you have</strong>{" "}
        and signs out your other sessions. Scripts and clients using those tokens will get 401 until
        you create new tokens.
      </Notice>
      <Field id="pw-current" label="Current password">
        <input
          id="pw-current"
          type="password"
          autocomplete="current-password"
          required
          value={current}
          onInput={(e) => setCurrent(e.currentTarget.value)}
        />
      </Field>
      <Field id="pw-new" label="New password" hint="At least 8 characters.">
        <input
          id="pw-new"
          type="password"
          autocomplete="new-password"
          required
          minLength={8}
          value={next}
          aria-describedby={describedBy("pw-new", true)}
          onInput={(e) => setNext(e.currentTarget.value)}
        />
      </Field>
      <Field id="pw-repeat" label="Repeat new password" error={mismatch}>
        <input
          id="pw-repeat"
          type="password"
          autocomplete="new-password"
          required
          value={repeat}
          aria-invalid={mismatch ? "true" : undefined}
          aria-describedby={describedBy("pw-repeat", false, mismatch)}
          onInput={(e) => setRepeat(e.currentTarget.value)}
        />
      </Field>
      {submit.error && <Notice tone="error">{submit.error}</Notice>}
      {done && <Notice tone="success">{done}</Notice>}
      <div>
        <button type="submit" class="btn btn-danger" disabled={submit.busy}>
          {submit.busy ? "Changing…" : "Change password and revoke tokens"}
        </button>
      </div>
    </form>
  );
}
