/** A hook for one async action of a form or button: busy flag, visible error, and a runner. */
import { useState } from "preact/hooks";
import { errorMessage } from "./api.ts";

/** What `useSubmit` gives a component. */
export interface Submit {
  busy: boolean;
  error: string | null;
  setError(message: string | null): void;
  /** Runs `fn` unless already busy; an error thrown becomes `error`. Resolves true on success. */
  run(fn: () => Promise<unknown>): Promise<boolean>;
}

/** Tracks one async action so the UI can disable itself and show what went wrong. */
export function useSubmit(): Submit {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  return {
    busy,
    error,
    setError,
    async run(fn) {
      if (busy) return false;
      setBusy(true);
      setError(null);
      try {
        await fn();
        return true;
      } catch (err) {
        setError(errorMessage(err));
        return false;
      } finally {
        setBusy(false);
      }
    },
  };
}
