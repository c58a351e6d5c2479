import { getDb } from "@/db/client";
import { systemClock } from "./clock";
import type { BaseContext } from "./context";
import type { ProviderRegistry } from "./providers/port";
import { providers } from "./providers/registry";

/** What adapters without an API key (the hosted pages, their actions and status routes) give verbs. */
export async function systemContext(): Promise<BaseContext & { providers: ProviderRegistry }> {
  return { db: await getDb(), clock: systemClock, providers };
}
