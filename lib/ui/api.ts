/**
 * The client's one way to call the JSON API: same-origin fetch with the session's CSRF token
 * (from `<meta name="csrf-token">`), JSON in and out, and `ApiError` carrying the API's message.
 */

/** An error answered by the API (`{"error": {"code", "message"}}`) or a network failure. */
export class ApiError extends Error {
  override name = "ApiError";
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

const csrfToken = () =>
  document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";

/** Calls `path` with an optional JSON body; resolves to the parsed answer (null for 204). */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (method !== "GET") headers["x-csrf-token"] = csrfToken();
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "network", "Could not reach toolgate. Check your connection and retry.");
  }
  if (res.status === 204) return null as T;
  const data = await res.json().catch(() => null);
  if (!res.ok) {
    if (res.status === 401) {
      location.assign(`/sign-in?next=${encodeURIComponent(location.pathname)}`);
    }
    throw new ApiError(
      res.status,
      data?.error?.code ?? "http_error",
      data?.error?.message ?? `Request failed (HTTP ${res.status})`,
    );
  }
  return data as T;
}

/** A user-facing sentence for anything thrown by `api()` or elsewhere. */
export const errorMessage = (err: unknown): string =>
  err instanceof Error ? err.message : "Something went wrong";
