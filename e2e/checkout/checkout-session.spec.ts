import { expect, test } from "@playwright/test";
import { seed } from "../support/seed";
import { createSession, getPayment, getSession, pay, searchPayments, statusRegion, testHelper } from "./support";

/** `/checkout/{cs_id}`: the order, its attempts, and the way back to the merchant. */

test("a paid checkout shows its receipt, then goes to success_url with the session id", async ({ page, request }) => {
  const session = await createSession(request, { amount: 1_800 });
  await page.goto(`/checkout/${session.id}`);
  // "order-…" heads the page as it is: "Order" is said once.
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(session.reference);
  await pay(page, "0770000001");
  await expect(statusRegion(page)).toContainText("+263 77 *** *001");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });
  await expect(statusRegion(page)).toContainText(`${session.reference}#1`);
  await page.waitForURL(`${seed().base_url}/?paid=${session.id}`, { timeout: 10_000 });
  expect(await getSession(request, session.id)).toMatchObject({ status: "complete" });
  // Reopened later: the receipt again, never a form.
  await page.goto(`/checkout/${session.id}`);
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received");
  await expect(page.getByLabel(/mobile money number/i)).toHaveCount(0);
});

test("the fee is shown and charged when the customer bears it: amount, fee, and the total on the prompt", async ({ page, request }) => {
  const session = await createSession(request, { amount: 10_000 }, "customer_fee");
  await page.goto(`/checkout/${session.id}`);
  // The standard plan: 1.5 % of USD 100.00.
  await expect(page.locator(".amount")).toHaveText("USD 101.50");
  await expect(page.locator(".fee")).toHaveText("USD 100.00 + USD 1.50 transaction fee");
  await expect(page.getByRole("button", { name: "Pay USD 101.50" })).toBeVisible();
  await pay(page, "0770000003");
  await expect(statusRegion(page)).toContainText("USD 101.50");
  await expect(statusRegion(page).getByRole("timer")).toBeVisible();
  const { payment } = await getSession(request, session.id, "customer_fee");
  expect(await getPayment(request, payment!, "customer_fee")).toMatchObject({ amount: 10_000, fee: 150, charged_amount: 10_150 });
});

test("reopening a checkout while its attempt is under way shows that attempt, and allows no second one", async ({ page, browser, request }) => {
  const session = await createSession(request);
  await page.goto(`/checkout/${session.id}`);
  await pay(page, "0770000003");
  await expect(statusRegion(page).getByRole("timer")).toBeVisible();

  const other = await browser.newContext();
  const again = await other.newPage();
  await again.goto(`/checkout/${session.id}`);
  await expect(statusRegion(again).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  await expect(again.getByLabel(/mobile money number/i)).toHaveCount(0);
  await other.close();
});

test("Pay on a checkout another phone is paying: this page follows that attempt and says why its number got no prompt", async ({ page, browser, request }) => {
  const session = await createSession(request);
  await page.goto(`/checkout/${session.id}`);
  // Meanwhile, someone else with the same order open pays first.
  const other = await browser.newContext();
  const first = await other.newPage();
  await first.goto(`/checkout/${session.id}`);
  await pay(first, "0770000003");
  await expect(statusRegion(first).getByRole("timer")).toBeVisible();
  await other.close();

  await pay(page, "0771111111");
  await expect(page.getByRole("alert").filter({ hasText: "already under way" })).toHaveText(
    "A payment for this order was already under way, from +263 77 *** *003, so nothing was sent to your number. If that payment does not go through, you can pay with your number here.",
  );
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  // Said this once: the address a reload or a share opens carries no mark.
  await expect(page).toHaveURL(`${seed().base_url}/checkout/${session.id}`);
  const attempts = await searchPayments(request, session.reference);
  expect(attempts.map((p) => p.customer_msisdn_masked)).toEqual(["+263 77 *** *003"]);

  // That attempt fails: the notice goes, and the form is back for this customer.
  await testHelper(request, attempts[0]!.id, "fail");
  await expect(page.getByLabel(/mobile money number/i)).toBeVisible({ timeout: 10_000 });
  await expect(page.getByText("already under way")).toHaveCount(0);
});

test("an expired checkout says so and offers the way back, never a form", async ({ page, request }) => {
  // The shortest session there is; the page reads expiry by the server's clock, so wait it out.
  test.setTimeout(100_000);
  const session = await createSession(request, { expires_in: 60, cancel_url: `${seed().base_url}/?cancelled=1` });
  await page.goto(`/checkout/${session.id}`);
  await expect(page.getByRole("link", { name: /Cancel and return to/ })).toHaveAttribute("href", `${seed().base_url}/?cancelled=1`);
  const wait = Date.parse((await getSession(request, session.id)).expires_at) - Date.now() + 1_000;
  await page.waitForTimeout(Math.max(0, wait));
  await page.reload();
  await expect(page.getByRole("heading", { level: 2 })).toHaveText("No longer available");
  await expect(page.getByText("This checkout has expired. Return to the merchant to start again.")).toBeVisible();
  await expect(page.getByRole("link", { name: /Return to/ })).toHaveAttribute("href", `${seed().base_url}/?cancelled=1`);
  await expect(page.getByLabel(/mobile money number/i)).toHaveCount(0);
});

test("an expired attempt confirmed late while the customer's new prompt is out: the page says not to enter the PIN, and stays", async ({ page, request }) => {
  const session = await createSession(request);
  await page.goto(`/checkout/${session.id}`);
  await pay(page, "0770000003");
  await expect(statusRegion(page).getByRole("timer")).toBeVisible();
  const first = (await getSession(request, session.id)).payment!;
  await testHelper(request, first, "expire");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("The prompt expired", { timeout: 10_000 });
  await pay(page, "0770000003");
  await expect(statusRegion(page).getByRole("timer")).toBeVisible();
  const second = (await getSession(request, session.id)).payment!;
  expect(second).not.toBe(first);

  // The first prompt's PIN went in as it ran out: confirmed now, with the second prompt on the phone.
  await testHelper(request, first, "succeed");
  await expect(statusRegion(page).getByRole("alert")).toContainText("do not enter your PIN", { timeout: 15_000 });
  // Not taken on to the merchant (3 s on a plain receipt) while that prompt is out.
  await page.waitForTimeout(4_500);
  expect(new URL(page.url()).pathname).toBe(`/checkout/${session.id}`);
  await expect(statusRegion(page).getByRole("alert")).toContainText("do not enter your PIN");
});
