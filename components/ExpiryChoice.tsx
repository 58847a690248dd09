/** The 7 / 30 / 90 day expiration picker (SPEC 2.1), optionally with "keep the current date". */
import { absoluteTime, relativeTime } from "../lib/ui/format.ts";

/** The lifetimes a token may have. */
export const EXPIRY_DAYS = [7, 30, 90] as const;

/** A radio group; `value` 0 means "keep" (only when `keep` names the current expiry). */
export function ExpiryChoice(
  { value, onChange, keep, now }: {
    value: number;
    onChange(days: number): void;
    /** Current expires_at: offers "keep" as the first choice. */
    keep?: string;
    now: number;
  },
) {
  const ends = value === 0 && keep ? keep : new Date(now + value * 86_400_000).toISOString();
  return (
    <fieldset class="field">
      <legend>Expiration</legend>
      <div class="segmented">
        {keep && (
          <label>
            <input
              type="radio"
              name="expiry"
              value="0"
              checked={value === 0}
              onChange={() => onChange(0)}
            />
            <span>Keep</span>
          </label>
        )}
        {EXPIRY_DAYS.map((d) => (
          <label>
            <input
              type="radio"
              name="expiry"
              value={String(d)}
              checked={value === d}
              onChange={() => onChange(d)}
            />
            <span>{d} days</span>
          </label>
        ))}
      </div>
      <p class="hint">
        {value === 0 ? "Stays as it is: expires " : `${keep ? "From now: e" : "E"}xpires `}
        {relativeTime(ends, now)}, on {absoluteTime(ends)}. Tokens never live longer than 90 days.
      </p>
    </fieldset>
  );
}
