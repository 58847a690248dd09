/**
 * The client entry of the bundle: hydrates every `[data-island]` marker rendered by `<Island>`
 * with the component named in the registry and the props serialized beside it.
 */
import { h, hydrate } from "preact";
import { type IslandName, islands } from "../../islands/mod.ts";

/** Hydrates every island marker under `root`; returns how many were hydrated. */
export function hydrateIslands(root: ParentNode = document): number {
  let n = 0;
  for (const marker of root.querySelectorAll<HTMLElement>("[data-island]")) {
    const Component = islands[marker.dataset.island as IslandName];
    const target = marker.querySelector<HTMLElement>(":scope > [data-island-root]");
    if (!Component || !target) continue;
    const json = marker.querySelector(":scope > script[type='application/json']")?.textContent;
    // deno-lint-ignore no-explicit-any
    hydrate(h(Component as any, JSON.parse(json || "{}")), target);
    n++;
  }
  return n;
}

hydrateIslands();
document.documentElement.dataset.hydrated = "true";
