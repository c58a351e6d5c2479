import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { ISLAND_STALL_MS } from "../../components/checkout/hold-back-script";
import { attemptOf, createLink, createSession, getSession, numberError, pay, paymentsOfLink, statusRegion } from "./support";

/**
 * A phone's connection drops as Pay is tapped, or the customer reloads, goes back or reopens the
 * link from the message it came in: the page must show the attempt that is under way (or made),
 * never a fresh form that would charge again.
 */

/** The pay action's POST (to the page's own URL) reaches the server, but its answer is lost. */
async function loseAnswers(page: Page, path: string): Promise<void> {
  await page.route(`**${path}`, async (route) => {
    if (route.request().method() !== "POST") return route.continue();
    await route.fetch();
    await route.abort("connectionreset");
  });
}

/**
 * Opens the page and taps Pay with `msisdn`; the payment is made but its answer is lost, and the
 * form says so. The network is back afterwards.
 */
async function payAndLoseTheAnswer(page: Page, path: string, msisdn: string): Promise<void> {
  await page.goto(path);
  await loseAnswers(page, path);
  await pay(page, msisdn);
  await expect(numberError(page)).toContainText("could not reach the payment service");
  await expect(numberError(page)).toContainText("tap Pay again");
  // The number was fine: the field is not marked wrong.
  await expect(page.getByLabel(/mobile money number/i)).not.toHaveAttribute("aria-invalid");
  await page.unrouteAll();
}

/**
 * Holds the page's look-up of an attempt this browser sent (`…/status?attempt=`), as a slow network
 * does, until the returned function is called.
 */
async function holdAttemptLookups(page: Page): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/status\?(.*&)?attempt=/, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

/** From the next load on, notes whether "Link already used" is ever on screen, frame by frame. */
async function watchForUsed(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { sawUsed: boolean };
    w.sawUsed = false;
    const look = () => {
      for (const h of document.querySelectorAll("h2")) if (h.textContent === "Link already used" && h.checkVisibility()) w.sawUsed = true;
      requestAnimationFrame(look);
    };
    requestAnimationFrame(look);
  });
}

const sawUsed = (page: Page) => page.evaluate(() => (window as unknown as { sawUsed: boolean }).sawUsed);

/** The page's scripts (held or dropped to play a slow or broken connection). */
const SCRIPT_CHUNKS = /\/_next\/static\/chunks\/.*\.js(\?.*)?$/;

/**
 * The form given back after a Pay that never left the phone starts from the number it was tapped
 * with; its Pay (the same attempt) makes the link's one payment.
 */
async function payAgainAsTapped(page: Page, request: APIRequestContext, linkId: string, number: string): Promise<void> {
  await expect(page.getByLabel(/mobile money number/i)).toHaveValue(number);
  await page.getByRole("button", { name: /^Pay / }).click();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });
  expect(await paymentsOfLink(request, linkId)).toHaveLength(1);
}

/** The pay action's POST never leaves the phone. */
async function dropRequests(page: Page, path: string): Promise<void> {
  await page.route(`**${path}`, (route) => (route.request().method() === "POST" ? route.abort("internetdisconnected") : route.continue()));
}

