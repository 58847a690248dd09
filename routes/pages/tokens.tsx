/** `/tokens`: the tokens island with the first page of tokens (never a secret) and the servers. */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";
import { listTokens } from "../../lib/tokens/query.ts";
import { Island } from "../../lib/ui/island.tsx";
import { renderPage, requirePage } from "./render.tsx";
import { userServers } from "../../lib/servers/listing.ts";

/** The tokens page. `?new=1` opens the create dialog; `?server=<slug>` pre-selects a server. */
export function tokenPages(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();
  r.get("/tokens", requirePage, async (c) => {
    const deps = c.get("deps");
    const userId = c.get("user").id;
    const [initial, mine] = await Promise.all([
      listTokens(deps, userId),
      userServers(deps, userId),
    ]);
    const servers = mine.map((s) => ({
      id: s.id,
      slug: s.slug,
      name: s.name,
      owned: s.owned,
      base_url: s.base_url,
      path_url: s.path_url,
    }));
    const wanted = c.req.query("server");
    const props = {
      initial,
      servers,
      preselect: servers.some((s) => s.slug === wanted) ? wanted! : null,
      openCreate: c.req.query("new") === "1",
      platformOrigin: deps.config.platformUrl.origin,
    };
    return renderPage(
      c,
      { title: "API tokens", active: "tokens" },
      <Island name="TokensPage" props={props} />,
    );
  });
  return r;
}
