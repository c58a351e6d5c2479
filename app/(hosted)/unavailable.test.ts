import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createCheckoutSession } from "@/server/services/checkout-sessions/create-checkout-session";
import { createPaymentLink } from "@/server/services/payment-links/create-payment-link";
import { seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { logOf, queryFailingWith } from "@/server/testing/log";

// The request the pages and routes run in: Next gives its headers and cookies through next/headers.
vi.mock("next/headers", () => ({
  headers: async () => new Headers(),
  cookies: async () => ({ get: () => undefined, set: () => undefined }),
}));

// No request scope outside Next: the pages' wait for one (they are drawn per request) is let through.
vi.mock("next/server", async (original) => ({ ...(await original<typeof import("next/server")>()), connection: async () => undefined }));

// While `failing` is set, loading a hosted page's view fails in the database, as a query of it
// would, with what the request carried (an attempt key, the page's id) among the query's parameters.
const failing = vi.hoisted(() => ({ on: false }));
vi.mock("@/server/services/hosted/view-payment-link-page", async (original) => {
  const real = await original<typeof import("@/server/services/hosted/view-payment-link-page")>();
  return { viewPaymentLinkPage: (...args: Parameters<typeof real.viewPaymentLinkPage>) => (failing.on ? queryFailingWith(args[1].attemptKeys?.[0] ?? args[1].linkId) : real.viewPaymentLinkPage(...args)) };
});
vi.mock("@/server/services/hosted/view-checkout-page", async (original) => {
  const real = await original<typeof import("@/server/services/hosted/view-checkout-page")>();
  return { viewCheckoutPage: (...args: Parameters<typeof real.viewCheckoutPage>) => (failing.on ? queryFailingWith(args[2]?.[0] ?? args[1]) : real.viewCheckoutPage(...args)) };
});

const linkPage = await import("./pay/[id]/page");
const linkStatus = await import("./pay/[id]/status/route");
const checkoutPage = await import("./checkout/[id]/page");
const checkoutStatus = await import("./checkout/[id]/status/route");

let merchant: TestMerchant;
let linkId: string;
let sessionId: string;
beforeAll(async () => {
  merchant = await seedTestMerchant();
  linkId = (await createPaymentLink(await merchant.ctx(), { amount: 1_000, currency: "USD", description: "Tickets" })).id;
  sessionId = (await createCheckoutSession(await merchant.ctx(), { amount: 2_500, currency: "USD", reference: `order-${Date.now()}`, successUrl: "https://shop.example/thanks" })).id;
});
afterEach(() => {
  failing.on = false;
});

const props = (id: string, query: Record<string, string> = {}) => ({ params: Promise.resolve({ id }), searchParams: Promise.resolve(query) });
const ATTEMPT_KEY = "attempt-key-of-a-customer-0001";

describe("a hosted page whose view cannot be loaded (a fault on our side)", () => {
  it("the link's page says so, how to try again (the attempt it followed), and the reference its log line carries, never that a payment failed", async () => {
    failing.on = true;
    const query = { payment: "pay_01m8rsk97agvyyrd7hrw547qk3" };
    const { result: html, text, lines } = await logOf(async () => renderToStaticMarkup(await linkPage.default(props(linkId, query))));
    expect(lines).toMatchObject([{ msg: "payment link page could not be loaded", reference: expect.stringMatching(/^req_/), error: { cause: { message: "division by zero" } } }]);
    expect(text).not.toContain(linkId);
    expect(html).toContain("This page can&#x27;t be shown just now");
    expect(html).toContain("If you approved a payment on your phone, it is not affected");
    expect(html).toContain(`<a href="/pay/${linkId}?payment=${query.payment}">Try again</a>`);
    // Without JavaScript it loads itself again every 10 s; with it, once its status route answers.
    expect(html).toContain('<noscript><meta http-equiv="refresh" content="10"/></noscript>');
    expect(html).toContain(lines[0]!.reference);
    expect(html).not.toMatch(/fail/i);
    // Its title (in a request, the page and its title share one load: React's cache).
    const { result: metadata } = await logOf(() => linkPage.generateMetadata(props(linkId, query)));
    expect(metadata.title).toBe("Payment page unavailable");
  });

  it("the checkout page the same", async () => {
    failing.on = true;
    const { result, text, lines } = await logOf(async () => renderToStaticMarkup(await checkoutPage.default(props(sessionId))));
    expect(lines).toMatchObject([{ msg: "checkout page could not be loaded", reference: expect.stringMatching(/^req_/) }]);
    expect(text).not.toContain(sessionId);
    expect(result).toContain(`<a href="/checkout/${sessionId}">Try again</a>`);
    expect(result).toContain(lines[0]!.reference);
  });

  it("the status routes answer 500 with the reference, never cached, and log no attempt key", async () => {
    failing.on = true;
    for (const [route, id, msg] of [
      [linkStatus, linkId, "payment link status could not be loaded"],
      [checkoutStatus, sessionId, "checkout status could not be loaded"],
    ] as const) {
      const request = new Request(`http://localhost/x/${id}/status?attempt=${ATTEMPT_KEY}`);
      const { result: res, text, lines } = await logOf(() => route.GET(request, { params: Promise.resolve({ id }) }));
      expect(res.status).toBe(500);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(lines).toMatchObject([{ msg, reference: expect.stringMatching(/^req_/) }]);
      expect(await res.json()).toEqual({ error: "internal", reference: lines[0]!.reference });
      expect(text).not.toContain(ATTEMPT_KEY);
    }
  });

  it("once loading works again, the same pages and routes show the link and the session", async () => {
    const { result, lines } = await logOf(async () => ({
      titles: [(await linkPage.generateMetadata(props(linkId))).title, (await checkoutPage.generateMetadata(props(sessionId))).title],
      link: await linkStatus.GET(new Request(`http://localhost/pay/${linkId}/status`), { params: Promise.resolve({ id: linkId }) }),
      session: await checkoutStatus.GET(new Request(`http://localhost/checkout/${sessionId}/status`), { params: Promise.resolve({ id: sessionId }) }),
    }));
    expect(lines).toEqual([]);
    expect(result.titles).toEqual(["Pay Test Merchant", "Pay Test Merchant"]);
    expect(await result.link.json()).toMatchObject({ id: linkId, description: "Tickets" });
    expect(await result.session.json()).toMatchObject({ id: sessionId });
  });
});
