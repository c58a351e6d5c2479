/** A count as the dashboard writes it, with thousands separated: `count(86038)` → "86,038". */
export const count = (n: number) => n.toLocaleString("en-GB");

/** A count with its noun, singular for one: `plural(1, "event")` → "1 event", `plural(3, "delivery", "deliveries")` → "3 deliveries". */
export const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;
