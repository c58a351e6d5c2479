import { expect, test, type Browser, type Page } from "@playwright/test";
import { seed } from "../support/seed";
import { addTeamMember, addTeamMemberShown, fillSignIn, keep, secretIn } from "./support";

/** A browser of its own, signed in as `email` (no session shared with the admin's). */
async function signedIn(browser: Browser, email: string, password: string): Promise<Page> {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto("/dashboard/sign-in");
  await fillSignIn(page, email, password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/dashboard");
  return page;
}

async function signInFails(browser: Browser, email: string, password: string): Promise<void> {
  const page = await browser.newPage({ storageState: { cookies: [], origins: [] } });
  await page.goto("/dashboard/sign-in");
  await fillSignIn(page, email, password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator(".error[role=alert]")).toHaveText("That business, e-mail address and password do not match.");
  await page.close();
}


test("a member changes their password: this browser stays signed in, their others are signed out, and an admin's reset ends every session", async ({ page, browser }, testInfo) => {
  // Eight sign-ins, each a deliberately slow password check, in five browsers: 53 s on a quiet
  // machine, 96–120 s in CI beside the other worker.
  test.setTimeout(240_000);
  // What the dashboard's API answers (a generated password among it) is never cached.
  const me = await page.request.get("/api/trpc/session.me");
  expect(me.status()).toBe(200);
  expect(me.headers()["cache-control"]).toBe("no-store, private");

  // The admin adds a developer, whose one-time password is shown once.
  const email = `pw-${Date.now().toString(36)}@example.test`;
  const first = await addTeamMember(page, email, "developer");
  expect(first).toMatch(/^[A-Za-z0-9_-]{16}$/);

  // Signed in on two devices; on one, from the header, they choose their own password.
  const laptop = await signedIn(browser, email, first);
  const phone = await signedIn(browser, email, first);
  await laptop.getByRole("link", { name: `${email} (developer)` }).click();
  await expect(laptop.getByRole("heading", { name: "Your account" })).toBeVisible();
  await expect(laptop.getByText(`You sign in to ${seed().slug} as ${email}, a developer of`)).toBeVisible();

  const chosen = "a kettle, two mangoes and a bicycle";
  await laptop.getByLabel("Current password").fill("not what they were given");
  await laptop.getByLabel("New password", { exact: true }).fill(chosen);
  await laptop.getByLabel("New password again").fill(chosen);
  await laptop.getByRole("button", { name: "Change password" }).click();
  await expect(laptop.locator(".error[role=alert]")).toHaveText("That is not your current password.");

  await laptop.getByLabel("Current password").fill(first);
  await laptop.getByLabel("New password again").fill(`${chosen}!`);
  await laptop.getByRole("button", { name: "Change password" }).click();
  await expect(laptop.locator(".error[role=alert]")).toHaveText("The two new passwords are not the same.");

  await laptop.getByLabel("New password", { exact: true }).fill("too short");
  await laptop.getByLabel("New password again").fill("too short");
  await laptop.getByRole("button", { name: "Change password" }).click();
  // The browser's own check (minlength) stops it before it is sent.
  expect(await laptop.getByLabel("New password", { exact: true }).evaluate((el: HTMLInputElement) => el.validity.tooShort)).toBe(true);

  await laptop.getByLabel("New password", { exact: true }).fill(chosen);
  await laptop.getByLabel("New password again").fill(chosen);
  await laptop.getByRole("button", { name: "Change password" }).click();
  await expect(laptop.getByRole("status").filter({ hasText: "Your password is changed." })).toBeVisible();
  await expect(laptop.getByLabel("Current password")).toHaveValue("");
  await keep(laptop, testInfo, "account-password-changed");

  // This browser is signed in with the new password; the phone, signed in with the old, is not.
  await laptop.goto("/dashboard/payments");
  await expect(laptop.getByRole("heading", { name: "Payments", level: 1 })).toBeVisible();
  await phone.goto("/dashboard/payments");
  await expect(phone).toHaveURL(/\/dashboard\/sign-in/);
  await signInFails(browser, email, first);

  // They lose it; the admin resets it from the team page, with a confirmation.
  await page.reload();
  const row = page.locator("tr").filter({ hasText: email });
  await row.getByRole("button", { name: "Reset password" }).click();
  const asked = row.getByRole("form", { name: "Reset password" });
  await expect(asked).toContainText(`Give ${email} a new password?`);
  // It asks for the admin's own password: a session left open is not enough. A wrong one asks
  // again in place, saying so beside the field, which is emptied and has the focus.
  await asked.getByLabel("Your password").fill("not the admin's password");
  await asked.getByRole("button", { name: "Reset it" }).click();
  await expect(asked.getByRole("alert")).toHaveText("That is not your current password.");
  await expect(asked.getByLabel("Your password")).toBeFocused();
  await expect(asked.getByLabel("Your password")).toHaveValue("");
  await expect(asked.getByLabel("Your password")).toHaveAccessibleDescription("That is not your current password.");
  // Said once: not again above the table.
  await expect(page.getByRole("alert").filter({ hasText: "That is not your current password." })).toHaveCount(1);
  await asked.getByLabel("Your password").fill(seed().staff.password!);
  await asked.getByLabel("Your password").press("Enter");
  const handover = page.getByRole("region", { name: `A new password for ${email}` });
  await expect(handover).toContainText(`${email} can sign in to the business ${seed().slug} with this new password`);
  // The panel has the focus: a screen reader reads it, and the keyboard starts from it.
  await expect(handover).toBeFocused();
  const reset = await secretIn(handover);
  expect(reset).toMatch(/^[A-Za-z0-9_-]{16}$/);
  expect(reset).not.toBe(first);
  await keep(page, testInfo, "team-password-reset");

  await laptop.reload();
  await expect(laptop).toHaveURL(/\/dashboard\/sign-in/);
  await signInFails(browser, email, chosen);
  const again = await signedIn(browser, email, reset);
  await expect(again.locator(".dash-who")).toHaveText(`${email} (developer)`);

  // Signed in on another browser too, they sign out everywhere from the first: both are signed out.
  const other = await signedIn(browser, email, reset);
  await again.goto("/dashboard/account");
  await again.getByRole("button", { name: "Sign out everywhere" }).click();
  await again.getByRole("group", { name: "Sign out everywhere" }).getByRole("button", { name: "Sign out everywhere" }).click();
  await again.waitForURL("**/dashboard/sign-in");
  await other.goto("/dashboard/payments");
  await expect(other).toHaveURL(/\/dashboard\/sign-in/);
  // The password still works: signing in again starts afresh.
  await signedIn(browser, email, reset);
});

test("a new member signs in from the link the admin hands over, which fills in the business", async ({ page, browser }) => {
  const email = `link-${Date.now().toString(36)}@example.test`;
  const handover = await addTeamMemberShown(page, email);
  await expect(handover).toBeFocused();
  const password = await secretIn(handover);
  const link = await handover.locator(".secret").nth(1).evaluate((el) => el.firstChild?.textContent?.trim() ?? "");
  expect(link).toBe(new URL(`/dashboard/sign-in?business=${seed().slug}`, page.url()).toString());
  // Shown once: leaving for another page of the dashboard asks first, and staying keeps it.
  let asked = "";
  page.once("dialog", (d) => {
    asked = d.message();
    void d.dismiss();
  });
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Payments" }).click();
  await expect.poll(() => asked).toContain("shown only this once");
  await expect(page).toHaveURL(/\/dashboard\/team$/);
  await expect(handover).toBeVisible();
  // Once handed over and put away, it is gone, and leaving asks nothing.
  await handover.getByRole("button", { name: "I have handed it over" }).click();
  await expect(handover).toHaveCount(0);
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Payments" }).click();
  await expect(page).toHaveURL(/\/dashboard\/payments$/);

  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const member = await context.newPage();
  await member.goto(link);
  await expect(member.getByLabel("Business")).toHaveValue(seed().slug);
  await member.getByLabel("E-mail").fill(email);
  await member.getByLabel("Password").fill(password);
  await member.getByRole("button", { name: "Sign in" }).click();
  await member.waitForURL("**/dashboard");
  await context.close();
});

test("a confirmation asked in the team table stays within it, even for a long address", async ({ page }) => {
  await page.setViewportSize({ width: 1200, height: 800 });
  const email = `someone.with.a.rather.long.address-${Date.now().toString(36)}@example.test`;
  await addTeamMember(page, email, "viewer");
  await page.reload();
  const row = page.locator("tr").filter({ hasText: email });
  const table = page.locator(".table-wrap").filter({ has: row });
  for (const [action, asked] of [["Remove", `Remove ${email}?`], ["Reset password", `Give ${email} a new password?`]] as const) {
    await row.getByRole("button", { name: action, exact: true }).click();
    const form = row.getByRole("form", { name: action });
    await expect(form).toContainText(asked);
    // Nothing of it is past the table's edge: no sideways scrolling to reach its buttons.
    expect(await table.evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
    const cancel = form.getByRole("button", { name: "Cancel" });
    const [edge, button] = [await table.boundingBox(), await cancel.boundingBox()];
    expect(button!.x + button!.width).toBeLessThanOrEqual(edge!.x + edge!.width);
    await cancel.click();
  }
});
