import { expect, test } from "@playwright/test";
import { seed } from "../support/seed";
import { fillSignIn } from "./support";

/** Sign-in, sign-out and the proxy, from a browser with no session. */
test.use({ storageState: { cookies: [], origins: [] } });

test("signed out, /dashboard sends you to sign in and back; a wrong password is refused in plain words", async ({ page }) => {
  await page.goto("/dashboard/payments?status=succeeded");
  await expect(page).toHaveURL(/\/dashboard\/sign-in\?callbackUrl=/);
  await fillSignIn(page, seed().staff.email, "not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator(".error[role=alert]")).toHaveText("That business, e-mail address and password do not match.");
  // No dead end for someone who has lost it.
  await expect(page.getByText("Forgot your password? An admin of your team can give you a new one")).toBeVisible();

  await page.getByLabel("Password").fill(seed().staff.password!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/dashboard/payments?status=succeeded");
  await expect(page.locator(".dash-brand")).toContainText("Mari ·");
});

test("sign out ends the session: the dashboard asks to sign in again", async ({ page }) => {
  await page.goto("/dashboard/sign-in");
  await fillSignIn(page, seed().staff.email, seed().staff.password!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/dashboard");
  const site = new URL(page.url()).origin;
  await page.getByRole("button", { name: "Sign out" }).click();
  // This site's sign-in page (the server sets no NEXTAUTH_URL), not one on another origin.
  await page.waitForURL(`${site}/dashboard/sign-in`);
  // The business this browser signed in to is filled in; the address and password are not.
  await expect(page.getByLabel("Business")).toHaveValue(seed().slug);
  await expect(page.getByLabel("E-mail")).toHaveValue("");
  await page.goto("/dashboard");
  await expect(page).toHaveURL(/\/dashboard\/sign-in/);
});

test("repeated wrong passwords are stopped for a while", async ({ page }) => {
  const email = `nobody-${Date.now()}@example.test`;
  await page.goto("/dashboard/sign-in");
  const answers: string[] = [];
  // The e2e server allows three attempts per address (SIGN_IN_ATTEMPTS_PER_15_MIN in start-server.mjs).
  for (let i = 0; i < 4; i++) {
    await fillSignIn(page, email, `guess ${i}`);
    // Each answer is read after its own request: the previous one's message is still on the page.
    const answered = page.waitForResponse((r) => r.url().includes("/api/auth/callback/credentials"));
    await page.getByRole("button", { name: "Sign in" }).click();
    await answered;
    // The form clears its message when it sends and shows the answer's when it comes.
    await expect(page.locator(".error[role=alert]")).toBeVisible();
    answers.push((await page.locator(".error[role=alert]").textContent()) ?? "");
  }
  expect(answers.slice(0, 3)).toEqual(Array(3).fill(answers[0]));
  expect(answers[0]).not.toBe(answers[3]);
  expect(answers[3]).toBe("Too many sign-in attempts. Wait a few minutes and try again.");
});

test("the dashboard's API refuses calls without a session and from other sites", async ({ request, baseURL }) => {
  const me = await request.get("/api/trpc/session.me");
  expect(me.status()).toBe(401);
  const cross = await request.post("/api/trpc/payments.list", { headers: { Origin: "https://evil.example", "Sec-Fetch-Site": "cross-site" }, data: {} });
  expect(cross.status()).toBe(403);
  // A browser that sends no Sec-Fetch-Site is told by its Origin, against the host it sent the call to.
  const foreign = await request.post("/api/trpc/payments.list", { headers: { Origin: "https://evil.example" }, data: {} });
  expect(foreign.status()).toBe(403);
  const own = await request.post("/api/trpc/payments.refund", { headers: { Origin: new URL(baseURL!).origin }, data: {} });
  expect(own.status()).toBe(401);
});

test.describe("with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });

  test("the sign-in form says it needs JavaScript and cannot send the password in the address", async ({ page }) => {
    await page.goto("/dashboard/sign-in");
    // (Playwright turns scripts off without the parser's scripting flag, so <noscript> stays text here.)
    expect(await page.content()).toContain("The dashboard needs JavaScript: turn it on to sign in.");
    await expect(page.getByRole("button", { name: "Sign in" })).toBeDisabled();
    await expect(page.locator("form.sign-in-form")).toHaveAttribute("method", "post");
  });
});

test("a session that ends while something is typed keeps the page: signed in again in another tab, what was typed is sent", async ({ page, context }) => {
  await page.goto("/dashboard/sign-in");
  await fillSignIn(page, seed().staff.email, seed().staff.password!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/dashboard");
  await page.goto("/dashboard/payment-links");
  const said = `Typed before the session ended ${Date.now().toString(36)}`;
  await page.getByLabel("Amount", { exact: true }).fill("7");
  await page.getByLabel("Description (shown to the customer)").fill(said);
  // A tab of the same browser with nothing typed (a box ticked is not typing), on a page whose filter asks the server.
  const idle = await context.newPage();
  await idle.goto("/dashboard/payment-links");
  await idle.getByLabel(/Single use:/).check();

  // Signed out in a third tab: the session is the browser's, so it ends for every tab.
  const other = await context.newPage();
  await other.goto("/dashboard");
  await other.getByRole("button", { name: "Sign out" }).click();
  await other.waitForURL("**/dashboard/sign-in");

  // The idle tab's next call goes to sign in: nothing there to lose (a filter is not typing).
  // (A click, not check(): the box is gone with the page before it could be seen checked.)
  await idle.getByLabel("Hide deactivated").click();
  await idle.waitForURL(/\/dashboard\/sign-in\?callbackUrl=%2Fdashboard%2Fpayment-links/);

  // The tab with the form stays, with what was typed, and says how to keep it.
  await page.getByRole("button", { name: "Create link" }).click();
  const ended = page.getByRole("alert").filter({ hasText: "Your session has ended: nothing is done from this page" });
  await expect(ended).toBeVisible();
  await expect(page).toHaveURL(/\/dashboard\/payment-links$/);
  await expect(page.getByLabel("Description (shown to the customer)")).toHaveValue(said);
  // The form says its own try was not done.
  await expect(page.getByRole("alert").filter({ hasText: "Not done: your session has ended." })).toBeVisible();
  const [signIn] = await Promise.all([context.waitForEvent("page"), ended.getByRole("link", { name: "Sign in in a new tab" }).click()]);
  await signIn.waitForURL(/\/dashboard\/sign-in/);
  await fillSignIn(signIn, seed().staff.email, seed().staff.password!);
  await signIn.getByRole("button", { name: "Sign in" }).click();
  await signIn.waitForURL("**/dashboard/payment-links");

  // Back in the first tab, sent again: made, and the warning is gone.
  await page.bringToFront();
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Link for “${said}” created` })).toBeVisible();
  await expect(ended).toHaveCount(0);
});
