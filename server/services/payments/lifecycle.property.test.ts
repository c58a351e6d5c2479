import fc from "fast-check";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { events, payments } from "@/db/schema";
import { manualClock, systemClock } from "@/server/clock";
import { PAYMENT_EVENT } from "@/server/domain/events";
import { TERMINAL, type PaymentStatus } from "@/server/domain/payment-status";
import { providers, sandbox } from "@/server/providers/registry";
import { sandboxReference } from "@/server/providers/sandbox/client";
import { seedPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { receiveProviderCallback } from "../providers/receive-callback";
import { expirePayment } from "./expire-payment";
import { markUnresolved, reconcilePayment } from "./reconcile-payment";
import { transitionPayment } from "./transition-payment";

const CALLBACK_STATUSES = ["SUCCESS", "INSUFFICIENT_FUNDS", "DECLINED", "CANCELLED", "PENDING", "EXPIRED", "UNKNOWN"] as const;
const DECLINES = new Set<string>(["INSUFFICIENT_FUNDS", "DECLINED", "CANCELLED"]);

type Op =
  | { kind: "callback"; status: (typeof CALLBACK_STATUSES)[number]; times: number }
  | { kind: "advance"; seconds: number }
  | { kind: "expiry" }
  | { kind: "reconcile"; statusApiDown: boolean }
  | { kind: "flag" }
  | { kind: "crash"; to: "succeeded" | "failed" | "expired" | "unknown" };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("callback" as const), status: fc.constantFrom(...CALLBACK_STATUSES), times: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant("advance" as const), seconds: fc.constantFrom(1, 5, 60, 200, 3_600, 25 * 3_600) }),
  fc.constant({ kind: "expiry" as const }),
  fc.record({ kind: fc.constant("reconcile" as const), statusApiDown: fc.boolean() }),
  fc.constant({ kind: "flag" as const }),
  fc.record({ kind: fc.constant("crash" as const), to: fc.constantFrom("succeeded" as const, "failed" as const, "expired" as const, "unknown" as const) }),
);

// …01 succeeds, …02 declines, …03 never answers, …05 cannot be asked, other numbers succeed after 3 s.
const NUMBERS = ["263770000001", "263770000002", "263770000003", "263770000005", "263771234567"];

describe("payment lifecycle, property-based", () => {
  let m: TestMerchant;
  beforeAll(async () => {
    m = await seedTestMerchant();
  });
  afterEach(() => {
    sandbox.clock = systemClock;
    sandbox.resetFaults();
  });

  it("never fails without a decline, never leaves a terminal state, one event per transition", async () => {
    const db = await getDb();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...NUMBERS), fc.array(op, { minLength: 1, maxLength: 12 }), async (msisdn, ops) => {
        const start = new Date(Date.now() - 10 * 24 * 3_600_000);
        const p = await seedPayment(m, "awaiting_customer", { msisdn, at: start });
        const clock = manualClock(start);
        sandbox.clock = clock;
        const deps = { db, clock, providers };
        const history: PaymentStatus[] = ["awaiting_customer"];
        let declineSeen = false;

        for (const o of ops) {
          sandbox.resetFaults();
          switch (o.kind) {
            case "callback":
              if (DECLINES.has(o.status)) declineSeen = true;
              for (let i = 0; i < o.times; i++) {
                const cb = sandbox.signedCallback({
                  merchant_tx_id: p.id,
                  transaction_ref: sandboxReference(p.id),
                  amount: p.chargedAmount,
                  currency: p.currency,
                  status: o.status,
                });
                await receiveProviderCallback({ ...deps }, { providerName: "sandbox", ...cb });
              }
              break;
            case "advance":
              clock.advance(o.seconds * 1000);
              break;
            case "expiry":
              if (msisdn === "263770000002") declineSeen = true; // the provider may answer with its decline
              await expirePayment(deps, p.id);
              break;
            case "reconcile":
              if (msisdn === "263770000002" && !o.statusApiDown) declineSeen = true;
              if (o.statusApiDown) sandbox.faults.statusQuery = "error";
              await reconcilePayment(deps, p.id);
              break;
            case "flag":
              await markUnresolved(deps, p.id);
              break;
            case "crash":
              // A process dying mid-transaction: the change and its event roll back together.
              await db
                .transaction(async (tx) => {
                  await transitionPayment(
                    { db: tx, clock },
                    { paymentId: p.id, to: o.to, failure: o.to === "failed" ? { code: "declined", message: "x" } : undefined },
                  );
                  throw new Error("crash");
                })
                .catch(() => {});
              break;
          }
          const [row] = await db.select({ status: payments.status }).from(payments).where(eq(payments.id, p.id));
          history.push(row!.status);
        }

        // Never failed without a definitive decline.
        if (history.includes("failed")) expect(declineSeen).toBe(true);
        // A terminal state, once reached, is the last state, but for an expired payment the
        // provider then confirms as paid.
        const firstTerminal = history.findIndex((s) => TERMINAL[s]);
        if (firstTerminal >= 0) {
          const after = [...new Set(history.slice(firstTerminal))];
          expect(after.length === 1 || (after.length === 2 && after[0] === "expired" && after[1] === "succeeded"), after.join("→")).toBe(true);
        }
        // Exactly one event per transition into an evented state, none for rolled-back changes.
        const expected: string[] = [];
        for (let i = 1; i < history.length; i++) {
          const type = PAYMENT_EVENT[history[i]!];
          if (history[i] !== history[i - 1] && type) expected.push(type);
        }
        // (Sorted: transitions within one clock millisecond have ids in no particular order.)
        const actual = (await db.select({ type: events.type }).from(events).where(eq(events.objectId, p.id))).map((e) => e.type);
        expect(actual.sort()).toEqual(expected.sort());
      }),
      { numRuns: 40 },
    );
  });
});
