import { getDb } from "@/db/client";
import { systemClock } from "@/server/clock";
import { providers } from "@/server/providers/registry";
import { sharedWebhookPoster } from "../webhook-poster";

/** What every function's steps need: the same context the local runner gives the verbs. */
export async function jobDeps() {
  return { db: await getDb(), clock: systemClock, providers, webhooks: sharedWebhookPoster() };
}
