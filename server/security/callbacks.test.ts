import { eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as callbackRoute } from "@/app/api/providers/[provider]/callback/route";
import { getDb } from "@/db/client";
import { events, payments, providerCallbacks, type Payment } from "@/db/schema";
import { manualClock } from "@/server/clock";
import { newId } from "@/server/domain/ids";
import { providers, sandbox } from "@/server/providers/registry";
import { sandboxReference } from "@/server/providers/sandbox/client";
import { receiveProviderCallback } from "@/server/services/providers/receive-callback";
import { seedPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";

/**
 * Provider callbacks are the one way in that carries no API key: only the provider's signature
 * vouches for them. The service tests (services/payments/lifecycle.test.ts) cover forged,
 * unsigned and past-dated signatures, five duplicates, an amount mismatch and an unknown payment
 * id; the e2e suite a forged one over HTTP. What is left is tried here, through the route.
 */

let us: TestMerchant;
let them: TestMerchant;
beforeAll(async () => {
  us = await seedTestMerchant();
  them = await seedTestMerchant();
});

type Signed = { headers: Headers; rawBody: string };

/** What the provider would send about `p`: its id, its reference, its amount. */
function body(p: Payment, status: string, overrides: Record<string, unknown> = {}) {
  return { event_id: `sbx-${status}-${p.id}`, merchant_tx_id: p.id, transaction_ref: sandboxReference(p.id), amount: p.chargedAmount, currency: p.currency, status, ...overrides };
}

async function post(provider: string, cb: Signed) {
  const req = new Request(`http://localhost:3000/api/providers/${provider}/callback`, { method: "POST", headers: cb.headers, body: cb.rawBody });
  const res = await callbackRoute(req, { params: Promise.resolve({ provider }) });
  return { status: res.status, body: (await res.json()) as { received: boolean; outcome?: string; reason?: string } };
}

/** The payments' rows, their events and the callbacks recorded against them. */
async function state(ids: string[]) {
  const db = await getDb();
  return {
    payments: await db.select().from(payments).where(inArray(payments.id, ids)),
    events: await db.select().from(events).where(inArray(events.objectId, ids)),
    callbacks: (await db.select().from(providerCallbacks).where(inArray(providerCallbacks.paymentId, ids))).length,
  };
}

/** A payment as it is once the provider took the push: its reference is known. */
async function pushedPayment(m: TestMerchant): Promise<Payment> {
  const p = await seedPayment(m, "awaiting_customer");
  const db = await getDb();
  const [row] = await db.update(payments).set({ providerReference: sandboxReference(p.id) }).where(eq(payments.id, p.id)).returning();
  return row!;
}

describe("callbacks that must change nothing and record no event", () => {
  const CASES: { name: string; make: (mine: Payment, theirs: Payment) => { provider?: string; cb: Signed }; status: number; outcome?: string; recorded: boolean }[] = [
    {
      name: "a signed body with another payment's id put in (the signature no longer matches)",
      make: (mine, theirs) => {
        const cb = sandbox.signedCallback(body(mine, "SUCCESS"));
        return { cb: { headers: cb.headers, rawBody: cb.rawBody.replace(mine.id, theirs.id) } };
      },
      status: 401,
      recorded: false,
    },
    {
      name: "a signature dated ten minutes ahead",
      make: (mine) => ({ cb: sandbox.signedCallback(body(mine, "SUCCESS"), new Date(Date.now() + 10 * 60_000)) }),
      status: 401,
      recorded: false,
    },
    {
      name: "another merchant's payment named with this payment's provider reference",
      make: (mine, theirs) => ({ cb: sandbox.signedCallback(body(theirs, "SUCCESS", { transaction_ref: sandboxReference(mine.id) })) }),
      status: 200,
      outcome: "ignored",
      recorded: true,
    },
    {
      name: "a well-formed payment id that does not exist",
      make: (mine) => ({ cb: sandbox.signedCallback(body(mine, "SUCCESS", { merchant_tx_id: newId("payment") })) }),
      status: 200,
      outcome: "ignored",
      recorded: false,
    },
    {
      name: "the right amount in another currency",
      make: (mine) => ({ cb: sandbox.signedCallback(body(mine, "SUCCESS", { currency: "ZWG" })) }),
      status: 200,
      outcome: "quarantined",
      recorded: true,
    },
    {
      name: "a provider that does not exist",
      make: (mine) => ({ provider: "ecocash-but-not", cb: sandbox.signedCallback(body(mine, "SUCCESS")) }),
      status: 404,
      recorded: false,
    },
  ];

  it.each(CASES.map((c) => [c.name, c] as const))("%s", async (_n, c) => {
    const mine = await pushedPayment(us);
    const theirs = await pushedPayment(them);
    const before = await state([mine.id, theirs.id]);
    const { provider, cb } = c.make(mine, theirs);
    const res = await post(provider ?? "sandbox", cb);
    expect(res.status).toBe(c.status);
    if (c.outcome) expect(res.body.outcome).toBe(c.outcome);
    const after = await state([mine.id, theirs.id]);
    expect(after.payments).toEqual(before.payments);
    expect(after.events).toEqual([]);
    // Verified callbacks are kept for staff, whatever became of them; refused ones are not.
    expect(after.callbacks - before.callbacks).toBe(c.recorded ? 1 : 0);
  });
});

describe("a valid callback replayed", () => {
  const receive = (cb: Signed, at: Date) => receiveProviderCallback({ db: null as never, clock: manualClock(at), providers }, { providerName: "sandbox", ...cb });

  it("inside the 300 s tolerance: applied once, then a duplicate with no second event", async () => {
    const p = await pushedPayment(us);
    const t0 = new Date();
    const cb = sandbox.signedCallback(body(p, "INSUFFICIENT_FUNDS"), t0);
    const db = await getDb();
    const rx = (at: Date) => receiveProviderCallback({ db, clock: manualClock(at), providers }, { providerName: "sandbox", ...cb });
    expect((await rx(t0)).outcome).toBe("applied");
    const once = await state([p.id]);
    expect(once.payments[0]!.status).toBe("failed");
    expect(once.events.map((e) => e.type)).toEqual(["payment.failed"]);
    expect((await rx(new Date(t0.getTime() + 299_000))).outcome).toBe("duplicate");
    const twice = await state([p.id]);
    expect(twice.payments).toEqual(once.payments);
    expect(twice.events).toEqual(once.events);
  });

  it("outside it: refused before anything is read or written, however valid it once was", async () => {
    const p = await pushedPayment(us);
    const t0 = new Date();
    const cb = sandbox.signedCallback(body(p, "SUCCESS"), t0);
    const before = await state([p.id]);
    // `db` is never reached: a stale signature is refused first (a null db would throw otherwise).
    expect(await receive(cb, new Date(t0.getTime() + 301_000))).toEqual({ status: 401, reason: "signature" });
    expect(await state([p.id])).toEqual(before);
    expect(before.payments[0]!.status).toBe("awaiting_customer");
  });
});

describe("a fault while a callback is taken in", () => {
  it("answers a JSON 500 with nothing recorded, so the provider sends it again", async () => {
    const p = await seedPayment(us, "awaiting_customer");
    const original = sandbox.verifyCallback;
    sandbox.verifyCallback = () => {
      throw new Error("the database went away");
    };
    try {
      expect(await post("sandbox", sandbox.signedCallback(body(p, "SUCCESS")))).toEqual({ status: 500, body: { received: false, reason: "internal" } });
    } finally {
      sandbox.verifyCallback = original;
    }
    const db = await getDb();
    expect(await db.select().from(providerCallbacks).where(eq(providerCallbacks.paymentId, p.id))).toEqual([]);
    expect(await post("sandbox", sandbox.signedCallback(body(p, "SUCCESS")))).toMatchObject({ status: 200, body: { received: true, outcome: "applied" } });
  });
});