test("a Pay whose answer is lost says so in the form; the reload shows the prompt it sent, not a form", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await loseAnswers(page, `/pay/${link.id}`);
  await pay(page, "0770000003");
  // Not the framework's error page: the form, its number, and what to do.
  await expect(numberError(page)).toContainText("could not reach the payment service");
  await expect(page.getByLabel(/mobile money number/i)).toHaveValue("0770000003");
  await expect.poll(async () => (await paymentsOfLink(request, link.id)).length).toBe(1);

  await page.unrouteAll();
  await page.reload();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  await expect(page.getByLabel(/mobile money number/i)).toHaveCount(0);
  // The address now names the attempt, so the next reload needs no looking up.
  const [payment] = await paymentsOfLink(request, link.id);
  expect(attemptOf(page)).toBe(payment!.id);
  await page.reload();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("a Pay whose answer is lost, tapped again: the same attempt, one payment", async ({ page, request }) => {
  const link = await createLink(request);
  await payAndLoseTheAnswer(page, `/pay/${link.id}`, "0770000001");
  await page.getByRole("button", { name: /^Pay / }).click();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("a Pay whose answer is lost and whose payment is made before the reload: the reload shows that receipt and the way to pay again, on every reload after", async ({ page, context, request }) => {
  const link = await createLink(request); // reusable: a bare form here would invite a second payment
  await payAndLoseTheAnswer(page, `/pay/${link.id}`, "0770000001");
  await expect.poll(async () => (await paymentsOfLink(request, link.id)).map((p) => p.status)).toEqual(["succeeded"]);
  // The answer never arrived, nor anything it carried.
  await context.clearCookies();

  await page.reload();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received");
  await expect(page.getByRole("link", { name: "Make another payment" })).toBeVisible();
  const [payment] = await paymentsOfLink(request, link.id);
  expect(attemptOf(page)).toBe(payment!.id);
  // Its address now names it, and it is this browser's: the receipt again, with no looking up.
  await page.reload();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received");
  await expect(page.getByRole("heading", { name: "Checking your payment…" })).toHaveCount(0);

  // Seen, the receipt stays a memory: the link's own address is its form.
  await page.getByRole("link", { name: "Make another payment" }).click();
  await expect(page.getByRole("button", { name: /^Pay / })).toBeVisible();
  await page.waitForTimeout(1_000);
  await expect(statusRegion(page)).toHaveCount(0);
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("a Pay that never left the phone: the reload's form sends the same attempt, one payment", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await dropRequests(page, `/pay/${link.id}`);
  await pay(page, "0770000001");
  await expect(numberError(page)).toContainText("could not reach the payment service");
  expect(await paymentsOfLink(request, link.id)).toHaveLength(0);
  await page.unrouteAll();
  await page.reload();
  await payAgainAsTapped(page, request, link.id, "0770000001");
});

test("a Pay tapped before the page's script has loaded that never left the phone: the reload's form has its number and its attempt", async ({ page, request }) => {
  const link = await createLink(request);
  const path = `/pay/${link.id}`;
  // The scripts do not arrive, so the form posts as plain HTML; and that post never leaves the phone.
  await page.route(SCRIPT_CHUNKS, () => undefined);
  await page.goto(path, { waitUntil: "domcontentloaded" });
  await dropRequests(page, path);
  const posted = page.waitForEvent("requestfailed", (r) => r.method() === "POST");
  await page.getByLabel(/mobile money number/i).fill("077 000 0001");
  await page.getByRole("button", { name: /^Pay / }).click();
  await posted;
  expect(await paymentsOfLink(request, link.id)).toHaveLength(0);

  await page.unrouteAll({ behavior: "ignoreErrors" });
  await page.goto(path);
  await expect(page.locator("#msisdn-hint")).toHaveText("EcoCash");
  await payAgainAsTapped(page, request, link.id, "077 000 0001");
});

test("reopening a link while its prompt waits shows that prompt; once paid, a reusable link offers the form again", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000004"); // times out at the push, succeeds some seconds later
  await expect(statusRegion(page).getByRole("heading")).toHaveText(/Confirming your payment|Check your phone/, { timeout: 15_000 });
  const paymentId = attemptOf(page);

  // As from the message the link came in: the bare address.
  await page.goto(`/pay/${link.id}`);
  await expect(statusRegion(page)).toBeVisible();
  expect(attemptOf(page)).toBe(paymentId);
  await expect(page.getByLabel(/mobile money number/i)).toHaveCount(0);
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received", { timeout: 20_000 });

  // Paid and finished: a link that takes many payments offers another.
  await page.goto(`/pay/${link.id}`);
  await expect(page.getByLabel(/mobile money number/i)).toBeVisible();
  await page.waitForTimeout(1_000);
  await expect(page.getByLabel(/mobile money number/i)).toBeVisible();
  expect(new URL(page.url()).searchParams.get("payment")).toBeNull();
});

test("a single-use link reopened by the customer who paid it shows their receipt; anyone else reads that it is used", async ({ page, browser, request }) => {
  const link = await createLink(request, { single_use: true });
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000001");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });

  await page.goto(`/pay/${link.id}`);
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received");
  await expect(page.getByText("Link already used")).toHaveCount(0);

  const other = await browser.newContext();
  const stranger = await other.newPage();
  await stranger.goto(`/pay/${link.id}`);
  await expect(stranger.getByRole("heading", { level: 2 })).toHaveText("Link already used");
  await expect(stranger.getByText("check your wallet's messages before paying again")).toBeVisible();
  await other.close();
});

test("a checkout whose Pay answer is lost shows its attempt after the reload; the status is announced, the countdown is not", async ({ page, request }) => {
  const session = await createSession(request);
  await payAndLoseTheAnswer(page, `/checkout/${session.id}`, "0770000003");
  await page.reload();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  expect((await getSession(request, session.id)).payment).toMatch(/^pay_/);

  // The live region was there before its news; the ticking timer inside it is left out.
  await expect(page.locator("[aria-live=polite]").filter({ has: statusRegion(page) })).toHaveCount(1);
  await expect(page.locator(".countdown")).toHaveAttribute("aria-live", "off");
  await expect(statusRegion(page).getByRole("heading")).toBeFocused();
});

test("a page that loses its connection while the prompt waits says so, and carries on once back", async ({ page, context, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000003");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  await context.setOffline(true);
  const notice = page.getByText("This page cannot reach us: check your connection.");
  await expect(notice).toBeVisible({ timeout: 15_000 });
  // Still waiting for the customer, never failed.
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  await context.setOffline(false);
  await expect(notice).toHaveCount(0, { timeout: 15_000 });
});

test("after a lost answer, the reloaded page offers no form while it asks what became of the attempt: no second payment meanwhile", async ({ page, request }) => {
  const link = await createLink(request); // takes many payments: the form is what comes back
  await payAndLoseTheAnswer(page, `/pay/${link.id}`, "0770000003");

  const release = await holdAttemptLookups(page);
  await page.reload();
  await expect(page.getByRole("heading", { name: "Checking your payment…" })).toBeVisible();
  await page.waitForTimeout(1_000);
  await expect(page.getByLabel(/mobile money number/i)).toHaveCount(0);
  release();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  await expect(page.getByRole("heading", { name: "Checking your payment…" })).toHaveCount(0);
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("after a lost answer, a page that cannot ask gives the form back with the same attempt: Pay again is one payment", async ({ page, request }) => {
  const link = await createLink(request);
  await payAndLoseTheAnswer(page, `/pay/${link.id}`, "0770000003");
  await page.route(/\/status\?(.*&)?attempt=/, (route) => route.abort("internetdisconnected"));
  await page.reload();
  await pay(page, "0770000003");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("a single-use link reloaded by the customer whose answer was lost never reads 'Link already used'; a failed look-up is asked again", async ({ page, request }) => {
  const link = await createLink(request, { single_use: true });
  await payAndLoseTheAnswer(page, `/pay/${link.id}`, "0770000003");

  // The first two look-ups get no answer; the page keeps asking.
  let refused = 0;
  await page.route(/\/status\?(.*&)?attempt=/, (route) => (++refused <= 2 ? route.abort("connectionreset") : route.continue()));
  await watchForUsed(page);
  await page.reload();
  await expect(page.getByRole("heading", { name: "Checking your payment…" })).toBeVisible();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN", { timeout: 15_000 });
  expect(refused).toBeGreaterThanOrEqual(3);
  expect(await sawUsed(page)).toBe(false);
  await expect(page.getByText("Link already used")).toHaveCount(0);
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("before the page's script has loaded, a browser that sent an attempt sees neither 'Link already used' nor a form", async ({ page, request }) => {
  const link = await createLink(request, { single_use: true });
  await payAndLoseTheAnswer(page, `/pay/${link.id}`, "0770000003");

  // A slow network: the page's HTML arrives, its scripts do not (yet).
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(SCRIPT_CHUNKS, async (route) => {
    await released;
    await route.continue();
  });
  await watchForUsed(page);
  await page.goto(`/pay/${link.id}`, { waitUntil: "domcontentloaded" });
  await expect(page.getByRole("heading", { name: "Checking your payment…" })).toBeVisible();
  await expect(page.getByText("Link already used")).toBeHidden();
  await expect(page.getByLabel(/mobile money number/i)).toBeHidden();
  release();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  expect(await sawUsed(page)).toBe(false);
});

test("a number typed before the page's script has loaded is kept once it has, and pays", async ({ page, request }) => {
  const session = await createSession(request);
  // A slow network: the form arrives and the customer types while its scripts are on their way.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(SCRIPT_CHUNKS, async (route) => {
    await released;
    await route.continue();
  });
  await page.goto(session.url, { waitUntil: "domcontentloaded" });
  const number = page.getByLabel(/mobile money number/i);
  await number.fill("077 000 0001");
  release();
  // The hint is drawn from what the page's script holds: once it names the network, the number is its.
  await expect(page.locator("#msisdn-hint")).toHaveText("EcoCash");
  await expect(number).toHaveValue("077 000 0001");
  await page.getByRole("button", { name: /^Pay / }).click();
  await expect(statusRegion(page).getByRole("heading")).toHaveText(/Check your phone|Payment received/);
  expect((await getSession(request, session.id)).payment).toMatch(/^pay_/);
});

test("a Pay tapped before the page's script has loaded, whose answer is lost, is found again on the next load, not charged twice", async ({ page, request }) => {
  const link = await createLink(request); // reusable: a fresh form would take a second payment
  const path = `/pay/${link.id}`;
  // The scripts do not arrive: the form posts as plain HTML, and its answer is lost.
  await page.route(SCRIPT_CHUNKS, () => undefined);
  await loseAnswers(page, path);
  await page.goto(path, { waitUntil: "domcontentloaded" });
  await page.getByLabel(/mobile money number/i).fill("0770000003");
  await page.getByRole("button", { name: /^Pay / }).click();
  await expect.poll(async () => (await paymentsOfLink(request, link.id)).length).toBe(1);

  await page.unrouteAll({ behavior: "ignoreErrors" });
  await page.goto(path);
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  await expect(page.getByLabel(/mobile money number/i)).toBeHidden();
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("a form the server gave back before the page's script loaded still sends its attempt once the script runs, in a browser that keeps nothing", async ({ page, request }) => {
  const link = await createLink(request); // reusable: a fresh key would take a second payment
  const path = `/pay/${link.id}`;
  // Storage refused (as some privacy settings do): the page's scripts can keep no attempt key.
  await page.addInitScript(() =>
    Object.defineProperty(window, "localStorage", {
      get() {
        throw new DOMException("The operation is insecure.", "SecurityError");
      },
    }),
  );
  // A slow network: the form posts as plain HTML, and the page it gets back waits for its scripts.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(SCRIPT_CHUNKS, async (route) => {
    await released;
    await route.continue();
  });
  await page.goto(path, { waitUntil: "domcontentloaded" });
  const key = page.locator("input[name=attempt_key]");
  const sent = await key.inputValue();
  await page.getByLabel(/mobile money number/i).fill("0242 704 000");
  await page.getByRole("button", { name: /^Pay / }).click();
  await expect(numberError(page)).toContainText("landline");

  release();
  // The hint follows the number once the page's script holds the form.
  await page.getByLabel(/mobile money number/i).fill("077 000 0003");
  await expect(page.locator("#msisdn-hint")).toHaveText("EcoCash");
  await expect(key).toHaveValue(sent);
  // As if the first post had made its payment before its answer went wrong: Pay is that payment.
  const fields = await page.locator("form input").evaluateAll((inputs) => (inputs as HTMLInputElement[]).map((i) => [i.name, i.value] as const));
  const made = await page.request.post(page.url(), { multipart: { ...Object.fromEntries(fields.filter(([name]) => name)), attempt_key: sent }, headers: { Origin: new URL(page.url()).origin }, maxRedirects: 0 });
  expect(made.status(), await made.text()).toBe(303);
  await page.getByRole("button", { name: /^Pay / }).click();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("a held-back page whose scripts never arrive says so and offers a reload, which finds the payment", async ({ page, request }) => {
  const link = await createLink(request, { single_use: true });
  await payAndLoseTheAnswer(page, `/pay/${link.id}`, "0770000003");

  await page.route(SCRIPT_CHUNKS, (route) => route.abort("connectionreset"));
  await page.goto(`/pay/${link.id}`, { waitUntil: "domcontentloaded" });
  await expect(page.getByRole("heading", { name: "Checking your payment…" })).toBeVisible();
  const reload = page.getByRole("link", { name: "reload the page" });
  await expect(reload).toBeHidden();
  await expect(reload).toBeVisible({ timeout: ISLAND_STALL_MS + 5_000 });
  await expect(page.getByLabel(/mobile money number/i)).toBeHidden();

  await page.unroute(SCRIPT_CHUNKS);
  await reload.click();
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  await expect(page.getByRole("link", { name: "reload the page" })).toHaveCount(0);
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("a second tab's refused Pay does not make the browser forget the payment the first tab made", async ({ page, context, request }) => {
  const link = await createLink(request, { single_use: true });
  const second = await context.newPage();
  await page.goto(`/pay/${link.id}`);
  await second.goto(`/pay/${link.id}`);
  await pay(page, "0770000001");
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });

  // The second tab still shows the form it loaded; its Pay is refused, the link being used.
  await pay(second, "0770000001");
  await expect(statusRegion(second).getByRole("heading")).toHaveText("Payment received", { timeout: 15_000 });
  await expect(second.getByText("Link already used")).toHaveCount(0);

  // Reopened from the message it came in, in either tab: this browser's receipt.
  await page.goto(`/pay/${link.id}`);
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Payment received");
  await expect(page.getByText("Link already used")).toHaveCount(0);
  expect(await paymentsOfLink(request, link.id)).toHaveLength(1);
});

test("while the page's scripts are on their way, the countdown of a prompt already sent still counts down, and the island takes it over", async ({ page, request }) => {
  const link = await createLink(request);
  await page.goto(`/pay/${link.id}`);
  await pay(page, "0770000003"); // never answers: the prompt stays out
  await expect(statusRegion(page).getByRole("heading")).toHaveText("Check your phone and enter your PIN");
  const paymentId = attemptOf(page);

  // A slow network: the attempt's page arrives, its scripts do not (yet).
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(SCRIPT_CHUNKS, async (route) => {
    await released;
    await route.continue();
  });
  const errors: string[] = [];
  page.on("console", (m) => void (m.type() === "error" && errors.push(m.text())));
  await page.goto(`/pay/${link.id}?payment=${paymentId}`, { waitUntil: "domcontentloaded" });
  const timer = statusRegion(page).getByRole("timer");
  const seconds = async () => {
    const [m, s] = ((await timer.textContent()) ?? "").split(":").map(Number);
    return m! * 60 + s!;
  };
  const first = await seconds();
  expect(first).toBeGreaterThan(100);
  // Ticks without the island: at least two seconds gone within four.
  await expect.poll(seconds, { timeout: 4_000 }).toBeLessThanOrEqual(first - 2);
  expect(await timer.getAttribute("data-until")).not.toBeNull();

  release();
  // The island's countdown now: the first script's attributes are gone, and it still ticks.
  await expect(timer).not.toHaveAttribute("data-until");
  const taken = await seconds();
  await expect.poll(seconds, { timeout: 4_000 }).toBeLessThan(taken);
  expect(errors.filter((e) => /hydrat/i.test(e))).toEqual([]);
});
