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
      await reader.cancel().catch(() => {});
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

const tooLarge = () => invalidParam("body", `The request body is larger than ${MAX_BODY_BYTES / 1024} KB.`);
