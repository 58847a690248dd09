/** The HTML document around every page: head, top navigation (when signed in) and main column. */
import type { ComponentChildren } from "preact";

/** Sections of the signed-in navigation. */
export type NavSection = "tokens" | "servers" | "security" | "account";

const NAV: [NavSection, string, string][] = [
  ["tokens", "/tokens", "API tokens"],
  ["servers", "/servers", "Servers"],
  ["security", "/security", "Security log"],
  ["account", "/account", "Account"],
];

/** What the layout needs besides the page itself. */
export interface LayoutProps {
  title: string;
  /** Signed-in user: shows the navigation and the sign-out button. */
  user?: { email: string; csrf: string };
  active?: NavSection;
  cssUrl: string;
  /** The islands bundle, only on pages that have islands. */
  scriptUrl?: string;
  /** The page's rendered HTML. */
  mainHtml: string;
  children?: ComponentChildren;
}

/** The full document. */
export function Layout(p: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{`${p.title} · toolgate`}</title>
        <link rel="icon" href="/static/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href={p.cssUrl} />
        {p.user && <meta name="csrf-token" content={p.user.csrf} />}
        {p.scriptUrl && <script type="module" src={p.scriptUrl} />}
      </head>
      <body class={p.user ? "app" : "bare"}>
        <a class="skip" href="#main">Skip to content</a>
        <header class="topbar">
          <div class="topbar-inner">
            <a class="brand" href={p.user ? "/tokens" : "/sign-in"}>
              <span class="brand-mark" aria-hidden="true">tg</span> toolgate
            </a>
            {p.user && (
              <nav aria-label="Main">
                {NAV.map(([key, href, label]) => (
                  <a href={href} aria-current={p.active === key ? "page" : undefined}>{label}</a>
                ))}
              </nav>
            )}
            {p.user && (
              <form method="post" action="/sign-out" class="signout">
                <span class="who" title={p.user.email}>{p.user.email}</span>
                <input type="hidden" name="_csrf" value={p.user.csrf} />
                <button type="submit" class="btn btn-ghost btn-sm">Sign out</button>
              </form>
            )}
          </div>
        </header>
        <main id="main" class="container" dangerouslySetInnerHTML={{ __html: p.mainHtml }} />
      </body>
    </html>
  );
}
