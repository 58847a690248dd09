/** Copies a text to the clipboard and says so ("Copied") for two seconds. */
import { useEffect, useState } from "preact/hooks";

function fallbackCopy(text: string): boolean {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.className = "sr-only";
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  return ok;
}

/** A button that copies `text`; `label` names what is copied for screen readers. */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  useEffect(() => {
    if (state === "idle") return;
    const t = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(t);
  }, [state]);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState(fallbackCopy(text) ? "copied" : "failed");
    }
  };
  return (
    <button
      type="button"
      class={`btn btn-sm copy copy-${state}`}
      onClick={copy}
      aria-label={label === "Copy" ? undefined : label}
    >
      <span aria-hidden={label === "Copy" ? undefined : "true"}>
        {state === "copied" ? "✓ Copied" : state === "failed" ? "Select and copy" : "Copy"}
      </span>
      <span class="sr-only" role="status">
        {state === "copied" ? "Copied to clipboard" : state === "failed" ? "Copy failed" : ""}
      </span>
    </button>
  );
}
