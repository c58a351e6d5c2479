import { randomUUID } from "node:crypto";
import { expect, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { bearer, seed } from "../support/seed";

/** The merchant's side of the hosted pages: links, sessions and test helpers through /v1. */
export type Merchant = "merchant_fee" | "customer_fee";
const keyOf = (who: Merchant) => (who === "customer_fee" ? seed().customer_fee.keys.test : seed().keys.test);

async function call<T>(request: APIRequestContext, method: "GET" | "POST", path: string, who: Merchant = "merchant_fee", data?: unknown): Promise<T> {
  const res = await request.fetch(path, { method, headers: { ...bearer(keyOf(who)), ...(method === "POST" ? { "Idempotency-Key": randomUUID() } : {}) }, data });
  expect(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

export type Link = { id: string; url: string; amount: number };
export type Session = { id: string; url: string; reference: string; payment: string | null; status: string; expires_at: string };
export type Payment = { id: string; status: string; reference: string; amount: number; fee: number; charged_amount: number; customer: { msisdn: string }; customer_msisdn_masked: string };

export const createLink = (request: APIRequestContext, body: Record<string, unknown> = {}, who?: Merchant) =>
  call<Link>(request, "POST", "/v1/payment_links", who, { amount: 2_500, currency: "USD", description: "Grade 7 school fees", ...body });
export const deactivateLink = (request: APIRequestContext, id: string) => call<Link>(request, "POST", `/v1/payment_links/${id}/deactivate`);
export const createSession = (request: APIRequestContext, body: Record<string, unknown> = {}, who?: Merchant) =>
  call<Session>(request, "POST", "/v1/checkout_sessions", who, {
    amount: 1_800,
    currency: "USD",
    reference: `order-${randomUUID().slice(0, 8)}`,
    success_url: `${seed().base_url}/?paid={CHECKOUT_SESSION_ID}`,
    ...body,
  });
export const getSession = (request: APIRequestContext, id: string, who?: Merchant) => call<Session>(request, "GET", `/v1/checkout_sessions/${id}`, who);
export const getPayment = (request: APIRequestContext, id: string, who?: Merchant) => call<Payment>(request, "GET", `/v1/payments/${id}`, who);
/** The merchant's payments whose references hold `text`, newest first. */
export const searchPayments = async (request: APIRequestContext, text: string, who?: Merchant) =>
  (await call<{ data: Payment[] }>(request, "GET", `/v1/payments?search=${encodeURIComponent(text)}&limit=100`, who)).data;
/** Payments made through a link: their references start with the link's id. */
export const paymentsOfLink = (request: APIRequestContext, linkId: string, who?: Merchant) => searchPayments(request, linkId, who);
export const testHelper = (request: APIRequestContext, paymentId: string, action: "expire" | "unknown" | "age" | "succeed" | "fail", who?: Merchant) =>
  call<Payment>(request, "POST", `/v1/test_helpers/payments/${paymentId}/${action}`, who);

/** The payment the page follows: `?payment=` on a link's page. */
export function attemptOf(page: Page): string {
  const id = new URL(page.url()).searchParams.get("payment");
  expect(id, `no ?payment= in ${page.url()}`).toMatch(/^pay_/);
  return id!;
}

export const statusRegion = (page: Page): Locator => page.locator("section.status");
/** The number field's error (Next has a route announcer with role=alert of its own). */
export const numberError = (page: Page): Locator => page.locator("#msisdn-error[role=alert]");

/** Types a number and pays, as a customer does. */
export async function pay(page: Page, number: string): Promise<void> {
  await page.getByLabel(/mobile money number/i).fill(number);
  await page.getByRole("button", { name: /^Pay / }).click();
}

/**
 * Watches the status for `ms`: while the outcome is unknown the page may say many things, but
 * never that the payment failed.
 */
export async function neverSaysFailed(page: Page, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const text = (await statusRegion(page).textContent()) ?? "";
    expect(text).not.toMatch(/fail|declin|not completed|try again/i);
    await page.waitForTimeout(400);
  }
}
