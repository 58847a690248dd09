/** The Hono environment shared by every route: injected deps and what auth found. */
import type { AppDeps } from "../context.ts";
import type { User } from "../accounts/users.ts";
import type { Session } from "../accounts/sessions.ts";

/** Per-request variables set by middleware. */
export interface Vars {
  deps: AppDeps;
  /** The caller's IP (socket or trusted X-Forwarded-For), null when unknown. */
  clientIp: string | null;
  /** Set by session auth. */
  user: User;
  /** Set by session auth: the session and its key hash. */
  session: { hash: string; session: Session };
}

/** Hono's `Env` for toolgate. `Bindings` is what Deno.serve passes as the second argument. */
export interface AppEnv {
  Bindings: { remoteAddr?: { hostname: string } };
  Variables: Vars;
}
