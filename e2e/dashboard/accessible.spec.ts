import { expect, test } from "@playwright/test";
import { expectAccessible } from "../support/accessible";
import { receiver } from "../support/receiver";
import { addTeamMember, deleteEndpointsMade, eventOf, fillSignIn, succeededPayment, v1 } from "./support";

test.afterEach(({ request }) => deleteEndpointsMade(request));

/** Every page of the dashboard, with something on it, checked by axe-core in a desktop Chromium. */
test("every page of the dashboard passes axe's checks", async ({ page, request }) => {
  // About 50 s on a quiet 2-core machine (a dozen pages, each analysed in full); twice that and
  // more when the machine is busy with other work.
  test.setTimeout(240_000);
  const hook = await receiver(200);
  try {
    const payment = await succeededPayment(request);
    const eventId = await eventOf(request, payment.id, "payment.succeeded");
    const endpoint = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url: hook.url, enabled_events: ["payment.succeeded"] });
    await v1(request, "POST", "/v1/payment_links", { amount: 1_500, currency: "USD", description: "Accessible link" });

    const pages: [string, string][] = [
      ["/dashboard", "Overview"],
      ["/dashboard/payments", "Payments"],
      [`/dashboard/payments/${payment.id}`, "Refund"],
      ["/dashboard/events", "Events"],
      [`/dashboard/events/${eventId}`, "Replay"],
      ["/dashboard/webhooks", "Webhook endpoints"],
      [`/dashboard/webhooks/${endpoint.id}`, "Actions"],
      ["/dashboard/api-keys", "API keys"],
      ["/dashboard/payment-links", "Payment links"],
      ["/dashboard/checkout-sessions", "Checkout sessions"],
      ["/dashboard/settlements", "Settlements"],
      ["/dashboard/settings", "Settings"],
      ["/dashboard/team", "Team"],
      ["/dashboard/security", "Security log"],
      ["/dashboard/account", "Your account"],
      ["/dashboard/no-such-page", "no such page"],
    ];
    for (const [path, heading] of pages) {
      await page.goto(path);
      await expect(page.getByRole("heading", { name: heading, exact: false }).first()).toBeVisible();
      // Lists and details load after the shell: check what the page shows once they have.
      await expect(page.getByText(/^Loading /)).toHaveCount(0);
      await expect(page, `${path}: the title says whose page it is`).toHaveTitle(/\S · Mari dashboard$/);
      await expectAccessible(page, path);
    }

    // A question asked in place, and a form's own complaint.
    await page.goto(`/dashboard/webhooks/${endpoint.id}`);
    await page.getByRole("button", { name: "Delete" }).click();
    await expectAccessible(page, "an endpoint's delete question");
    const email = `axe-${Date.now().toString(36)}@example.test`;
    await addTeamMember(page, email);
    await page.locator("tr").filter({ hasText: email }).getByRole("button", { name: "Reset password" }).click();
    await expect(page.getByRole("form", { name: "Reset password" })).toBeVisible();
    await expectAccessible(page, "a question that asks for your password");
    await page.goto("/dashboard/payment-links");
    await page.getByRole("button", { name: "Create link" }).click();
    await expect(page.getByRole("alert").first()).toBeVisible();
    await expectAccessible(page, "a form's complaint");
  } finally {
    hook.close();
  }
});

test("the sign-in page passes axe's checks, also when it refuses a password", async ({ browser }) => {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto("/dashboard/sign-in");
  await expect(page.getByRole("heading", { name: "Sign in to Mari" })).toBeVisible();
  await expect(page).toHaveTitle("Sign in · Mari dashboard");
  await expectAccessible(page, "sign-in");
  await fillSignIn(page, `nobody-${Date.now()}@example.test`, "not a password of anyone's");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator(".error[role=alert]")).toBeVisible();
  await expectAccessible(page, "sign-in, refused");
  await context.close();
});

test("the keyboard's first stop skips the header and the navigation, straight to the page", async ({ page }) => {
  await page.goto("/dashboard/payments");
  await expect(page.getByRole("heading", { name: "Payments", level: 1 })).toBeVisible();
  const skip = page.getByRole("link", { name: "Skip to content" });
  await expect(skip).not.toBeInViewport();
  await page.keyboard.press("Tab");
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press("Enter");
  await expect(page.locator("main#content")).toBeFocused();
  // The next stop is inside the page, not the header's first link.
  await page.keyboard.press("Tab");
  expect(await page.evaluate(() => document.activeElement?.closest("main")?.id)).toBe("content");
});
