/**
 * The registry of islands: every component that ships JavaScript, by the name `<Island>` writes
 * into the page. Add an island here and nowhere else.
 */
import { TokensPage } from "./TokensPage.tsx";
import { CopyButton } from "./CopyButton.tsx";
import { SubscribeButton } from "./SubscribeButton.tsx";
import { VersionsPanel } from "./VersionsPanel.tsx";
import { PasswordForm } from "./PasswordForm.tsx";

/** Island components by name. */
export const islands = { TokensPage, CopyButton, SubscribeButton, VersionsPanel, PasswordForm };

/** The name of a registered island. */
export type IslandName = keyof typeof islands;
