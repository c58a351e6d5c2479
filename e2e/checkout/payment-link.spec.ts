import { expect, test } from "@playwright/test";
import { attemptOf, numberError, createLink, deactivateLink, getPayment, neverSaysFailed, pay, paymentsOfLink, searchPayments, statusRegion, testHelper } from "./support";

/**
 * `/pay/{plink_id}` in a phone-sized Chromium against `next start`: every sandbox number's path,
 * the number field, and links that are used up or closed.
 */

test("…01 succeeds: the prompt with masked number, amount and countdown, then a receipt", async ({ page, request }) => {
  const link = await createLink(request, { description: "Grade 7 school fees, Term 1" });
  await page.goto(`/pay/${link.id}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Grade 7 school fees, Term 1");
  await expect(page.locator(".amount")).toHaveText("USD 25.00");
  await expect(page.getByRole("button", { name: "Pay USD 25.00" })).toBeVisible();

  await pay(page, "077 000 0001");
  const status = statusRegion(page);
  await expect(page.locator("[aria-live=polite]").filter({ has: status })).toHaveCount(1);
  await expect(status.getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  await expect(status).toContainText("+263 77 *** *001");
  await expect(status).toContainText("USD 25.00");
  await expect(status.getByRole("timer")).toHaveText(/^[23]:\d\d$/);

  await expect(status.getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });
  const paymentId = attemptOf(page);
  const payment = await getPayment(request, paymentId);
  expect(payment).toMatchObject({ status: "succeeded", customer: { msisdn: "263770000001" } });
  // The receipt's reference is the code a search finds the payment by: the end of the payment's reference.
  expect(payment.reference).toMatch(new RegExp(`^${link.id}-[0-9a-z]{8}$`));
  await expect(status.locator('dt:text-is("Reference") + dd')).toHaveText(payment.reference.slice(-8).toUpperCase());
  await expect(status).toContainText(/\d{1,2} \w{3} \d{4}, \d\d:\d\d CAT/);
  await expect(status).toContainText(/SBX/);

  // Reopening the page later shows the outcome, not a new form.
  await page.reload();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received");
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("a reusable link's receipt stays with the customer who paid, with a way to pay again; anyone sent its address gets the link's own form", async ({ page, browser, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await pay(page, "077 000 0001");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });
  const first = attemptOf(page);

  // Reloaded (or bookmarked) with the attempt in its address: the receipt, and no dead end.
  await page.reload();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received");
  const another = page.getByRole("link", { name: "Make another payment" });
  await expect(another).toBeVisible();

  // The address passed on, as a link meant for many payers is: the payer's receipt is not in it.
  const other = await browser.newContext();
  const someoneElse = await other.newPage();
  await someoneElse.goto(`/pay/${link.id}?payment=${first}`);
  await expect(someoneElse.getByRole("button", { name: "Pay USD 25.00" })).toBeVisible();
  await expect(someoneElse.getByText("Payment received")).toHaveCount(0);
  const html = await (await someoneElse.request.get(`/pay/${link.id}?payment=${first}`)).text();
  expect(html).not.toContain("+263 77 *** *001");
  await other.close();

  await another.click();
  await expect(page).toHaveURL(new RegExp(`/pay/${link.id}$`));
  await pay(page, "077 000 0001");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });
  expect(attemptOf(page)).not.toBe(first);
  expect(await paymentsOfLink(request, link.id)).toHaveLength(2);
});

test("…02 is declined: the reason, and a form to try again that makes a new payment", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000002");
  const status = statusRegion(page);
  await expect(status.getByRole("heading")).toHaveText("Payment not completed", { timeout: 15_000 });
  await expect(status).toContainText("Your wallet does not hold enough money for this payment.");
  // The form to try again starts from the number this tab paid with; another can be typed over it.
  await expect(page.getByLabel(/mobile money number/i)).toHaveValue("0770000002");

  await pay(page, "0770000001");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });
  expect((await paymentsOfLink(request, link.id)).map((p) => p.status).sort()).toEqual(["failed", "succeeded"]);
});

test("…03 never answers: the countdown runs; once expired the page offers another try", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000003");
  const status = statusRegion(page);
  await expect(status.getByRole("timer")).toBeVisible();
  await neverSaysFailed(page, 2_500);
  await testHelper(request, attemptOf(page), "expire");
  await expect(status.getByRole("heading")).toHaveText("The prompt expired", { timeout: 10_000 });
  await expect(status).toContainText("If you did not enter your PIN, nothing was taken from your wallet. You can try again below.");
  await expect(page.getByLabel(/mobile money number/i)).toBeVisible();
});

test("an expired attempt the provider confirms late (the PIN went in as the prompt ran out) turns into the receipt without a reload", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000003");
  const status = statusRegion(page);
  await expect(status.getByRole("timer")).toBeVisible();
  const attempt = attemptOf(page);
  await testHelper(request, attempt, "expire");
  await expect(status.getByRole("heading")).toHaveText("The prompt expired", { timeout: 10_000 });
  // The customer is reading the page, number typed again, when the confirmation comes.
  await page.getByLabel(/mobile money number/i).fill("077 000 0003");
  await testHelper(request, attempt, "succeed");
  await expect(status.getByRole("heading")).toHaveText("Payment received", { timeout: 20_000 });
  // Focus goes to the news, from the field that went with the form.
  await expect(status.getByRole("heading")).toBeFocused();
  await expect(page.getByLabel(/mobile money number/i)).toHaveCount(0);
  expect((await paymentsOfLink(request, link.id)).map((p) => p.status)).toEqual(["succeeded"]);
});

test("…04 times out, then succeeds: confirming (never failed), then the receipt", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000004");
  // The push takes its time: the wait is said, and the focus stays where the customer tapped.
  const sending = page.getByRole("button", { name: "Sending the PIN prompt…" });
  await expect(sending).toBeFocused();
  await expect(page.locator("form [role=status]")).toHaveText("Sending the PIN prompt…");
  const status = statusRegion(page);
  await expect(status.getByRole("heading")).toHaveText("Confirming your payment", { timeout: 10_000 });
  await expect(status).toContainText("Do not pay again.");
  // The prompt's sending timed out, but it may still reach the phone: good until it expires.
  await expect(status).toContainText("If a PIN prompt for it shows on your phone, enter your PIN.");
  await expect(status.getByRole("timer")).toBeVisible();
  // An outcome the provider has not given may take hours: no promise of a minute.
  expect(await status.textContent()).toMatch(/Do not pay again\.(?!.*less than a minute)/);
  await neverSaysFailed(page, 3_000);
  await expect(status.getByRole("heading")).toHaveText("Payment received", { timeout: 20_000 });
  expect((await getPayment(request, attemptOf(page))).status).toBe("succeeded");
});

test("…05 stays unknown: the page keeps confirming, also once unresolved, and never says failed", async ({ page, request }) => {
  test.setTimeout(45_000);
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000005");
  const status = statusRegion(page);
  await expect(status.getByRole("timer")).toBeVisible();
  await neverSaysFailed(page, 3_000);
  // At expiry the provider cannot say what happened, so the payment goes unknown: the helper
  // does now what the expiry would do in three minutes.
  const paymentId = attemptOf(page);
  expect((await testHelper(request, paymentId, "unknown")).status).toBe("unknown");
  await expect(status.getByRole("heading")).toHaveText("Confirming your payment", { timeout: 10_000 });
  await expect(status).toContainText("Do not pay again.");
  await neverSaysFailed(page, 5_000);
  expect((await getPayment(request, paymentId)).status).toBe("unknown");

  // 24 h later it is unresolved: still confirming, and the page says it is taking long.
  await testHelper(request, paymentId, "age");
  await expect(status).toContainText("taking longer than usual", { timeout: 15_000 });
  await expect(status.getByRole("heading")).toHaveText("Confirming your payment");
  // The reference to quote is short to read out, and finds the payment in the merchant's search.
  const quoted = (await status.textContent())!.match(/quote reference (\S+)\./)![1]!;
  expect(quoted).toMatch(/^[0-9A-Z]{8}$/);
  expect((await searchPayments(request, quoted)).map((p) => p.id)).toEqual([paymentId]);
  await neverSaysFailed(page, 2_000);
  await page.reload();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Confirming your payment");
});

test("…06 is refused at the prompt: said at once, with a way to try again", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000006");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment not completed");
  await expect(page.getByLabel(/mobile money number/i)).toBeVisible();
});

test("the number field takes the forms people type and names the wallet as they type", async ({ page, request }) => {
  const forms: Array<[string, string, string]> = [
    ["0771234567", "EcoCash", "263771234567"],
    ["+263 71 234 5678", "OneMoney", "263712345678"],
    ["00263 73 123 4567", "Telecash", "263731234567"],
    ["783 456 789", "EcoCash", "263783456789"],
  ];
  for (const [typed, network, strict] of forms) {
    // A link each: reopened while this browser's attempt still waits, a link shows that attempt.
    const link = await createLink(request);
    await page.goto(`/pay/${link.id}`);
    const field = page.getByLabel(/mobile money number/i);
    await field.pressSequentially(typed, { delay: 5 });
    await expect(page.locator("#msisdn-hint")).toHaveText(network);
    await page.getByRole("button", { name: /^Pay / }).click();
    await expect(statusRegion(page)).toBeVisible();
    expect((await getPayment(request, attemptOf(page))).customer.msisdn).toBe(strict);
  }
});

test("a wrong number is explained in plain words (the server's message) and charges nothing", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0242 704 000");
  await expect(numberError(page)).toHaveText("That looks like a landline number. Enter a mobile wallet number, for example 077 123 4567.");
  await expect(page.getByLabel(/mobile money number/i)).toBeFocused();
  await expect(page.getByLabel(/mobile money number/i)).toHaveAttribute("aria-invalid", "true");
  await pay(page, "+27 82 123 4567");
  await expect(numberError(page)).toHaveText("Only Zimbabwean mobile numbers can be charged. Enter a number such as 077 123 4567.");
  expect(await paymentsOfLink(request, link.id)).toHaveLength(0);
});

test("a single-use link pays once; the next customer sees that it is used, not a form, nor the payer's receipt", async ({ page, browser, request }) => {
  const link = await createLink(request, { single_use: true });
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000001");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });
  const paid = attemptOf(page);

  const other = await browser.newContext();
  const second = await other.newPage();
  // The link's address, and the payer's own (forwarded, or shared in a chat): used, and nothing of the payer's.
  for (const path of [`/pay/${link.id}`, `/pay/${link.id}?payment=${paid}`]) {
    await second.goto(path);
    await expect(second.getByRole("heading", { level: 2 })).toHaveText("Link already used");
    await expect(second.getByText(/^This payment link has already been used\. If you paid through it, check your wallet's messages/)).toBeVisible();
    await expect(second.getByLabel(/mobile money number/i)).toHaveCount(0);
    await expect(second.getByText("Payment received")).toHaveCount(0);
    expect(await second.content()).not.toContain("+263 77 *** *001");
  }
  await other.close();
  // The payer's browser, reloaded: still its receipt.
  await page.reload();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received");
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("a single-use link whose payment is still under way reads 'in use' to the next customer, and takes payments again once that one fails", async ({ page, browser, request }) => {
  const link = await createLink(request, { single_use: true });
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000003");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");

  const other = await browser.newContext();
  const second = await other.newPage();
  await second.goto(`/pay/${link.id}`);
  await expect(second.getByRole("heading", { level: 2 })).toHaveText("Link in use");
  await expect(second.getByText(/^Someone is paying through this link now, and it takes one payment\. If that payment does not go through/)).toBeVisible();
  await expect(second.getByText("already been used")).toHaveCount(0);
  await expect(second.getByLabel(/mobile money number/i)).toHaveCount(0);

  // The first customer's payment fails: the link is open again, and the waiting page shows its form by itself.
  const [first] = await paymentsOfLink(request, link.id);
  await testHelper(request, first!.id, "fail");
  await expect(second.getByLabel(/mobile money number/i)).toBeVisible({ timeout: 15_000 });
  await expect(second.getByText("Link in use")).toHaveCount(0);
  await other.close();
});

test("an expired link and a deactivated link show a clear page, never a form", async ({ page, request }) => {
  const soon = await createLink(request, { expires_at: new Date(Date.now() + 2_000).toISOString() });
  const off = await createLink(request);
  await deactivateLink(request, off.id);
  await page.waitForTimeout(2_500);
  for (const [link, words] of [
    [soon, /This payment link expired at/],
    [off, /This payment link has been deactivated/],
  ] as const) {
    await page.goto(`/pay/${link.id}`);
    await expect(page.getByRole("heading", { level: 2 })).toHaveText("No longer available");
    await expect(page.getByText(words)).toBeVisible();
    await expect(page.getByLabel(/mobile money number/i)).toHaveCount(0);
    // Nothing is owed: who and what, but no amount to pay.
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.locator(".summary .amount, .summary .fee")).toHaveCount(0);
  }
  const missing = await page.goto("/pay/plink_00000000000000000000000000");
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This payment page does not exist");
});

test("a double tap and a reload make one payment", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await page.getByLabel(/mobile money number/i).fill("0771234567");
  const button = page.getByRole("button", { name: /^Pay / });
  // Two taps before the first answer: the form is sent again with the same attempt key.
  await button.evaluate((b: HTMLButtonElement) => {
    b.click();
    b.form!.requestSubmit();
  });
  await expect(statusRegion(page)).toBeVisible({ timeout: 10_000 });
  await page.reload();
  await expect(statusRegion(page)).toBeVisible();
  await page.goBack();
  await page.waitForLoadState();
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("a page whose charge is no longer the one it shows sends no prompt, and comes back with the amount it would charge", async ({ page, request }) => {
  const link = await createLink(request, { description: "Shown, then changed" });
  await page.goto(`/pay/${link.id}`);
  await expect(page.getByRole("button", { name: "Pay USD 25.00" })).toBeVisible();
  await page.getByLabel(/mobile money number/i).fill("077 123 4567");
  // As if the merchant had changed who bears the fee after this page was rendered: the form sends
  // the charge it showed, here one that is no longer the charge (set after the last render).
  await page.locator("input[name=quoted]").evaluate((input: HTMLInputElement) => (input.value = "2600"));
  await page.getByRole("button", { name: /^Pay / }).click();
  await expect(page.getByRole("alert").filter({ hasText: "The amount changed" })).toHaveText(/The amount changed just as you tapped Pay, so nothing was sent to your phone/);
  await expect(page.locator(".amount")).toHaveText("USD 25.00");
  // The form keeps the number typed; the notice is this customer's, this once: the address no
  // longer carries it, so a reload (or the address shared) shows the page without it.
  await expect(page.getByLabel(/mobile money number/i)).toHaveValue("077 123 4567");
  await expect(page).toHaveURL(new RegExp(`/pay/${link.id}$`));
  expect(await paymentsOfLink(request, link.id)).toEqual([]);
  await page.reload();
  await expect(page.getByRole("button", { name: "Pay USD 25.00" })).toBeVisible();
  await expect(page.getByText("The amount changed")).toHaveCount(0);

  await pay(page, "077 123 4567");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  expect((await paymentsOfLink(request, link.id)).map((p) => p.charged_amount)).toEqual([2_500]);
});

test("after a failed attempt, the headline is the charge the form's Pay would make, should the fee setting have changed meanwhile", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await expect(page.locator(".amount")).toHaveText("USD 25.00");
  // As if the merchant had passed the fee on to customers while the prompt was out: once the
  // attempt has failed, the page's answers quote the next attempt's charge.
  await page.route(/\/status(\?.*)?$/, async (route) => {
    const response = await route.fetch();
    const view = await response.json();
    if (view.attempt?.phase === "failed") view.quote = { amount: 2_500, currency: "USD", fee: 38, fee_bearer: "customer", charged_amount: 2_538 };
    await route.fulfill({ response, json: view });
  });
  await pay(page, "0770000002");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment not completed", { timeout: 15_000 });
  await expect(page.getByRole("button", { name: "Pay USD 25.38" })).toBeVisible();
  await expect(page.locator(".amount")).toHaveText("USD 25.38");
  await expect(page.locator(".fee")).toHaveText("USD 25.00 + USD 0.38 transaction fee");
});

test("a declined customer on a single-use link someone else has since paid reads why, that it is used since, and is offered no retry", async ({ page, browser, request }) => {
  const link = await createLink(request, { single_use: true });
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000002");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment not completed", { timeout: 15_000 });
  const declined = attemptOf(page);

  const other = await browser.newContext();
  const someoneElse = await other.newPage();
  await someoneElse.goto(`/pay/${link.id}`);
  await pay(someoneElse, "0770000001");
  await expect(statusRegion(someoneElse).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });
  await other.close();

  // The declined page, still showing the form it had: its Pay is refused, and the page says why,
  // keeping the reason it was declined, and not "if you paid through it", which this customer did not.
  const used = async () => {
    await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment not completed");
    await expect(statusRegion(page)).toContainText(
      "Your wallet does not hold enough money for this payment. You have not been charged.This payment link has been used since, and it takes one payment. If you still need to pay, ask the merchant for a new link.",
    );
    await expect(statusRegion(page)).not.toContainText(/try again|If you paid through it/);
    await expect(page.getByLabel(/mobile money number/i)).toHaveCount(0);
  };
  await pay(page, "0770000001");
  await used();
  expect(attemptOf(page)).toBe(declined);

  // Opened again: the same, never a form.
  await page.reload();
  await used();
  expect(await paymentsOfLink(request, link.id)).toHaveLength(2);
});

test("/pay and /checkout without an id, or with more after it: the hosted page that says so, under the page's script policy", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  for (const path of ["/pay/", "/checkout/", "/pay", "/checkout", "/pay/plink_x/extra", "/checkout/cs_x/a/b"]) {
    const res = await page.goto(path);
    expect(res?.status(), path).toBe(404);
    expect(res?.headers()["content-security-policy"], path).toMatch(/'nonce-/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("This payment page does not exist");
    await expect(page.getByText("You have not been charged.")).toBeVisible();
  }
  expect(violations).toEqual([]);
});

test("an address nothing answers: a page that says so and links the ways in, not a bare 404", async ({ page }) => {
  const res = await page.goto("/no-such-page");
  expect(res?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("This page does not exist");
  await page.getByRole("link", { name: "Mari home" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Mari");
});

test("once the prompt's time is up the page stops asking for the PIN, and waits for the wallet provider", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  // The server's clock as the page reads it from each status answer runs 200 s ahead: the
  // sandbox merchant's 180 s prompt has run out while the payment still waits.
  await page.route(/\/status\?/, async (route) => {
    const res = await route.fetch();
    const body = (await res.json()) as { server_time: string };
    await route.fulfill({ response: res, json: { ...body, server_time: new Date(Date.parse(body.server_time) + 200_000).toISOString() } });
  });
  await pay(page, "0770000003");
  const status = statusRegion(page);
  await expect(status).toContainText("Waiting for EcoCash to confirm");
  await expect(status.getByRole("timer")).toHaveCount(0);
  await expect(status.getByRole("heading")).not.toHaveText(/PIN/);
});

test("amounts do not break between the currency and the number, and the largest fits its line at 320 px", async ({ page, request }) => {
  await page.setViewportSize({ width: 320, height: 640 });
  // The largest amount a payment may carry, and the fee on top.
  const link = await createLink(request, { amount: 99_999_999 }, "customer_fee");
  await page.goto(`/pay/${link.id}`);
  await expect(page.getByRole("button", { name: /^Pay / })).toBeVisible();
  const text = (await page.locator("main").textContent()) ?? "";
  expect(text).toContain("USD\u00a01,014,999.99");
  expect(text).not.toMatch(/USD \d/);
  const lines = (selector: string) =>
    page.locator(selector).evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    });
  expect(await lines(".amount")).toBe(1);
  expect(await lines("form button")).toBe(1);
  await pay(page, "0770000003");
  await expect(statusRegion(page).getByRole("timer")).toBeVisible();
  expect((await page.locator("main").textContent()) ?? "").not.toMatch(/USD \d/);
});
