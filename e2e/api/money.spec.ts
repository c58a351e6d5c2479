import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext } from "@playwright/test";
import { bearer, seed } from "../support/seed";

/**
 * Refunds, payment links, checkout sessions and settlements on the production server, as a
 * merchant integrating against test mode sees them: the sandbox refunds after its delay, and the
 * local runner pays test settlements out a few seconds after they are made.
 */
const key = () => seed().keys.test;
const post = (request: APIRequestContext, path: string, data: unknown, idempotencyKey?: string) =>
  request.post(path, { headers: { ...bearer(key()), ...(idempotencyKey ? { "Idempotency-Key": idempotencyKey } : {}) }, data });
const get = async (request: APIRequestContext, path: string) => (await request.get(path, { headers: bearer(key()) })).json();

async function poll<T>(read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let value: T | undefined;
  await expect
    .poll(
      async () => {
        value = await read();
        return done(value);
      },
      { timeout: 20_000, intervals: [250, 500, 1_000] },
    )
    .toBe(true);
  return value!;
}

async function succeededPayment(request: APIRequestContext, msisdn: string, amount = 2_500) {
  const res = await post(request, "/v1/payments", { amount, currency: "USD", method: "wallet", reference: `e2e-${randomUUID()}`, customer: { msisdn } }, randomUUID());
  expect(res.status(), await res.text()).toBe(201);
  const { id } = (await res.json()) as { id: string };
  await poll(() => get(request, `/v1/payments/${id}`), (p) => p.status === "succeeded");
  return id;
}

test.describe.configure({ mode: "serial" });

let refundedPayment: string;
let refundId: string;

test("a partial refund succeeds through the sandbox; the payment shows it; more than remains is refused", async ({ request }) => {
  refundedPayment = await succeededPayment(request, "0770000001");
  const idem = randomUUID();
  const res = await post(request, "/v1/refunds", { payment: refundedPayment, amount: 1_000, reason: "requested_by_customer" }, idem);
  expect(res.status(), await res.text()).toBe(201);
  const refund = await res.json();
  expect(refund).toMatchObject({ object: "refund", payment: refundedPayment, amount: 1_000, currency: "USD", status: "pending" });
  refundId = refund.id;

  const replay = await post(request, "/v1/refunds", { payment: refundedPayment, amount: 1_000, reason: "requested_by_customer" }, idem);
  expect(replay.headers()["idempotent-replayed"]).toBe("true");
  expect((await replay.json()).id).toBe(refundId);

  const done = await poll(() => get(request, `/v1/refunds/${refundId}`), (r) => r.status !== "pending");
  expect(done).toMatchObject({ status: "succeeded", status_transitions: { succeeded_at: expect.any(String) } });
  expect(await get(request, `/v1/payments/${refundedPayment}`)).toMatchObject({ amount_refunded: 1_000 });

  const over = await post(request, "/v1/refunds", { payment: refundedPayment, amount: 1_501 }, randomUUID());
  expect(over.status()).toBe(400);
  expect((await over.json()).error).toMatchObject({ type: "invalid_request", code: "refund_amount_invalid", param: "amount" });
  const missingKey = await post(request, "/v1/refunds", { payment: refundedPayment, amount: 1 });
  expect((await missingKey.json()).error.code).toBe("idempotency_key_required");

  const list = await get(request, `/v1/refunds?payment=${refundedPayment}`);
  expect(list.data.map((r: { id: string }) => r.id)).toEqual([refundId]);
  const events = await get(request, "/v1/events?type=refund.succeeded&limit=100");
  expect(events.data.filter((e: { data: { object: { id: string } } }) => e.data.object.id === refundId)).toHaveLength(1);
});

