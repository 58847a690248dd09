/** A labelled form control with an optional hint and error, wired up with aria-describedby. */
import type { ComponentChildren } from "preact";

/** Ids of the hint and error of the field `id`, for the control's aria-describedby. */
export const describedBy = (id: string, hint?: unknown, error?: unknown) =>
  [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;

/** Label above, control, hint and error below. The control must use `id`. */
export function Field(
  { id, label, hint, error, children }: {
    id: string;
    label: ComponentChildren;
    hint?: ComponentChildren;
    error?: string | null;
    children: ComponentChildren;
  },
) {
  return (
    <div class={error ? "field field-invalid" : "field"}>
      <label for={id}>{label}</label>
      {children}
      {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
      {error && <p class="field-error" id={`${id}-error`}>{error}</p>}
    </div>
  );
}
