/** The centered card of the signed-out pages (sign-in, sign-up, password reset). */
import type { ComponentChildren } from "preact";
import { Notice } from "./Notice.tsx";

/** A titled card with an optional error or success message and links below it. */
export function AuthCard(
  { title, lead, error, success, footer, children }: {
    title: string;
    lead?: ComponentChildren;
    error?: string | null;
    success?: string | null;
    footer?: ComponentChildren;
    children?: ComponentChildren;
  },
) {
  return (
    <div class="auth">
      <div class="card auth-card">
        <h1>{title}</h1>
        {lead && <p class="muted">{lead}</p>}
        {error && <Notice tone="error">{error}</Notice>}
        {success && <Notice tone="success">{success}</Notice>}
        {children}
      </div>
      {footer && <p class="auth-footer">{footer}</p>}
    </div>
  );
}