test("refunds of a payment from …07 fail, with refund.failed", async ({ request }) => {
  const payment = await succeededPayment(request, "0770000007");
  const res = await post(request, "/v1/refunds", { payment }, randomUUID());
  expect(res.status(), await res.text()).toBe(201);
  const { id, amount } = await res.json();
  expect(amount).toBe(2_500); // all that remains, by default
  const done = await poll(() => get(request, `/v1/refunds/${id}`), (r) => r.status !== "pending");
  expect(done).toMatchObject({ status: "failed", failure_code: "refund_declined" });
  expect(await get(request, `/v1/payments/${payment}`)).toMatchObject({ amount_refunded: 0 });
  const events = await get(request, "/v1/events?type=refund.failed&limit=100");
  expect(events.data.some((e: { data: { object: { id: string } } }) => e.data.object.id === id)).toBe(true);
});

test("payment links: create, read, list, deactivate", async ({ request }) => {
  const res = await post(request, "/v1/payment_links", { amount: 1_200, currency: "USD", description: "Jazz night ticket", single_use: true });
  expect(res.status(), await res.text()).toBe(201);
  const link = await res.json();
  expect(link).toMatchObject({ object: "payment_link", active: true, single_use: true, url: expect.stringMatching(/\/pay\/plink_[0-9a-z]{26}$/) });
  expect(await get(request, `/v1/payment_links/${link.id}`)).toEqual(link);
  expect((await get(request, "/v1/payment_links?active=true&limit=100")).data.map((l: { id: string }) => l.id)).toContain(link.id);
  const off = await post(request, `/v1/payment_links/${link.id}/deactivate`, {});
  expect(await off.json()).toMatchObject({ id: link.id, active: false, deactivated_at: expect.any(String) });
});

test("checkout sessions: open with a default hour; the reference is the order's, for payments too", async ({ request }) => {
  const reference = `order-${randomUUID()}`;
  const res = await post(request, "/v1/checkout_sessions", { amount: 1_500, currency: "USD", reference, success_url: "https://shop.example/thanks" });
  expect(res.status(), await res.text()).toBe(201);
  const session = await res.json();
  expect(session).toMatchObject({ object: "checkout_session", status: "open", reference, payment: null, url: expect.stringMatching(/\/checkout\/cs_/) });
  expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).toBe(3_600_000);
  expect(await get(request, `/v1/checkout_sessions/${session.id}`)).toEqual(session);
  const taken = await post(request, "/v1/payments", { amount: 1_500, currency: "USD", method: "wallet", reference, customer: { msisdn: "0771234567" } }, randomUUID());
  expect((await taken.json()).error).toMatchObject({ code: "reference_in_use", param: "reference" });
});

test("the test settlement run batches the payment less its fee and refund, and pays it out with settlement.paid", async ({ request }) => {
  const run = await post(request, "/v1/test_helpers/settlements/run", {});
  expect(run.status(), await run.text()).toBe(200);
  const batches = (await run.json()).data as { id: string; currency: string }[];
  const usd = batches.find((b) => b.currency === "USD");
  expect(usd).toBeDefined();
  const lines: { type: string; source: string; net: number }[] = [];
  for (let after: string | undefined; ; ) {
    const page = await get(request, `/v1/settlements/${usd!.id}/lines?limit=100${after ? `&starting_after=${after}` : ""}`);
    lines.push(...page.data);
    if (!page.has_more) break;
    after = lines.at(-1)!.source;
  }
  expect(lines.find((l) => l.source === refundedPayment)).toMatchObject({ type: "payment" });
  // A refund's line names the payment it refunded.
  expect(lines.find((l) => l.source === refundId)).toMatchObject({ type: "refund", net: -1_000, payment: refundedPayment });

  const paid = await poll(() => get(request, `/v1/settlements/${usd!.id}`), (s) => s.status === "paid");
  expect(paid.paid_at).toEqual(expect.any(String));
  expect(paid.amount).toBe(paid.gross_amount - paid.fee_total - paid.refund_total);
  const events = await get(request, "/v1/events?type=settlement.paid&limit=100");
  expect(events.data.filter((e: { data: { object: { id: string } } }) => e.data.object.id === usd!.id)).toHaveLength(1);
  // Nothing is settled twice: the same run again batches nothing already batched.
  const again = (await (await post(request, "/v1/test_helpers/settlements/run", {})).json()).data as { id: string }[];
  expect(again.map((b) => b.id)).not.toContain(usd!.id);
});
