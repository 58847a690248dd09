/** Ready-to-paste usage of a fresh secret: a curl `tools/list` call and an MCP client config. */

/** A server's MCP endpoint for the snippets. */
export interface SnippetServer {
  slug: string;
  url: string;
}

/** curl that lists the server's tools with the token. */
export function curlSnippet(url: string, secret: string): string {
  return [
    `curl -sS ${url} \\`,
    `  -H "Authorization: Bearer ${secret}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -H "Accept: application/json, text/event-stream" \\`,
    `  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}'`,
  ].join("\n");
}

/** An `mcpServers` config (Streamable HTTP with a Bearer header) for every scoped server. */
export function mcpConfigSnippet(servers: SnippetServer[], secret: string): string {
  const mcpServers = Object.fromEntries(servers.map((s) => [s.slug, {
    type: "http",
    url: s.url,
    headers: { Authorization: `Bearer ${secret}` },
  }]));
  return JSON.stringify({ mcpServers }, null, 2);
}
