/** "Are you sure?" for actions with consequences: says what will happen, shows the API's error. */
import type { ComponentChildren } from "preact";
import { Dialog } from "./Dialog.tsx";
import { Notice } from "./Notice.tsx";
import { useSubmit } from "../lib/ui/use_submit.ts";

/** A confirmation whose button runs `onConfirm`; the dialog stays open with the error on failure. */
export function ConfirmDialog(
  { title, children, confirmLabel, danger, onConfirm, onClose }: {
    title: string;
    children: ComponentChildren;
    confirmLabel: string;
    danger?: boolean;
    onConfirm(): Promise<unknown>;
    onClose(): void;
  },
) {
  const submit = useSubmit();
  return (
    <Dialog
      title={title}
      onClose={onClose}
      onSubmit={() => submit.run(onConfirm)}
      footer={
        <>
          <button type="button" class="btn" onClick={onClose} data-autofocus>Cancel</button>
          <button
            type="submit"
            class={danger ? "btn btn-danger" : "btn btn-primary"}
            disabled={submit.busy}
          >
            {submit.busy ? "Working…" : confirmLabel}
          </button>
        </>
      }
    >
      {children}
      {submit.error && <Notice tone="error">{submit.error}</Notice>}
    </Dialog>
  );
}
