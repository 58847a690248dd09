/**
 * The server half of our islands: `<Island name props>` renders the island's HTML in place, inside
 * a marker element that also carries the props as JSON, so the client boot can hydrate it.
 */
import type { ComponentProps } from "preact";
import { type IslandName, islands } from "../../islands/mod.ts";

/** Serializes props for a `<script type="application/json">`: no `<`, so no `</script>` escape. */
export function serializeProps(props: unknown): string {
  return JSON.stringify(props ?? {})
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** Renders island `name` with `props` and marks it for hydration by `lib/ui/boot.ts`. */
export function Island<N extends IslandName>(
  { name, props }: { name: N; props: ComponentProps<(typeof islands)[N]> },
) {
  // deno-lint-ignore no-explicit-any
  const Component = islands[name] as any;
  return (
    <div data-island={name} class="island">
      <script
        type="application/json"
        // deno-lint-ignore react-no-danger
        dangerouslySetInnerHTML={{ __html: serializeProps(props) }}
      />
      <div data-island-root class="island">
        <Component {...(props as object)} />
      </div>
    </div>
  );
}
