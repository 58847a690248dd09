/** User accounts: sign-up, lookup, password change. */
import type { AppDeps } from "../context.ts";
import { userByEmailKey, userKey } from "../kv/keys.ts";
import { newId } from "../ids.ts";
import { checkPasswordStrength, hashPassword } from "./passwords.ts";
import { HttpError } from "../http/errors.ts";

/** A stored user. */
export interface User {
  id: string;
  email: string;
  password_hash: string;
  created_at: string;
}

/** The public view of a user. */
export const publicUser = (u: User) => ({ id: u.id, email: u.email });

/** Lower-cases and checks an email address (RangeError when it is not one). */
export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    throw new RangeError('Field "email" must be an email address');
  }
  return email;
}

/** Creates a user; 409 when the email is taken (checked atomically). */
export async function createUser(deps: AppDeps, rawEmail: string, password: string): Promise<User> {
  const email = normalizeEmail(rawEmail);
  checkPasswordStrength(password);
  const user: User = {
    id: newId(),
    email,
    password_hash: await hashPassword(password, deps.passwordIterations),
    created_at: new Date(deps.clock.now()).toISOString(),
  };
  const res = await deps.kv.atomic()
    .check({ key: userByEmailKey(email), versionstamp: null })
    .set(userKey(user.id), user)
    .set(userByEmailKey(email), user.id)
    .commit();
  if (!res.ok) throw new HttpError("conflict", "An account with this email already exists");
  return user;
}

/** A user by id, or null. */
export async function getUser(kv: Deno.Kv, id: string): Promise<User | null> {
  return (await kv.get<User>(userKey(id))).value;
}

/** A user by email, or null. */
export async function getUserByEmail(kv: Deno.Kv, rawEmail: string): Promise<User | null> {
  let email: string;
  try {
    email = normalizeEmail(rawEmail);
  } catch {
    return null;
  }
  const id = (await kv.get<string>(userByEmailKey(email))).value;
  return id ? await getUser(kv, id) : null;
}
