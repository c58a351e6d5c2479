/** A count with its noun, singular for one: `plural(1, "event")` → "1 event", `plural(3, "delivery", "deliveries")` → "3 deliveries". */
export const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-GB")} ${n === 1 ? one : many}`;
