import { invalidParam } from "@/server/domain/errors";

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
  try {
    return { value: JSON.parse(raw) as unknown, raw };
  } catch {
    throw invalidParam("body", "The request body is not valid JSON.");
  }
}

async function readLimited(request: Request): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
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
