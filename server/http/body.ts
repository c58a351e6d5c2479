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
  let value: unknown;
  try {
    value = JSON.parse(raw) as unknown;
  } catch {
    throw invalidParam("body", "The request body is not valid JSON.");
  }
  const unstorable = findUnstorable(value);
  if (unstorable?.problem === "nul") throw invalidParam(unstorable.path || "body", "Text may not contain the NUL character (\\u0000).");
  if (unstorable?.problem === "proto") throw invalidParam(unstorable.path, "'__proto__' may not be used as a key.");
  return { value, raw };
}

/**
 * What a parsed body holds that could not be kept as sent, found here rather than deep in a write,
 * iteratively (a 64 KB body can nest thousands of levels deep): U+0000, which PostgreSQL text
 * cannot hold (a 500 at the INSERT), and a `__proto__` key, which JSON.parse keeps as a key of its
 * own but any object built from it drops without a word. Returns the offending path ("" for the
 * root) and the problem, or null.
 */
export function findUnstorable(root: unknown): { path: string; problem: "nul" | "proto" } | null {
  const stack: [unknown, string][] = [[root, ""]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === "string") {
      if (value.includes("\u0000")) return { path, problem: "nul" };
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push([v, path ? `${path}.${i}` : String(i)]));
    } else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        const child = path ? `${path}.${k}` : k;
        if (k.includes("\u0000")) return { path: child, problem: "nul" };
        if (k === "__proto__") return { path: child, problem: "proto" };
        stack.push([v, child]);
      }
    }
  }
  return null;
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
