import { invalidParam } from "@/server/domain/errors";
import { findUnstorable, UNSTORABLE_MESSAGE } from "@/server/domain/unstorable";

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads a JSON request body: the content type must be JSON, the body at most 64 KB (counted as
 * it streams, so a lying Content-Length cannot push more through), and it must parse.
 * An empty body is `undefined`.
 */
export async function readJsonBody(request: Request): Promise<{ value: unknown; raw: string }> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const raw = await readLimited(request);
  if (raw.trim() === "") return { value: undefined, raw };

  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json") {
    throw invalidParam("Content-Type", "Request bodies must be JSON: send 'Content-Type: application/json'.");
  }
  let value: unknown;
  try {
    value = JSON.parse(raw) as unknown;
  } catch {
    throw invalidParam("body", "The request body is not valid JSON.");
  }
  const unstorable = findUnstorable(value);
  if (unstorable) throw invalidParam(unstorable.path || "body", UNSTORABLE_MESSAGE[unstorable.problem]);
  return { value, raw };
}

/**
 * Past the limit, how much more of a body is read and dropped, and for how long, before the
 * refusal is sent. Cancelling the body at once closes the connection while the client is still
 * writing; the reset that follows reaches it before the refusal it was sent, which is lost (one
 * 1 MB body in five on a quiet machine). A client that finishes within these reads its 400.
 */
const DISCARD_BYTES = 4 * 1024 * 1024;
const DISCARD_MS = 2_000;

/** The body as UTF-8 text, refused past `max` bytes however the sender declares its length. */
export async function readLimited(request: Request, max = MAX_BODY_BYTES): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await discardRest(reader, size);
      throw tooLarge();
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw invalidParam("body", "The request body is not valid UTF-8.");
  }
}

/**
 * The request with its body read (at most `max` bytes, however its length is declared) and held,
 * for a handler that would otherwise read a body of any size (tRPC parses whatever it is sent).
 * A body past the limit, or not UTF-8, is refused as readLimited refuses it.
 */
export async function withBoundedBody(request: Request, max = MAX_BODY_BYTES): Promise<Request> {
  if (!request.body) return request;
  if (Number(request.headers.get("content-length") ?? "0") > max) {
    await discardUnreadBody(request);
    throw tooLarge();
  }
  const body = await readLimited(request, max);
  const headers = new Headers(request.headers);
  headers.delete("content-length");
  headers.delete("transfer-encoding");
  return new Request(request.url, { method: request.method, headers, body, signal: request.signal });
}

const tooLarge = () => invalidParam("body", `The request body is larger than ${MAX_BODY_BYTES / 1024} KB.`);

/**
 * A request refused before its body was read (a key refused, a rate limit, a declared length over
 * the limit): its body is read and dropped first, as past the limit above, so that the client
 * reads the refusal rather than a reset.
 */
export async function discardUnreadBody(request: Request): Promise<void> {
  if (!request.body || request.bodyUsed || request.body.locked) return;
  await discardRest(request.body.getReader(), 0);
}

/** Reads and drops what is left of a body, up to DISCARD_BYTES in all within DISCARD_MS; then cancels it. */
async function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, size: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), DISCARD_MS)));
  try {
    while (size <= DISCARD_BYTES) {
      const next = await Promise.race([reader.read(), late]);
      if (next === "late" || next.done) break;
      size += next.value.byteLength;
    }
  } catch {
    // The client went away: nothing more to wait for.
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
}
