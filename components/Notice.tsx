/** A message box: `error` is announced (role="alert"), the others are polite status notes. */
import type { ComponentChildren } from "preact";

/** A boxed message in one of four tones. */
export function Notice(
  { tone = "info", children, id }: {
    tone?: "info" | "warning" | "error" | "success";
    children: ComponentChildren;
    id?: string;
  },
) {
  return (
    <div id={id} class={`notice notice-${tone}`} role={tone === "error" ? "alert" : "status"}>
      {children}
    </div>
  );
}
