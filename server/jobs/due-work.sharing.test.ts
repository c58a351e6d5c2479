import { inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb, type Db } from "@/db/client";
import { webhookDeliveries } from "@/db/schema";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { fanOutEvents } from "@/server/services/webhooks/fan-out-events";
import { systemClock } from "@/server/clock";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { commitEvents } from "@/server/testing/webhooks";
import { claimDueDeliveriesSharing } from "./due-work";

/** A merchant with endpoints `a` (payment.succeeded) and `b` (payment.failed), and `na` and `nb` due deliveries to each, `a`'s the older. */
async function backlog(na: number, nb: number) {
  const m = await seedTestMerchant();
  const ctx = await m.ctx();
  const db = await getDb();
  const a = await createEndpoint(ctx, { url: "http://127.0.0.1:9/a", enabledEvents: ["payment.succeeded"] });
  const b = await createEndpoint(ctx, { url: "http://127.0.0.1:9/b", enabledEvents: ["payment.failed"] });
  // Fanned out apart, so that a's deliveries fall due first.
  await commitEvents(m.merchant.id, na, "payment.succeeded");
  await fanOutEvents({ db, clock: systemClock }, { merchantId: m.merchant.id });
  await new Promise((r) => setTimeout(r, 5));
  await commitEvents(m.merchant.id, nb, "payment.failed");
  await fanOutEvents({ db, clock: systemClock }, { merchantId: m.merchant.id });
  const claim = (limit: number, held: [string, number][], at = new Date()) =>
    claimDueDeliveriesSharing(db, new Date(at.getTime() + 1_000), limit, { merchantId: m.merchant.id, share: { limit: 8, held: new Map(held) } });
  return { a: a.id, b: b.id, claim, db };
}

/** How many of `ids` each endpoint has. */
async function endpointsOf(db: Db, ids: string[]): Promise<Record<string, number>> {
  if (ids.length === 0) return {};
  const rows = await db.select({ endpoint: webhookDeliveries.endpointId }).from(webhookDeliveries).where(inArray(webhookDeliveries.id, ids));
  const count: Record<string, number> = {};
  for (const r of rows) count[r.endpoint] = (count[r.endpoint] ?? 0) + 1;
  return count;
}

describe("a claim of deliveries that shares out endpoints", () => {
  it("takes no more of an endpoint than its room, and reads past the backlog of one that has none", async () => {
    const w = await backlog(30, 5);
    // a holds 5 of its 8: the oldest 20 due rows are all a's, of which it may take 3.
    const first = await w.claim(20, [[w.a, 5]]);
    expect(await endpointsOf(w.db, first.ids)).toEqual({ [w.a]: 3 });
    expect(first.more).toBe(true);
    // a at its share: its 27 remaining rows are passed over for b's 5, behind them.
    const second = await w.claim(20, [[w.a, 8]]);
    expect(await endpointsOf(w.db, second.ids)).toEqual({ [w.b]: 5 });
    expect(second.more).toBe(false);
    // Leased: only what is left of a, within its room.
    const third = await w.claim(20, [[w.a, 2]]);
    expect(await endpointsOf(w.db, third.ids)).toEqual({ [w.a]: 6 });
    expect(third.more).toBe(true);
  });

  it("takes the oldest first when every endpoint has room, and says when the limit left some", async () => {
    const w = await backlog(4, 4);
    const some = await w.claim(6, []);
    expect(await endpointsOf(w.db, some.ids)).toEqual({ [w.a]: 4, [w.b]: 2 });
    expect(some.more).toBe(true);
    const rest = await w.claim(6, []);
    expect(await endpointsOf(w.db, rest.ids)).toEqual({ [w.b]: 2 });
    expect(rest.more).toBe(false);
  });
});
