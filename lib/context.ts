import type { Config } from "./config.ts";
import type { Clock } from "./clock.ts";
import type { ChangeFeed } from "./kv/change_feed.ts";

/** What every lib function and route needs: injected, never global. */
export interface AppDeps {
  kv: Deno.Kv;
  config: Config;
  clock: Clock;
  /** PBKDF2 iterations for new password hashes (tests lower it; production 600 000). */
  passwordIterations: number;
  /** The change feed that keeps every instance's caches fresh. */
  changes: ChangeFeed;
  /** Where toolgate writes its log lines (never secrets). */
  log: (line: string) => void;
}
