/** The optional IP allowlist textarea, validated as the user types. */
import { describedBy, Field } from "./Field.tsx";
import { invalidEntries } from "../lib/ui/allowlist.ts";

const PLACEHOLDER = "203.0.113.7\n10.0.0.0/8";

/** The error for a typed allowlist, or null when every entry is an address or CIDR range. */
export function allowlistError(text: string): string | null {
  const bad = invalidEntries(text);
  if (!bad.length) return null;
  const list = bad.slice(0, 3).map((e) => `“${e}”`).join(", ");
  return `${list}${bad.length > 3 ? " and others" : ""} ${
    bad.length === 1 ? "is not an IP address or CIDR range" : "are not IP addresses or CIDR ranges"
  }.`;
}

/** Textarea for allowlist entries, one per line (commas and spaces also separate). */
export function AllowlistField(
  { id, value, onInput }: { id: string; value: string; onInput(text: string): void },
) {
  const error = allowlistError(value);
  return (
    <Field
      id={id}
      label={
        <>
          IP allowlist <span class="optional">optional</span>
        </>
      }
      hint="One IPv4/IPv6 address or CIDR range per line, e.g. 203.0.113.7 or 10.0.0.0/8. Empty allows any address."
      error={error}
    >
      <textarea
        id={id}
        rows={3}
        spellcheck={false}
        autocomplete="off"
        class="mono"
        placeholder={PLACEHOLDER}
        value={value}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy(id, true, error)}
        onInput={(e) => onInput(e.currentTarget.value)}
      />
    </Field>
  );
}
