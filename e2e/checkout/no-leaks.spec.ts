import { expect, test, type APIRequestContext } from "@playwright/test";
import { seed } from "../support/seed";
import { attemptOf, createLink, createSession, getPayment, pay, statusRegion } from "./support";

/**
 * A hosted page is public: anyone with its URL reads its HTML, its scripts' data and its status
 * route. None of it may carry what belongs to the merchant (keys, webhook secrets, ids, staff,
 * metadata) or more of the customer's number than the mask.
 */
const METADATA_SECRET = "internal-note-5f1c2e";

function secretsOf(extra: string[]): string[] {
  const s = seed();
  return [
    s.keys.test,
    s.keys.live,
    ...(s.keys.restricted ? [s.keys.restricted] : []),
    s.merchant_id,
    s.staff.email,
    METADATA_SECRET,
    ...extra,
  ];
}

/** Every key-, secret- or staff-shaped string, whoever's: none belongs on a customer's page. */
const SHAPES = [/\bsk_(test|live)_/, /\brk_(test|live)_/, /\bwhsec_/, /\bmer_[0-9a-z]{10,}/, /\busr_[0-9a-z]{10,}/, /\bkey_[0-9a-z]{10,}/];

async function bodyOf(request: APIRequestContext, path: string): Promise<string> {
  const res = await request.get(path);
  expect(res.status(), path).toBe(200);
  return res.text();
}

function expectClean(text: string, where: string, secrets: string[]): void {
  for (const secret of secrets) expect(text.includes(secret), `${where} contains ${secret}`).toBe(false);
  for (const shape of SHAPES) expect(text, `${where} matches ${shape}`).not.toMatch(shape);
}

test("the pay and checkout pages and their status routes carry no merchant secret and only the masked number", async ({ page, request }) => {
  const link = await createLink(request, { metadata: { note: METADATA_SECRET } });
  const session = await createSession(request, { metadata: { note: METADATA_SECRET } });
  const secrets = secretsOf([]);

  // Before paying: the pages as anyone sees them, HTML and status JSON.
  for (const path of [`/pay/${link.id}`, `/pay/${link.id}/status`, `/checkout/${session.id}`, `/checkout/${session.id}/status`]) {
    expectClean(await bodyOf(request, path), path, secrets);
  }

  // After paying: the number appears masked, never in full (nor in the forms people type it).
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000001");
  await expect(statusRegion(page)).toContainText(/Paid|Payment received/i, { timeout: 20_000 });
  const paymentId = attemptOf(page);
  const payment = await getPayment(request, paymentId);
  const fullNumber = [payment.customer.msisdn, "0770000001", "770000001"];
  for (const path of [`/pay/${link.id}?payment=${paymentId}`, `/pay/${link.id}/status?payment=${paymentId}`]) {
    // The browser that paid (its cookies): its receipt, masked.
    const text = await bodyOf(page.request, path);
    expectClean(text, path, [...secrets, ...fullNumber]);
    expect(text).toContain(payment.customer_msisdn_masked);
    // Anyone else given the address: the link's page, without the payer's number, even masked.
    const passedOn = await bodyOf(request, path);
    expectClean(passedOn, path, [...secrets, ...fullNumber, payment.customer_msisdn_masked]);
  }
  expectClean(await page.content(), "the rendered page", [...secrets, ...fullNumber]);
});
