import type { Db } from "@/db/client";
import type { Merchant } from "@/db/schema";
import type { Clock } from "./clock";
import type { ProviderRegistry } from "./providers/port";

/** Who is acting: recorded on what they change and used for authorisation. */
export type Actor =
  | { type: "api_key"; keyId: string; displayPrefix: string }
  | { type: "staff"; userId: string; email: string }
  | { type: "system"; job: string };

/** What verbs that act before a merchant is known (sign-in, key auth, seeding) receive. */
export type BaseContext = { db: Db; clock: Clock };

/**
 * What a customer's page gives the verbs it calls (no key, no merchant yet: the object opened names
 * it), with the customer's address when the proxies in front tell it.
 */
export type CustomerContext = BaseContext & { providers: ProviderRegistry; clientAddress?: string | null };

/** What every merchant-scoped service verb receives: never `process.env`, never `Date.now()`. */
export type ServiceContext = BaseContext & {
  providers: ProviderRegistry;
  merchant: Merchant;
  livemode: boolean;
  actor: Actor;
  requestId?: string;
  /** Where the request came from, when trusted proxies tell it (server/http/client-address.ts). */
  clientAddress?: string | null;
};
