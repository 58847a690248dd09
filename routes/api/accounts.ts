/** Accounts: sign-up, sign-in/out, password change and reset. */
import { Hono } from "hono";
import type { AppEnv } from "../../lib/http/env.ts";
import { createUser, publicUser } from "../../lib/accounts/users.ts";
import { signIn } from "../../lib/accounts/sign_in.ts";
import { createSession, deleteSession } from "../../lib/accounts/sessions.ts";
import {
  changePassword,
  confirmPasswordReset,
  requestPasswordReset,
} from "../../lib/accounts/password.ts";
import {
  clearSessionCookie,
  requireSession,
  setSessionCookie,
} from "../../lib/http/session_auth.ts";
import { recordAudit } from "../../lib/audit/log.ts";
import { body, originOf } from "./body.ts";

const credentials = {
  email: { type: "string", max: 254 },
  password: { type: "string", max: 256 },
} as const;

/** `/api/users`, `/api/session`, `/api/password`, `/api/password-reset`. */
export function accountRoutes(): Hono<AppEnv> {
  const r = new Hono<AppEnv>();

  r.post("/users", async (c) => {
    const { email, password } = await body(c, credentials);
    const user = await createUser(c.get("deps"), email, password);
    return c.json(publicUser(user), 201);
  });

  r.post("/session", async (c) => {
    const { email, password } = await body(c, credentials);
    const deps = c.get("deps");
    const origin = originOf(c);
    const user = await signIn(deps, email, password, origin.ip, undefined, origin.user_agent);
    const { id, session } = await createSession(deps, user.id);
    await recordAudit(deps.kv, user.id, deps.clock.now(), "sign_in", origin);
    setSessionCookie(c, id);
    return c.json({ user: publicUser(user), csrf_token: session.csrf_token });
  });

  r.get(
    "/session",
    requireSession,
    (c) =>
      c.json({ user: publicUser(c.get("user")), csrf_token: c.get("session").session.csrf_token }),
  );

  r.delete("/session", requireSession, async (c) => {
    const deps = c.get("deps");
    const { hash } = c.get("session");
    await deleteSession(deps.kv, hash, c.get("user").id);
    await recordAudit(deps.kv, c.get("user").id, deps.clock.now(), "sign_out", originOf(c));
    clearSessionCookie(c);
    return c.body(null, 204);
  });

  r.post("/password", requireSession, async (c) => {
    const { current_password, new_password } = await body(c, {
      current_password: { type: "string", max: 256 },
      new_password: { type: "string", max: 256 },
    });
    const result = await changePassword(
      c.get("deps"),
      c.get("user").id,
      current_password,
      new_password,
      c.get("session").hash,
      originOf(c),
    );
    return c.json({ ok: true, ...result });
  });

  r.post("/password-reset", async (c) => {
    const { email } = await body(c, { email: { type: "string", max: 254 } });
    await requestPasswordReset(c.get("deps"), email);
    return c.json({
      ok: true,
      message: "If an account exists for this email, a reset link is on its way.",
    }, 202);
  });

  r.post("/password-reset/confirm", async (c) => {
    const { token, new_password } = await body(c, {
      token: { type: "string", max: 200 },
      new_password: { type: "string", max: 256 },
    });
    const result = await confirmPasswordReset(c.get("deps"), token, new_password, originOf(c));
    return c.json({ ok: true, ...result });
  });

  return r;
}
