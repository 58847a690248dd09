/**
 * A modal built on native `<dialog>`: opened with showModal() when mounted, closed when unmounted.
 * Escape asks the owner to close; focus goes to `[data-autofocus]` (or the first control) on open
 * and back to whatever had it before on close.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";

/** Props of a dialog; render it only while it is open. */
export interface DialogProps {
  title: ComponentChildren;
  onClose(): void;
  children: ComponentChildren;
  /** Buttons at the bottom, right-aligned. */
  footer?: ComponentChildren;
  wide?: boolean;
  /** Wraps the body in a form whose submit calls this. */
  onSubmit?(): void;
  id?: string;
}

/** A modal dialog with a title, body and footer. */
export function Dialog(p: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    const first = dialog.querySelector<HTMLElement>("[data-autofocus]") ??
      dialog.querySelector<HTMLElement>("input, select, textarea, button:not(.dialog-x)");
    first?.focus();
    return () => {
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  const body = (
    <>
      <div class="dialog-head">
        <h2 id={titleId}>{p.title}</h2>
        <button type="button" class="dialog-x" aria-label="Close" onClick={p.onClose}>×</button>
      </div>
      <div class="dialog-body">{p.children}</div>
      {p.footer && <div class="dialog-foot">{p.footer}</div>}
    </>
  );
  return (
    <dialog
      ref={ref}
      id={p.id}
      class={p.wide ? "dialog dialog-wide" : "dialog"}
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        p.onClose();
      }}
    >
      {p.onSubmit
        ? (
          <form
            method="dialog"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              p.onSubmit!();
            }}
          >
            {body}
          </form>
        )
        : body}
    </dialog>
  );
}
