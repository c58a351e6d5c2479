import { randomUUID } from "node:crypto";
import { expect, test } from "@playwright/test";
import { pageOverflow } from "../support/layout";
import { createLink, createSession, pay, searchPayments, statusRegion, testHelper } from "./support";

/** What every customer needs whatever their phone: 320 px, a keyboard, and a clock that may be wrong. */

test("readable at 320 px: no sideways scrolling, the amount and the button in view (screenshots kept)", async ({ page, request }, testInfo) => {
  await page.setViewportSize({ width: 320, height: 640 });
  const session = await createSession(request, { amount: 123_456_78 });
  await page.goto(`/checkout/${session.id}`);
  await expect(page.locator(".amount")).toBeInViewport();
  await expect(page.getByRole("button", { name: /^Pay / })).toBeInViewport();
  expect(await pageOverflow(page)).toBe(0);
  await page.screenshot({ path: testInfo.outputPath("checkout-320-form.png"), fullPage: true });

  await pay(page, "0770000003");
  await expect(statusRegion(page).getByRole("timer")).toBeVisible();
  expect(await pageOverflow(page)).toBe(0);
  await page.screenshot({ path: testInfo.outputPath("checkout-320-waiting.png"), fullPage: true });
  await testInfo.attach("checkout-320-waiting", { path: testInfo.outputPath("checkout-320-waiting.png"), contentType: "image/png" });
});

test("a checkout's longest reference wraps at 320 px, also where an unresolved payment asks the customer to quote it", async ({ page, request }) => {
  await page.setViewportSize({ width: 320, height: 640 });
  const session = await createSession(request, { reference: `order-${"9".repeat(240)}-${randomUUID().slice(0, 8)}` });
  await page.goto(`/checkout/${session.id}`);
  expect(await pageOverflow(page)).toBe(0);
  await pay(page, "0770000003");
  await expect(statusRegion(page).getByRole("timer")).toBeVisible();
  // The session's one attempt, found by the end of its reference.
  const [attempt] = await searchPayments(request, session.reference.slice(-8));
  const paymentId = attempt!.id;
  await testHelper(request, paymentId, "unknown");
  await testHelper(request, paymentId, "age");
  await expect(statusRegion(page)).toContainText(`quote reference ${session.reference}#1.`, { timeout: 15_000 });
  expect(await pageOverflow(page)).toBe(0);
});

test("usable by keyboard alone: tab to the labelled field, type, Enter pays", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await expect(page.getByLabel("Your mobile money number")).toHaveAttribute("type", "tel");
  for (let i = 0; i < 10 && !(await page.evaluate(() => document.activeElement?.id === "msisdn")); i++) await page.keyboard.press("Tab");
  await expect(page.getByLabel("Your mobile money number")).toBeFocused();
  await page.keyboard.type("0770000003");
  await page.keyboard.press("Enter");
  await expect(statusRegion(page).getByRole("timer")).toBeVisible();
});

test("the countdown follows the server's clock when the phone's is two hours wrong", async ({ page, request }) => {
  await page.clock.setSystemTime(new Date(Date.now() + 2 * 3600_000));
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  expect(await page.evaluate(() => Date.now())).toBeGreaterThan(Date.now() + 3_600_000);
  await pay(page, "0770000003");
  // The sandbox merchant's prompts last 180 s.
  await expect(statusRegion(page).getByRole("timer")).toHaveText(/^2:[3-5]\d$/);
  await page.waitForTimeout(3_000);
  await expect(statusRegion(page).getByRole("timer")).toHaveText(/^2:[3-5]\d$/);
});

test("the page cannot be framed, runs only its own scripts, and leaks no more than the origin as referrer", async ({ page, request }) => {
  const link = await createLink(request);
  const first = await page.goto(`/pay/${link.id}`);
  const headers = first!.headers();
  const policy = headers["content-security-policy"] ?? "";
  expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/);
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).toContain("form-action 'self'");
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["referrer-policy"]).toBe("strict-origin-when-cross-origin");
  // A new nonce each time: a page's nonce says nothing about the next one's.
  const again = (await request.get(`/pay/${link.id}`)).headers()["content-security-policy"];
  expect(again).not.toBe(policy);
  // And the page still works under it: the island is running (it names the wallet as you type).
  await page.getByLabel(/mobile money number/i).fill("071");
  await expect(page.locator("#msisdn-hint")).toHaveText("OneMoney");
});
