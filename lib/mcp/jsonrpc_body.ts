/** Reading an MCP POST body: size cap (413), JSON (400 -32700), JSON-RPC shape (400 -32600). */
import { HttpError } from "../http/errors.ts";
import { readBodyText } from "../http/json_body.ts";

/** A checked POST body: what to forward (the bytes as received) and whether it opens a session. */
export interface RpcBody {
  /** The body as received (UTF-8). */
  bytes: Uint8Array<ArrayBuffer>;
  initialize: boolean;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/**
 * The body's bytes and text. With a Content-Length within the cap (the HTTP server holds the body
 * to it) the body is read in one go; otherwise it is read in chunks and cut at the cap.
 */
async function readBody(
  req: Request,
  maxBytes: number,
): Promise<[Uint8Array<ArrayBuffer>, string]> {
  const declared = req.headers.get("content-length");
  if (declared === null || !/^\d{1,12}$/.test(declared) || Number(declared) > maxBytes) {
    const text = await readBodyText(req, maxBytes);
    return [encoder.encode(text), text];
  }
  const bytes = new Uint8Array(await req.arrayBuffer());
  if (bytes.byteLength > maxBytes) throw new HttpError("payload_too_large");
  try {
    return [bytes, utf8.decode(bytes)];
  } catch {
    throw new HttpError("invalid_json", "The request body is not valid UTF-8");
  }
}

function isMessage(m: unknown): m is { jsonrpc: string; method?: unknown } {
  return typeof m === "object" && m !== null && !Array.isArray(m) &&
    (m as { jsonrpc?: unknown }).jsonrpc === "2.0";
}

/** Reads and checks a JSON-RPC message or batch; throws the HttpError that refuses it. */
export async function readRpcBody(req: Request, maxBytes: number): Promise<RpcBody> {
  const [bytes, text] = await readBody(req, maxBytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new HttpError("invalid_json");
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  if (messages.length === 0 || !messages.every(isMessage)) {
    throw new HttpError("invalid_request", "The body must be a JSON-RPC 2.0 message or batch");
  }
  return { bytes, initialize: messages.some((m) => m.method === "initialize") };
}
