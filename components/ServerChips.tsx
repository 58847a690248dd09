/** A token's servers as small linked chips. */
import type { TokenScope } from "../lib/ui/types.ts";

/** One chip per scope, linking to the server's page. */
export function ServerChips({ scopes }: { scopes: TokenScope[] }) {
  return (
    <ul class="chips">
      {scopes.map((s) => (
        <li>
          <a
            class="chip"
            href={`/servers/${encodeURIComponent(s.server_slug)}`}
            title={s.server_name}
          >
            {s.server_slug}
          </a>
        </li>
      ))}
    </ul>
  );
}
