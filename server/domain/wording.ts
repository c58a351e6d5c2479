/** Allowed values as a sentence says them: "wallet", "USD or ZWG", "one of a, b or c". */
export function allowedValues(values: readonly unknown[]): string {
  const words = values.map(String);
  if (words.length <= 1) return words.join("");
  if (words.length === 2) return `${words[0]} or ${words[1]}`;
  return `one of ${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
}
