/**
 * What a parsed JSON value may hold that could not be kept as sent, found before any write rather
 * than deep in one:
 * - `nul`: U+0000, which PostgreSQL text cannot hold (a 500 at the INSERT);
 * - `surrogate`: half of a UTF-16 pair (`"\ud800"` alone), which jsonb refuses (a 500) and text
 *   columns turn into U+FFFD, so that two different values would be stored as one;
 * - `proto`: a `__proto__` key, which JSON.parse keeps as a key of its own but any object built
 *   from it drops without a word.
 */
export type Unstorable = { path: string; problem: "nul" | "surrogate" | "proto" };

// Without the `u` flag the pattern sees UTF-16 code units: a high half not followed by a low one,
// or a low half not preceded by a high one.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function problemOf(text: string): Unstorable["problem"] | null {
  if (text.includes("\u0000")) return "nul";
  if (LONE_SURROGATE.test(text)) return "surrogate";
  return null;
}

/**
 * The first unstorable string or key in `root`, walked iteratively (a 64 KB body can nest
 * thousands of levels deep). Returns its dotted path ("" for the root) and the problem, or null.
 */
export function findUnstorable(root: unknown): Unstorable | null {
  const stack: [unknown, string][] = [[root, ""]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === "string") {
      const problem = problemOf(value);
      if (problem) return { path, problem };
    } else if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push([v, path ? `${path}.${i}` : String(i)]));
    } else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) {
        const child = path ? `${path}.${k}` : k;
        const problem = k === "__proto__" ? "proto" : problemOf(k);
        if (problem) return { path: child, problem };
        stack.push([v, child]);
      }
    }
  }
  return null;
}

/** Words for a developer (or a dashboard user) whose input held one. */
export const UNSTORABLE_MESSAGE: Record<Unstorable["problem"], string> = {
  nul: "Text may not contain the NUL character (\\u0000).",
  surrogate: "Text must be valid Unicode: a \\uD800–\\uDFFF escape must be one half of a surrogate pair.",
  proto: "'__proto__' may not be used as a key.",
};
