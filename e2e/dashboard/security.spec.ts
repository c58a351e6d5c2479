import { expect, test, type Browser, type Page } from "@playwright/test";
import { seed } from "../support/seed";
import { addTeamMember, fillSignIn, keep } from "./support";

/** A sign-in in a browser of its own; the page once it answered. */
async function signIn(browser: Browser, email: string, password: string) {
  const page = await browser.newPage({ storageState: { cookies: [], origins: [] } });
  await page.goto("/dashboard/sign-in");
  await fillSignIn(page, email, password);
  await page.getByRole("button", { name: "Sign in" }).click();
  return page;
}

test("the security log: who added whom, a wrong password at sign-in, the member's own sign-in; only admins read it", async ({ page, browser }, testInfo) => {
  test.setTimeout(90_000);
  const email = `sec-${Date.now().toString(36)}@example.test`;
  const handed = await addTeamMember(page, email);
  // The form forgets the admin's password once the member is added.
  await expect(page.getByLabel("Your password")).toHaveValue("");

  const wrong = await signIn(browser, email, "a guess that is wrong");
  await expect(wrong.locator(".error[role=alert]")).toHaveText("That business, e-mail address and password do not match.");
  await wrong.close();
  const member = await signIn(browser, email, handed);
  await member.waitForURL("**/dashboard");

  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Security log" }).click();
  await expect(page.getByRole("heading", { name: "Security log" })).toBeVisible();
  const rows = page.locator("table.data tbody tr").filter({ hasText: email });
  // Newest first: their sign-in, the wrong password, the admin adding them.
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText("Signed in");
  await expect(rows.nth(1)).toContainText("Wrong password at sign-in");
  await expect(rows.nth(1)).toContainText("Someone not signed in");
  await expect(rows.nth(2)).toContainText("Added a team member");
  await expect(rows.nth(2)).toContainText(seed().staff.email);
  await expect(rows.nth(2)).toContainText("role: viewer");
  // No password, handed over or guessed, is in the log.
  await expect(page.locator("table.data")).not.toContainText(handed);
  await expect(page.locator("table.data")).not.toContainText("a guess that is wrong");
  await keep(page, testInfo, "security-log");

  // A viewer has no such page: not in the menu, and its address says why.
  await expect(member.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Security log" })).toHaveCount(0);
  await member.goto("/dashboard/security");
  await expect(member.getByText("Needs the admin role; you are signed in as viewer.")).toBeVisible();
  await member.close();
});

test("in live mode, a new key asks for your password; a wrong one makes nothing", async ({ page, baseURL }, testInfo) => {
  await page.context().addCookies([{ name: "mari_mode", value: "live", url: baseURL! }]);
  await page.goto("/dashboard/api-keys");
  await expect(page.getByText("Test mode: you are looking at test data.")).toHaveCount(0);
  const name = `live e2e ${Date.now()}`;
  await page.getByLabel("Name (optional)").fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Enter your password to confirm." })).toBeVisible();
  await page.getByLabel("Your password").fill("not my password at all");
  await page.getByRole("button", { name: "Create key" }).click();
  // Said under the field, once, and the field asked again: empty, with the focus.
  const password = page.getByLabel("Your password");
  await expect(password).toHaveAccessibleDescription("That is not your current password.");
  await expect(page.getByRole("alert").filter({ hasText: "That is not your current password." })).toHaveCount(1);
  await expect(password).toBeFocused();
  await expect(password).toHaveValue("");
  await expect(page.locator("table.data")).not.toContainText(name);

  await page.getByLabel("Your password").fill(seed().staff.password!);
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = (await page.getByTestId("new-secret").textContent())!.trim();
  expect(secret).toMatch(/^sk_live_/);
  await expect(page.getByLabel("Your password")).toHaveValue("");
  await keep(page, testInfo, "live-key-password");
  await page.getByRole("button", { name: "I have stored it" }).click();
  await expect(page.locator("table.data")).toContainText(name);
});

test("a browser the member signed in on before still signs in while guesses from elsewhere have locked their address", async ({ page, browser }) => {
  // Seven sign-ins, each a password hash: about 15 s on a quiet machine, over 60 s once on a loaded one.
  test.setTimeout(150_000);
  // A member of our own: the admin's address keeps its budget for the other tests.
  const email = `known-${Date.now().toString(36)}@example.test`;
  const password = await addTeamMember(page, email);

  const tryIn = async (p: Page, pw: string) => {
    await p.goto("/dashboard/sign-in");
    await fillSignIn(p, email, pw);
    const answered = p.waitForResponse((r) => r.url().includes("/api/auth/callback/credentials"));
    await p.getByRole("button", { name: "Sign in" }).click();
    await answered;
  };
  const fresh = async () => (await browser.newContext({ storageState: { cookies: [], origins: [] } })).newPage();

  // Their own browser: signed in once, then signed out.
  const theirs = await fresh();
  await tryIn(theirs, password);
  await theirs.waitForURL("**/dashboard");
  await theirs.getByRole("button", { name: "Sign out" }).click();
  await theirs.waitForURL("**/dashboard/sign-in");

  // Someone elsewhere spends the address's attempts; even the right password is refused there now.
  const elsewhere = await fresh();
  for (let i = 0; i < 3; i++) await tryIn(elsewhere, `guess ${i}`);
  await tryIn(elsewhere, password);
  await expect(elsewhere.locator(".error[role=alert]")).toHaveText("Too many sign-in attempts. Wait a few minutes and try again.");

  // Their own browser is not locked out.
  await tryIn(theirs, password);
  await theirs.waitForURL("**/dashboard");
  await expect(theirs.getByRole("link", { name: `${email} (viewer)` })).toBeVisible();
  await elsewhere.context().close();
  await theirs.context().close();
});

test("a member whose role is lowered while their page is open: their next action is refused, and the page follows the new role", async ({ page, browser }) => {
  const email = `demoted-${Date.now().toString(36)}@example.test`;
  const password = await addTeamMember(page, email, "developer");
  const theirs = await signIn(browser, email, password);
  await theirs.waitForURL("**/dashboard");
  await theirs.goto("/dashboard/api-keys");
  await expect(theirs.getByRole("button", { name: "Create key" })).toBeEnabled();

  await page.getByLabel(`Role of ${email}`).selectOption("viewer");
  await page.getByRole("form", { name: `Change the role of ${email}` }).getByLabel("Your password").fill(seed().staff.password!);
  await page.getByRole("button", { name: "Change role" }).click();
  await expect(page.getByRole("status").filter({ hasText: `The role of ${email} is now viewer` })).toBeVisible();

  // Refused ("This needs the developer role; yours is viewer.", which goes with the form at once):
  // the page reads everything again, so the header names the new role, and the form is gone.
  await theirs.getByRole("button", { name: "Create key" }).click();
  await expect(theirs.getByText(`${email} (viewer)`)).toBeVisible();
  await expect(theirs.getByRole("button", { name: "Create key" })).toHaveCount(0);
  await theirs.close();
});
