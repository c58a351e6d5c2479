import { randomInt, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { INITIAL_PAY_FORM_STATE } from "@/components/checkout/pay-form-state";
import { resetRateLimitersForTests } from "@/server/rate-limit";
import { createCheckoutSession } from "@/server/services/checkout-sessions/create-checkout-session";
import { createPaymentLink } from "@/server/services/payment-links/create-payment-link";
import { setEnv } from "@/server/testing/env";
import { logOf, nextPushFailsInTheDatabase } from "@/server/testing/log";
import { seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";

// The request the action runs in: Next gives its headers and cookies through next/headers.
const request = vi.hoisted(() => ({ headers: new Headers(), cookies: new Map<string, string>() }));
vi.mock("next/headers", () => ({
  headers: async () => request.headers,
  cookies: async () => ({
    get: (name: string) => (request.cookies.has(name) ? { name, value: request.cookies.get(name)! } : undefined),
    set: (name: string, value: string) => void request.cookies.set(name, value),
  }),
}));

const { payCheckoutAction, payLinkAction } = await import("./actions");

let merchant: TestMerchant;
let restore: () => void;
beforeAll(async () => {
  // One proxy of ours in front: the client is the last entry of X-Forwarded-For.
  restore = setEnv({ TRUSTED_PROXY_HOPS: "1", PAGE_PAYMENTS_PER_ADDRESS_PER_MINUTE: "2" });
  resetRateLimitersForTests();
  merchant = await seedTestMerchant();
});

afterAll(() => {
  restore();
  resetRateLimitersForTests();
});

function formOf(fields: Record<string, string>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  return form;
}

/** What the action ends in: its answer, or the address it redirects to. */
async function outcome<T>(action: Promise<T>): Promise<T | { redirectedTo: string }> {
  try {
    return await action;
  } catch (e) {
    const digest = (e as { digest?: unknown }).digest;
    if (typeof digest === "string" && digest.startsWith("NEXT_REDIRECT")) return { redirectedTo: digest.split(";")[2]! };
    throw e;
  }
}

describe("the pay action's answer when it does not redirect", () => {
  it("carries the attempt key the form was sent with, so the form drawn from it sends that attempt again", async () => {
    const link = await createPaymentLink(await merchant.ctx(), { amount: 1_000, currency: "USD", description: "Tickets" });
    const answer = await payLinkAction(link.id, INITIAL_PAY_FORM_STATE, formOf({ msisdn: "0242 704 000", attempt_key: "attempt-one" }));
    expect(answer).toMatchObject({ msisdn: "0242 704 000", attemptKey: "attempt-one", error: { code: "msisdn_invalid" } });
  });

  it("carries no key when the form sent none a payment could take: the page's own key is used then", async () => {
    const link = await createPaymentLink(await merchant.ctx(), { amount: 1_000, currency: "USD", description: "Tickets" });
    const answer = await payLinkAction(link.id, INITIAL_PAY_FORM_STATE, formOf({ msisdn: "0771234567", attempt_key: "" }));
    expect(answer).toMatchObject({ attemptKey: null, error: { code: "parameter_invalid", param: "idempotency_key" } });
  });
});

describe("the pay action when a query fails in the database", () => {
  it("tells the customer it could not be done, and logs the query and its reason without the customer's number", async () => {
    const restorePush = nextPushFailsInTheDatabase();
    try {
      request.headers = new Headers();
      const link = await createPaymentLink(await merchant.ctx(), { amount: 1_000, currency: "USD", description: "Tickets" });
      const { result, text, lines } = await logOf(() => payLinkAction(link.id, INITIAL_PAY_FORM_STATE, formOf({ msisdn: "077 987 6543", attempt_key: randomUUID() })));
      expect(result).toMatchObject({ error: { code: "api_error" } });
      expect(lines.filter((l) => l.msg === "hosted payment attempt failed")).toMatchObject([{ error: { message: expect.stringMatching(/^Failed query: select /), cause: { message: "division by zero" } } }]);
      expect(text).not.toContain("779876543");
    } finally {
      restorePush();
    }
  });
});

describe("the pay action on a checkout whose last attempt is under way", () => {
  it("sends the page back to follow that attempt, marked so that it says why this tap sent no prompt", async () => {
    request.headers = new Headers();
    const s = await createCheckoutSession(await merchant.ctx(), { amount: 1_500, currency: "USD", reference: `busy-${randomUUID()}`, successUrl: "https://shop.example/thanks" });
    // 0770000003 never answers: its prompt stays out until it expires.
    const tap = (msisdn: string) => outcome(payCheckoutAction(s.id, INITIAL_PAY_FORM_STATE, formOf({ msisdn, attempt_key: randomUUID() })));
    expect(await tap("0770000003")).toEqual({ redirectedTo: `/checkout/${s.id}` });
    expect(await tap("0771111111")).toEqual({ redirectedTo: `/checkout/${s.id}?in_progress=1` });
  });
});

describe("the pay action behind a trusted proxy", () => {
  it("counts new payments against the client's address, not an address the client wrote, and says how long to wait", async () => {
    const address = `203.0.113.${randomInt(1, 255)}-${randomUUID().slice(0, 8)}`;
    // The client's own X-Forwarded-For entry changes with every tap; the proxy's does not.
    const tap = async (sessionId: string) => {
      request.headers = new Headers({ "x-forwarded-for": `10.${randomInt(0, 255)}.0.1, ${address}` });
      return outcome(payCheckoutAction(sessionId, INITIAL_PAY_FORM_STATE, formOf({ msisdn: "0771234567", attempt_key: randomUUID() })));
    };
    const sessions = await Promise.all(
      Array.from({ length: 3 }, async () =>
        createCheckoutSession(await merchant.ctx(), { amount: 1_500, currency: "USD", reference: `proxy-${randomUUID()}`, successUrl: "https://shop.example/thanks" }),
      ),
    );
    expect(await tap(sessions[0]!.id)).toEqual({ redirectedTo: `/checkout/${sessions[0]!.id}` });
    expect(await tap(sessions[1]!.id)).toEqual({ redirectedTo: `/checkout/${sessions[1]!.id}` });
    expect(await tap(sessions[2]!.id)).toMatchObject({
      msisdn: "0771234567",
      error: { code: "rate_limited", message: expect.stringMatching(/^Many payments have been started from your network in the last minute\. Wait (a second|\d+ seconds) before trying again\.$/) },
    });

    // Another client behind the same proxy goes on.
    request.headers = new Headers({ "x-forwarded-for": `203.0.113.${randomInt(1, 255)}-${randomUUID().slice(0, 8)}` });
    expect(await outcome(payCheckoutAction(sessions[2]!.id, INITIAL_PAY_FORM_STATE, formOf({ msisdn: "0771234567", attempt_key: randomUUID() })))).toEqual({
      redirectedTo: `/checkout/${sessions[2]!.id}`,
    });
  });
});
