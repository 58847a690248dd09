/**
 * Signed-out pages that work without JavaScript: sign-in, sign-up, forgot password and the
 * reset page of the emailed link. Each is a classic form posting back to its own URL; success
 * redirects (303), failure re-renders the form with the message and a fitting status.
 */
import { type Context, Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";
import { signIn } from "../../lib/accounts/sign_in.ts";
import { createUser, type User } from "../../lib/accounts/users.ts";
import { createSession, deleteSession } from "../../lib/accounts/sessions.ts";
import { confirmPasswordReset, requestPasswordReset } from "../../lib/accounts/password.ts";
import { clearSessionCookie, loadSession, setSessionCookie } from "../../lib/http/session_auth.ts";
import { recordAudit } from "../../lib/audit/log.ts";
import { originOf } from "../api/body.ts";
import { AuthCard } from "../../components/AuthCard.tsx";
import { Field } from "../../components/Field.tsx";
import { checkFormCsrf, formError, readForm, renderPage, safeNext } from "./render.tsx";

function EmailField({ value, autofocus }: { value?: string; autofocus?: boolean }) {
  return (
    <Field id="email" label="Email">
      <input
        id="email"
        name="email"
        type="email"
        autocomplete="email"
        required
        maxLength={254}
        value={value}
        autofocus={autofocus}
      />
    </Field>
  );
}

function PasswordField(
  { id = "password", label = "Password", isNew, autofocus }: {
    id?: string;
    label?: string;
    isNew?: boolean;
    autofocus?: boolean;
  },
) {
  return (
    <Field id={id} label={label} hint={isNew ? "At least 8 characters." : undefined}>
      <input
        id={id}
        name={id}
        type="password"
        autocomplete={isNew ? "new-password" : "current-password"}
        required
        minLength={isNew ? 8 : undefined}
        maxLength={256}
        autofocus={autofocus}
        aria-describedby={isNew ? `${id}-hint` : undefined}
      />
    </Field>
  );
}

type CardProps = { error?: string | null; email?: string; next?: string };

const SignInCard = (p: CardProps) => (
  <AuthCard
    title="Sign in to toolgate"
    error={p.error}
    footer={
      <>
        New here? <a href="/sign-up">Create an account</a>
      </>
    }
  >
    <form method="post" action="/sign-in" class="stack-sm">
      <input type="hidden" name="next" value={safeNext(p.next)} />
      <EmailField value={p.email} autofocus={!p.email} />
      <PasswordField autofocus={!!p.email} />
      <button type="submit" class="btn btn-primary btn-block">Sign in</button>
      <p class="small">
        <a href="/forgot-password">Forgot your password?</a>
      </p>
    </form>
  </AuthCard>
);

const SignUpCard = (p: CardProps) => (
  <AuthCard
    title="Create your account"
    lead="Manage API tokens and subscriptions for hosted MCP tool servers."
    error={p.error}
    footer={
      <>
        Already have an account? <a href="/sign-in">Sign in</a>
      </>
    }
  >
    <form method="post" action="/sign-up" class="stack-sm">
      <EmailField value={p.email} autofocus />
      <PasswordField isNew />
      <button type="submit" class="btn btn-primary btn-block">Create account</button>
    </form>
  </AuthCard>
);

const ForgotCard = (p: { error?: string | null; sent?: boolean }) => (
  <AuthCard
    title="Reset your password"
    lead={p.sent ? undefined : "We will email you a link to choose a new password."}
    error={p.error}
    success={p.sent
      ? "If an account exists for this email, a reset link is on its way. It works for 30 minutes."
      : null}
    footer={<a href="/sign-in">Back to sign-in</a>}
  >
    {!p.sent && (
      <form method="post" action="/forgot-password" class="stack-sm">
        <EmailField autofocus />
        <button type="submit" class="btn btn-primary btn-block">Send reset link</button>
      </form>
    )}
  </AuthCard>
);

const ResetCard = (p: { token: string; error?: string | null }) => (
  <AuthCard
    title="Choose a new password"
    lead="Setting a new password revokes every API token of your account and signs out all sessions."
    error={p.error}
    footer={<a href="/sign-in">Back to sign-in</a>}
  >
    <form method="post" action="/reset-password" class="stack-sm">
      <input type="hidden" name="token" value={p.token} />
      <PasswordField id="new_password" label="New password" isNew autofocus />
      <button type="submit" class="btn btn-primary btn-block">Set new password</button>
    </form>
  </AuthCard>
);

async function startSession(c: Context<AppEnv>, user: User): Promise<void> {
  const deps = c.get("deps");
  const { id } = await createSession(deps, user.id);
  await recordAudit(deps.kv, user.id, deps.clock.now(), "sign_in", originOf(c));
  setSessionCookie(c, id);
}

/** `/sign-in`, `/sign-up`, `/forgot-password`, `/reset-password`, `POST /sign-out`. */
export function authPages(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

  r.get("/sign-in", async (c) => {
    if (await loadSession(c)) return c.redirect(safeNext(c.req.query("next")), 303);
    return renderPage(c, { title: "Sign in" }, <SignInCard next={c.req.query("next")} />);
  });
  r.post("/sign-in", async (c) => {
    const form = await readForm(c);
    const email = form.get("email") ?? "";
    try {
      const user = await signIn(
        c.get("deps"),
        email,
        form.get("password") ?? "",
        c.get("clientIp"),
      );
      await startSession(c, user);
      return c.redirect(safeNext(form.get("next")), 303);
    } catch (err) {
      const { status, message } = formError(err);
      const card = <SignInCard error={message} email={email} next={form.get("next") ?? ""} />;
      return renderPage(c, { title: "Sign in", status }, card);
    }
  });

  r.get("/sign-up", (c) => renderPage(c, { title: "Create account" }, <SignUpCard />));
  r.post("/sign-up", async (c) => {
    const form = await readForm(c);
    const email = form.get("email") ?? "";
    try {
      const user = await createUser(c.get("deps"), email, form.get("password") ?? "");
      await startSession(c, user);
      return c.redirect("/tokens", 303);
    } catch (err) {
      const { status, message } = formError(err);
      return renderPage(
        c,
        { title: "Create account", status },
        <SignUpCard error={message} email={email} />,
      );
    }
  });

  r.get("/forgot-password", (c) => renderPage(c, { title: "Reset password" }, <ForgotCard />));
  r.post("/forgot-password", async (c) => {
    const form = await readForm(c);
    await requestPasswordReset(c.get("deps"), form.get("email") ?? "");
    return renderPage(c, { title: "Reset password" }, <ForgotCard sent />);
  });

  r.get("/reset-password", (c) => {
    c.header("referrer-policy", "no-referrer");
    return renderPage(
      c,
      { title: "Choose a new password" },
      <ResetCard token={c.req.query("token") ?? ""} />,
    );
  });
  r.post("/reset-password", async (c) => {
    c.header("referrer-policy", "no-referrer");
    const form = await readForm(c);
    const token = form.get("token") ?? "";
    try {
      const { tokens_revoked } = await confirmPasswordReset(
        c.get("deps"),
        token,
        form.get("new_password") ?? "",
        originOf(c),
      );
      const card = (
        <AuthCard
          title="Password changed"
          success={`Your password was changed. ${tokens_revoked} API token(s) were revoked and every session was signed out.`}
        >
          <a class="btn btn-primary btn-block" href="/sign-in">Sign in</a>
        </AuthCard>
      );
      return renderPage(c, { title: "Password changed" }, card);
    } catch (err) {
      const { status, message } = formError(err);
      const card = <ResetCard token={token} error={message} />;
      return renderPage(c, { title: "Choose a new password", status }, card);
    }
  });

  r.post("/sign-out", async (c) => {
    const form = await readForm(c);
    if (await loadSession(c)) {
      checkFormCsrf(c, form);
      const deps = c.get("deps");
      const user = c.get("user");
      await deleteSession(deps.kv, c.get("session").hash, user.id);
      await recordAudit(deps.kv, user.id, deps.clock.now(), "sign_out", originOf(c));
    }
    clearSessionCookie(c);
    return c.redirect("/sign-in", 303);
  });

  return r;
}
