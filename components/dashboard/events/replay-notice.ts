import { plural } from "@/components/ui/plural";

/**
 * What replaying one event did, in words: `queued` deliveries go out within a minute, `retries`
 * of them retries that were already pending (brought forward, or left at a time within the
 * minute, instead of a second delivery to that endpoint).
 */
export function replayNotice(queued: number, retries: number): string {
  if (queued === 0) return "Nothing queued: no enabled endpoint is subscribed to this event type. Choose one endpoint to send it anyway.";
  const added = queued - retries;
  const shown = `${queued === 1 ? "It shows" : "They show"} below as ${queued === 1 ? "it goes" : "they go"} out.`;
  if (retries === 0) return `Queued ${plural(added, "delivery", "deliveries")}. ${shown}`;
  const pending = `${retries === 1 ? "a retry" : `${retries} retries`} already pending ${retries === 1 ? "goes" : "go"} out within a minute instead of a second delivery`;
  return added === 0 ? `Nothing new queued: ${pending}. ${shown}` : `Queued ${plural(added, "new delivery", "new deliveries")}; ${pending}. ${shown}`;
}
