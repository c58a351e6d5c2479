import { z } from "zod";
import { ALL_EVENTS } from "@/server/domain/webhooks";
import { SUBSCRIBABLE_EVENT_TYPES } from "@/server/domain/events";
import { toDeliveryResource, toEndpointResource } from "@/server/schemas/webhooks";
import type { WebhookEndpoint } from "@/db/schema";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { deleteEndpoint } from "@/server/services/webhooks/delete-endpoint";
import { endpointAttemptStats, STATS_WINDOW_MS, type EndpointAttemptStats } from "@/server/services/webhooks/endpoint-attempt-stats";
import { getEndpoint } from "@/server/services/webhooks/get-endpoint";
import { listDeliveries } from "@/server/services/webhooks/list-deliveries";
import { listEndpoints } from "@/server/services/webhooks/list-endpoints";
import { rollEndpointSecret } from "@/server/services/webhooks/roll-endpoint-secret";
import { sendTestEvent } from "@/server/services/webhooks/send-test-event";
import { updateEndpoint } from "@/server/services/webhooks/update-endpoint";
import { ROLLED_SECRET_OVERLAP_MS } from "@/server/domain/webhooks";
import { confirmCallerPassword, confirmPasswordInput, developerProcedure, objectId, pageInput, router, viewerProcedure } from "../init";
import { formKeyInput, once } from "../once";

const url = z.string().trim().min(1, "Enter the URL.").max(2048);
const enabledEvents = z
  .array(z.enum([ALL_EVENTS, ...SUBSCRIBABLE_EVENT_TYPES]))
  .min(1, "Choose at least one event type, or all of them.")
  .max(SUBSCRIBABLE_EVENT_TYPES.length + 1)
  // As the API stores it: "*" alone, or each type once.
  .transform((list) => (list.includes(ALL_EVENTS) ? [ALL_EVENTS] : [...new Set(list)]));
const description = z.string().trim().max(500);

const withStats = (s: EndpointAttemptStats | undefined) => ({
  attempts24h: s?.attempts ?? 0,
  failures24h: s?.failures ?? 0,
  lastAttemptAt: s?.lastAttemptAt?.toISOString() ?? null,
  lastFailure: s?.lastFailure ?? null,
});

export const webhooksRouter = router({
  /** Endpoints newest first, each with its health and its attempts and failures over the last 24 h. */
  list: viewerProcedure
    .input(z.object(pageInput))
    .query(async ({ ctx, input }) => {
      const page = await listEndpoints(ctx.service, input);
      const stats = await endpointAttemptStats(ctx.service, page.data.map((e) => e.id));
      const now = ctx.service.clock.now();
      return {
        data: page.data.map((e) => ({ ...toEndpointResource(e, { now }), ...withStats(stats.get(e.id)) })),
        hasMore: page.hasMore,
        statsWindowHours: STATS_WINDOW_MS / 3_600_000,
      };
    }),

  get: viewerProcedure.input(z.object({ id: objectId })).query(async ({ ctx, input }) => {
    const endpoint = await getEndpoint(ctx.service, input.id);
    const stats = await endpointAttemptStats(ctx.service, [endpoint.id]);
    return { ...toEndpointResource(endpoint, { now: ctx.service.clock.now() }), ...withStats(stats.get(endpoint.id)) };
  }),

  /** An endpoint's deliveries (its recent attempts), newest first, keyset pages. */
  deliveries: viewerProcedure
    .input(z.object({ endpointId: objectId, ...pageInput, limit: pageInput.limit.removeDefault().default(20) }))
    .query(async ({ ctx, input }) => {
      // Missing, foreign and other-environment endpoints answer NOT_FOUND rather than an empty list.
      await getEndpoint(ctx.service, input.endpointId);
      const page = await listDeliveries(
        ctx.service,
        { endpointId: input.endpointId },
        { limit: input.limit, startingAfter: input.startingAfter, endingBefore: input.endingBefore },
      );
      return { data: page.data.map(toDeliveryResource), hasMore: page.hasMore };
    }),

  /** The answer carries the signing secret: the only time it is shown. A live one needs the caller's password. */
  create: developerProcedure
    .input(z.object({ url, enabledEvents, description: description.optional(), confirmPassword: confirmPasswordInput, formKey: formKeyInput.optional() }))
    .mutation(async ({ ctx, input }) => {
      if (ctx.service.livemode) await confirmCallerPassword(ctx, input.confirmPassword);
      const shown = (e: WebhookEndpoint) => toEndpointResource(e, { withSecret: true, now: ctx.service.clock.now() });
      return once(
        ctx.service,
        "webhooks.create",
        input.formKey,
        (record) => createEndpoint(ctx.service, { url: input.url, enabledEvents: input.enabledEvents, description: input.description || undefined, response: record }),
        shown,
      );
    }),

  /**
   * Where a live endpoint sends is as much a secret's worth as its secret: a stolen session that
   * pointed it elsewhere would receive every later event, and any replay. Saving a live endpoint's
   * URL needs the caller's password, as creating one does; switching it on or off does not.
   */
  update: developerProcedure
    .input(
      z.object({
        id: objectId,
        url: url.optional(),
        enabledEvents: enabledEvents.optional(),
        description: description.nullable().optional(),
        disabled: z.boolean().optional(),
        confirmPassword: confirmPasswordInput,
      }),
    )
    .mutation(async ({ ctx, input }) => {
      if (ctx.service.livemode && input.url !== undefined) await confirmCallerPassword(ctx, input.confirmPassword);
      const endpoint = await updateEndpoint(ctx.service, input.id, {
        url: input.url,
        enabledEvents: input.enabledEvents,
        description: input.description === "" ? null : input.description,
        disabled: input.disabled,
      });
      return toEndpointResource(endpoint, { now: ctx.service.clock.now() });
    }),

  /** A new secret, shown once; the old one keeps signing alongside it for `overlapHours`. A live one needs the caller's password. */
  rollSecret: developerProcedure.input(z.object({ id: objectId, confirmPassword: confirmPasswordInput, formKey: formKeyInput.optional() })).mutation(async ({ ctx, input }) => {
    if (ctx.service.livemode) await confirmCallerPassword(ctx, input.confirmPassword);
    // Rolled again after a lost answer, the first roll's secret is shown, and the one it kept still signs.
    const shown = (e: WebhookEndpoint) => ({
      ...toEndpointResource(e, { withSecret: true, now: ctx.service.clock.now() }),
      overlapHours: ROLLED_SECRET_OVERLAP_MS / 3_600_000,
    });
    return once(ctx.service, `webhooks.rollSecret:${input.id}`, input.formKey, (record) => rollEndpointSecret(ctx.service, input.id, record), shown);
  }),

  delete: developerProcedure.input(z.object({ id: objectId })).mutation(async ({ ctx, input }) => deleteEndpoint(ctx.service, input.id)),

  /** A webhook_endpoint.test event to this endpoint alone. */
  sendTest: developerProcedure.input(z.object({ id: objectId })).mutation(async ({ ctx, input }) => {
    const { event, delivery } = await sendTestEvent(ctx.service, input.id);
    return { eventId: event.id, deliveryId: delivery.id };
  }),
});
