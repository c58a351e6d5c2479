import { expect, test } from "@playwright/test";
import { attemptOf, numberError, createLink, getPayment, paymentsOfLink, statusRegion, testHelper } from "./support";

/** With JavaScript off the pages still take a payment: the form posts, the status page reloads itself. */
test.use({ javaScriptEnabled: false });

test("pay with JavaScript off: the form posts, the status page refreshes itself to the receipt", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await page.getByLabel(/mobile money number/i).fill("077 000 0001");
  await page.getByRole("button", { name: "Pay USD 25.00" }).click();
  await page.waitForURL(/\?payment=pay_/);
  await expect(statusRegion(page)).toContainText("+263 77 *** *001");
  await expect(statusRegion(page)).toContainText(/Time left to approve: [23]:\d\d/);
  // No script runs: only the page's own refresh can bring the outcome.
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });
  expect((await getPayment(request, attemptOf(page))).status).toBe("succeeded");
  // The link takes more payments: the receipt leads to the form again.
  await page.getByRole("link", { name: "Make another payment" }).click();
  await expect(page.getByRole("button", { name: "Pay USD 25.00" })).toBeVisible();
});

test("with JavaScript off an unresolved payment's page reloads itself every 10 s, not every 3 s", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await page.getByLabel(/mobile money number/i).fill("077 000 0005");
  await page.getByRole("button", { name: /^Pay / }).click();
  await page.waitForURL(/\?payment=pay_/);
  const refresh = page.locator('meta[http-equiv="refresh"]');
  await expect(refresh).toHaveAttribute("content", "3");
  const paymentId = attemptOf(page);
  await testHelper(request, paymentId, "unknown");
  await testHelper(request, paymentId, "age");
  await page.reload();
  await expect(statusRegion(page)).toContainText("taking longer than usual");
  await expect(refresh).toHaveAttribute("content", "10");
});

test("a wrong number with JavaScript off: the server's message, the number kept, nothing charged", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await page.getByLabel(/mobile money number/i).fill("0242 704 000");
  await page.getByRole("button", { name: /^Pay / }).click();
  await expect(numberError(page)).toHaveText("That looks like a landline number. Enter a mobile wallet number, for example 077 123 4567.");
  await expect(page.getByLabel(/mobile money number/i)).toHaveValue("0242 704 000");
  expect(await paymentsOfLink(request, link.id)).toHaveLength(0);
});

test("the same form sent twice (a double tap, a resent POST) is one payment", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await page.getByLabel(/mobile money number/i).fill("0771234567");
  // What the browser would send for this form, sent twice over HTTP.
  const fields = await page.locator("form input").evaluateAll((inputs) => (inputs as HTMLInputElement[]).map((i) => [i.name, i.value] as const));
  const multipart = Object.fromEntries(fields.filter(([name]) => name));
  const origin = new URL(page.url()).origin;
  const [a, b] = await Promise.all(
    [0, 1].map(() => page.request.post(page.url(), { multipart, headers: { Origin: origin }, maxRedirects: 0 })),
  );
  for (const res of [a!, b!]) expect(res.status(), await res.text()).toBe(303);
  expect(a!.headers().location).toBe(b!.headers().location);
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);

  // The same form from another site: refused, in words, and nothing more is charged.
  const forged = await page.request.post(page.url(), { multipart: { ...multipart, attempt_key: "forged-key" }, headers: { Origin: "https://evil.example" }, maxRedirects: 0 });
  expect(forged.status()).toBe(403);
  expect(await forged.text()).toBe("This form can only be sent from its own page.");
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("a form the server gives back (no redirect) sends the attempt it was sent with, so paying from it is that attempt, not a second payment", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  const key = page.locator("input[name=attempt_key]");
  const sent = await key.inputValue();
  await page.getByLabel(/mobile money number/i).fill("0242 704 000");
  await page.getByRole("button", { name: /^Pay / }).click();
  await expect(numberError(page)).toContainText("landline");
  await expect(key).toHaveValue(sent);

  // As if that attempt had made its payment before its answer went wrong (an error after the
  // payment row was written): the form's fields with the first attempt's key, sent beside the page.
  await page.getByLabel(/mobile money number/i).fill("077 000 0003");
  const fields = await page.locator("form input").evaluateAll((inputs) => (inputs as HTMLInputElement[]).map((i) => [i.name, i.value] as const));
  const multipart = { ...Object.fromEntries(fields.filter(([name]) => name)), attempt_key: sent };
  const made = await page.request.post(page.url(), { multipart, headers: { Origin: new URL(page.url()).origin }, maxRedirects: 0 });
  expect(made.status(), await made.text()).toBe(303);
  const [payment] = await paymentsOfLink(request, link.id);

  // Tapped again, as the page says to: that same attempt, one payment.
  await page.getByRole("button", { name: /^Pay / }).click();
  await page.waitForURL(/\?payment=pay_/);
  expect(attemptOf(page)).toBe(payment!.id);
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("with JavaScript off a single-use link in use reloads itself, and shows its form once that payment fails", async ({ page, browser, request }) => {
  const link = await createLink(request, { single_use: true });
  // Someone else's prompt is out (0770000003 never answers).
  const other = await browser.newContext({ javaScriptEnabled: false });
  const first = await other.newPage();
  await first.goto(`/pay/${link.id}`);
  await first.getByLabel(/mobile money number/i).fill("077 000 0003");
  await first.getByRole("button", { name: /^Pay / }).click();
  await first.waitForURL(/\?payment=pay_/);
  await other.close();

  await page.goto(`/pay/${link.id}`);
  await expect(page.getByRole("heading", { level: 2 })).toHaveText("Link in use");
  await expect(page.locator('meta[http-equiv="refresh"]')).toHaveAttribute("content", "10");
  const [held] = await paymentsOfLink(request, link.id);
  await testHelper(request, held!.id, "fail");
  await expect(page.getByLabel(/mobile money number/i)).toBeVisible({ timeout: 15_000 });
  await expect(page.locator('meta[http-equiv="refresh"]')).toHaveCount(0);
});
