/** `3 deliveries`, `1 event`: a count and its noun, the number as the reader's locale writes it. */
export const plural = (n: number, one: string, many: string) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/**
 * What replaying one event did, in words: `queued` deliveries go out now, `retries` of them
 * retries that were already pending (sent now instead of a second delivery to that endpoint).
 */
export function replayNotice(queued: number, retries: number): string {
  if (queued === 0) return "Nothing queued: no enabled endpoint is subscribed to this event type. Choose one endpoint to send it anyway.";
  const added = queued - retries;
  const shown = `${queued === 1 ? "It shows" : "They show"} below as ${queued === 1 ? "it goes" : "they go"} out.`;
  if (retries === 0) return `Queued ${plural(added, "delivery", "deliveries")}. ${shown}`;
  const pending = `${retries === 1 ? "a retry" : `${retries} retries`} already pending ${retries === 1 ? "goes" : "go"} out now instead of a second delivery`;
  return added === 0 ? `Nothing new queued: ${pending}. ${shown}` : `Queued ${plural(added, "new delivery", "new deliveries")}; ${pending}. ${shown}`;
}
