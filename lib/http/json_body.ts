/**
 * Reading JSON request bodies safely: a size cap, a clear error for bad JSON, and a small field
 * schema that rejects missing, wrong-typed and unknown fields with a message naming the field.
 */
import { HttpError } from "./errors.ts";

/** Reads the body as text, refusing more than `maxBytes` (413) without buffering past it. */
export async function readBodyText(req: Request, maxBytes: number): Promise<string> {
  const declared = req.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
    throw new HttpError("payload_too_large", `The request body is larger than ${maxBytes} bytes`);
  }
  if (!req.body) return "";
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new HttpError(
          "payload_too_large",
          `The request body is larger than ${maxBytes} bytes`,
        );
      }
      chunks.push(value);
    }
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError("invalid_request", "The request body could not be read");
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(all);
  } catch {
    throw new HttpError("invalid_json", "The request body is not valid UTF-8");
  }
}

/** Parses a JSON body (empty body → `undefined`), 400 `invalid_json` when it is not JSON. */
export async function readJson(req: Request, maxBytes: number): Promise<unknown> {
  const ct = req.headers.get("content-type");
  const text = await readBodyText(req, maxBytes);
  if (text.trim() === "") return undefined;
  if (ct && !/^application\/([\w.+-]+\+)?json\b/i.test(ct.trim())) {
    throw new HttpError("unsupported_media_type");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError("invalid_json");
  }
}

/** One field's rule. */
export type FieldRule =
  | { type: "string"; optional?: boolean; nullable?: boolean; min?: number; max?: number }
  | { type: "integer"; optional?: boolean; nullable?: boolean; min?: number; max?: number }
  | { type: "boolean"; optional?: boolean }
  | { type: "string[]"; optional?: boolean; nullable?: boolean; maxItems?: number }
  | { type: "object"; optional?: boolean; nullable?: boolean };

type Base<R extends FieldRule> = R extends { type: "string" } ? string
  : R extends { type: "integer" } ? number
  : R extends { type: "boolean" } ? boolean
  : R extends { type: "string[]" } ? string[]
  : Record<string, unknown>;
type Value<R extends FieldRule> =
  | Base<R>
  | (R extends { nullable: true } ? null : never)
  | (R extends { optional: true } ? undefined : never);

/** The typed result of `validateBody` for a schema. */
export type Parsed<S extends Record<string, FieldRule>> = { [K in keyof S]: Value<S[K]> };

const bad = (message: string) => new HttpError("invalid_request", message);

/**
 * Checks that `body` is an object whose fields follow `schema`; unknown fields are refused with
 * `unknown_field` unless `unknownMessage` turns them into a more helpful sentence.
 */
export function validateBody<S extends Record<string, FieldRule>>(
  body: unknown,
  schema: S,
  unknownMessage?: (field: string) => string | undefined,
): Parsed<S> {
  if (body === undefined) body = {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw bad("The request body must be a JSON object");
  }
  const obj = body as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!Object.hasOwn(schema, key)) {
      const msg = unknownMessage?.(key) ?? `Unknown field "${key}"`;
      throw new HttpError("unknown_field", msg, { field: key });
    }
  }
  const out: Record<string, unknown> = {};
  for (const [key, rule] of Object.entries(schema)) {
    const v = obj[key];
    if (v === undefined) {
      if (!rule.optional) throw bad(`Field "${key}" is required`);
      continue;
    }
    if (v === null) {
      if (!("nullable" in rule && rule.nullable)) throw bad(`Field "${key}" must not be null`);
      out[key] = null;
      continue;
    }
    out[key] = checkType(key, rule, v);
  }
  return out as Parsed<S>;
}

function checkType(key: string, rule: FieldRule, v: unknown): unknown {
  switch (rule.type) {
    case "string": {
      if (typeof v !== "string") throw bad(`Field "${key}" must be a string`);
      const len = [...v].length;
      if (rule.min !== undefined && len < rule.min) {
        throw bad(`Field "${key}" must be at least ${rule.min} characters`);
      }
      if (rule.max !== undefined && len > rule.max) {
        throw bad(`Field "${key}" must be at most ${rule.max} characters`);
      }
      return v;
    }
    case "integer": {
      if (typeof v !== "number" || !Number.isInteger(v)) {
        throw bad(`Field "${key}" must be a whole number`);
      }
      if (rule.min !== undefined && v < rule.min) throw bad(`Field "${key}" must be ≥ ${rule.min}`);
      if (rule.max !== undefined && v > rule.max) throw bad(`Field "${key}" must be ≤ ${rule.max}`);
      return v;
    }
    case "boolean":
      if (typeof v !== "boolean") throw bad(`Field "${key}" must be true or false`);
      return v;
    case "string[]": {
      if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) {
        throw bad(`Field "${key}" must be a list of strings`);
      }
      if (rule.maxItems !== undefined && v.length > rule.maxItems) {
        throw bad(`Field "${key}" may have at most ${rule.maxItems} entries`);
      }
      return v;
    }
    case "object":
      if (typeof v !== "object" || Array.isArray(v)) throw bad(`Field "${key}" must be an object`);
      return v;
  }
}
