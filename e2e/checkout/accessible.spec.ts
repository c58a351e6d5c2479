import { expect, test } from "@playwright/test";
import { expectAccessible } from "../support/accessible";
import { createLink, createSession, numberError, pay, statusRegion } from "./support";

/** The hosted pages in each state a customer meets, checked by axe-core in a phone-sized Chromium. */
test("the pay page passes axe's checks in every state: the form, a wrong number, declined, paid, the prompt", async ({ page, request }) => {
  const link = await createLink(request, { description: "Grade 7 school fees" });
  await page.goto(`/pay/${link.id}`);
  await expect(page.getByRole("button", { name: /^Pay / })).toBeVisible();
  await expectAccessible(page, "the form");

  await pay(page, "12345");
  await expect(numberError(page)).toBeVisible();
  await expectAccessible(page, "a wrong number");

  await pay(page, "077 000 0002");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment not completed", { timeout: 15_000 });
  await expectAccessible(page, "declined, with the form to try again");

  await pay(page, "077 000 0001");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });
  await expectAccessible(page, "the receipt");

  const waiting = await createLink(request);
  await page.goto(`/pay/${waiting.id}`);
  await pay(page, "077 000 0003");
  await expect(statusRegion(page).getByRole("timer")).toBeVisible();
  await expectAccessible(page, "the prompt, waiting");
});

test("a checkout session's page and an address that leads nowhere pass axe's checks", async ({ page, request }) => {
  const session = await createSession(request);
  await page.goto(`/checkout/${session.id}`);
  await expect(page.getByRole("button", { name: /^Pay / })).toBeVisible();
  await expectAccessible(page, "a checkout session");

  await page.goto("/pay/plink_0000000000000000000000000");
  await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
  await expectAccessible(page, "no such link");
});
