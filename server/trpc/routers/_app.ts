import { router } from "../init";
import { apiKeysRouter } from "./api-keys";
import { checkoutSessionsRouter } from "./checkout-sessions";
import { eventsRouter } from "./events";
import { overviewRouter } from "./overview";
import { paymentLinksRouter } from "./payment-links";
import { paymentsRouter } from "./payments";
import { securityRouter } from "./security";
import { sessionRouter } from "./session";
import { settingsRouter } from "./settings";
import { settlementsRouter } from "./settlements";
import { staffRouter } from "./staff";
import { webhooksRouter } from "./webhooks";

/** The dashboard's API: one router per area, each procedure a call to a service verb. */
export const appRouter = router({
  session: sessionRouter,
  overview: overviewRouter,
  payments: paymentsRouter,
  events: eventsRouter,
  webhooks: webhooksRouter,
  apiKeys: apiKeysRouter,
  paymentLinks: paymentLinksRouter,
  checkoutSessions: checkoutSessionsRouter,
  settlements: settlementsRouter,
  settings: settingsRouter,
  staff: staffRouter,
  security: securityRouter,
});

export type AppRouter = typeof appRouter;
