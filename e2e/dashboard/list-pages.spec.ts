import { randomInt, randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext, type Page, type Route } from "@playwright/test";
import { bearer, seed } from "../support/seed";
import { eventOf, harareWallTime, keep, succeededPayment, v1 } from "./support";

/**
 * The pages of Payments and Events, which keep their page in the address (`after`, `before`: an
 * object of one mode): across the test/live switch, and where the object is not there.
 */

/**
 * A live payment, which no test-mode page lists. Each to a number of its own: a live number gets a
 * few PIN prompts a minute at most, and other tests prompt live numbers too.
 */
async function livePayment(request: APIRequestContext, reference: string) {
  const msisdn = `0771${String(randomInt(1_000_000)).padStart(6, "0")}`;
  const res = await request.post("/v1/payments", {
    headers: { ...bearer(seed().keys.live), "Idempotency-Key": randomUUID() },
    data: { amount: 1_000, currency: "USD", method: "wallet", reference, customer: { msisdn } },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()) as { id: string; reference: string };
}

const tagged = (what: string) => `${what}-${Date.now().toString(36)}-${randomUUID().slice(0, 4)}`;

test("the test/live switch on a later page of Payments or Events opens the other mode's newest page, filters kept", async ({ page, request }, testInfo) => {
  const tag = tagged("switch-page");
  const older = await succeededPayment(request, `${tag}-1`);
  const newer = await succeededPayment(request, `${tag}-2`);
  const live = await livePayment(request, `${tag}-live`);
  const testMode = page.getByRole("switch", { name: "Test mode" });
  const rows = page.locator("table.data tbody tr");

  // The search's second page in test mode.
  await page.goto(`/dashboard/payments?q=${tag}&after=${newer.id}`);
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText(older.reference);
  await testMode.click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments\\?q=${tag}$`));
  await expect(page.getByText("Test mode: you are looking at test data.")).toHaveCount(0);
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText(live.reference);
  await expect(page.getByText(/No such payment/)).toHaveCount(0);
  await keep(page, testInfo, "payments-after-switch");

  // The event log's second page in live mode, back to test mode.
  const eventId = await eventOf(request, newer.id, "payment.succeeded");
  // The second it was made in (to is exclusive): other tests running alongside make more than a
  // page of payment.succeeded events a minute, which would push it off the first page.
  const { created_at } = await v1<{ created_at: string }>(request, "GET", `/v1/events/${eventId}`);
  const around = `from=${harareWallTime(created_at)}&to=${harareWallTime(created_at, 1_000)}`;
  await page.goto(`/dashboard/events?type=payment.succeeded&${around}&after=${eventId}`);
  await testMode.click();
  await expect(page).toHaveURL(/\/dashboard\/events\?type=payment\.succeeded&from=[^&]+&to=[^&]+$/);
  await expect(page.getByText("Test mode: you are looking at test data.")).toBeVisible();
  await expect(page.getByRole("link", { name: eventId })).toBeVisible();
  await expect(page.getByText(/No such event/)).toHaveCount(0);

  // Live mode chosen in another tab: this tab's "Reload in live mode" leaves its page behind too.
  await page.goto(`/dashboard/payments?q=${tag}&after=${newer.id}`);
  await expect(rows).toContainText(older.reference);
  const otherTab = await page.context().newPage();
  await otherTab.goto("/dashboard");
  await otherTab.getByRole("switch", { name: "Test mode" }).click();
  await expect(otherTab.getByText("Test mode: you are looking at test data.")).toHaveCount(0);
  await page.getByRole("button", { name: "Reload in live mode" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments\\?q=${tag}$`));
  await expect(rows).toContainText(live.reference);
  await expect(page.getByText(/No such payment/)).toHaveCount(0);
});

test("← Payments keeps the list's page in the mode it was read in, and only its filters after the switch", async ({ page, request }) => {
  const tag = tagged("back-mode");
  const older = await succeededPayment(request, `${tag}-1`);
  const newer = await succeededPayment(request, `${tag}-2`);
  const live = await livePayment(request, `${tag}-live`);
  const testMode = page.getByRole("switch", { name: "Test mode" });
  const secondPage = `/dashboard/payments?q=${tag}&after=${newer.id}`;

  await page.goto(secondPage);
  await page.getByRole("link", { name: older.reference }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments/${older.id}$`));
  await page.getByRole("link", { name: "← Payments" }).click();
  await expect(page).toHaveURL(new RegExp(`${secondPage.replace("?", "\\?")}$`));

  // The payment is a test one: in live mode its page says so, and leads back to the live list.
  await page.getByRole("link", { name: older.reference }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments/${older.id}$`));
  await testMode.click();
  await expect(page.getByText(`There is no payment ${older.id} in live data`)).toBeVisible();
  await page.getByRole("link", { name: "← Payments" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments\\?q=${tag}$`));
  await expect(page.locator("table.data tbody tr")).toContainText(live.reference);
  await expect(page.getByText(/No such payment/)).toHaveCount(0);
});

test("a page whose cursor is not in this mode's data leads to the newest page, not to a retry that cannot work", async ({ page, request, baseURL }, testInfo) => {
  const tag = tagged("gone-page");
  const payment = await succeededPayment(request, `${tag}-1`);
  const live = await livePayment(request, `${tag}-live`);

  // A live payment's page, opened in test mode (an address from before a switch, say).
  await page.goto(`/dashboard/payments?q=${tag}&after=${live.id}`);
  const note = page.getByRole("alert").filter({ hasText: `This page of payments starts from ${live.id}, which is not in test data` });
  await expect(note).toBeVisible();
  await expect(page.getByRole("button", { name: "Try again" })).toHaveCount(0);
  await keep(page, testInfo, "payments-page-not-here");
  await note.getByRole("button", { name: "Go to the newest payments" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments\\?q=${tag}$`));
  await expect(page.locator("table.data tbody tr")).toContainText(payment.reference);

  // A test event's page, opened in live mode.
  const eventId = await eventOf(request, payment.id, "payment.succeeded");
  await page.context().addCookies([{ name: "mari_mode", value: "live", url: baseURL! }]);
  await page.goto(`/dashboard/events?type=payment.succeeded&before=${eventId}`);
  const eventsNote = page.getByRole("alert").filter({ hasText: `This page of events starts from ${eventId}, which is not in live data` });
  await expect(eventsNote).toBeVisible();
  await expect(page.getByRole("button", { name: "Try again" })).toHaveCount(0);
  await eventsNote.getByRole("button", { name: "Go to the newest events" }).click();
  await expect(page).toHaveURL(/\/dashboard\/events\?type=payment\.succeeded$/);
  await expect(eventsNote).toHaveCount(0);
});

test("a page reached by a cursor with nothing past it says so, with the way back and to the newest page", async ({ page, request }, testInfo) => {
  const tag = tagged("empty-page");
  const older = await succeededPayment(request, `${tag}-1`);
  const newer = await succeededPayment(request, `${tag}-2`);
  const rows = page.locator("table.data tbody tr");
  const newerButton = page.getByRole("button", { name: "← Newer" });
  const olderButton = page.getByRole("button", { name: "Older →" });

  // Past the oldest payment the search finds (as when the rows past a page leave the filters
  // before the next is read): nothing older, which is not "no payments match".
  await page.goto(`/dashboard/payments?q=${tag}&after=${older.id}`);
  await expect(page.getByText("No older payments match these filters.")).toBeVisible();
  await expect(page.getByText(/No payments match/)).toHaveCount(0);
  await expect(olderButton).toBeDisabled();
  await keep(page, testInfo, "payments-nothing-older");
  // Back the way it came: the payments newer than the cursor.
  await newerButton.click();
  await expect(page).toHaveURL(new RegExp(`before=${older.id}$`));
  await expect(rows).toHaveCount(1);
  await expect(rows).toContainText(newer.reference);

  // Before the newest: nothing newer; the way on is older, or the newest page.
  await page.goto(`/dashboard/payments?q=${tag}&before=${newer.id}`);
  await expect(page.getByText("No newer payments match these filters.")).toBeVisible();
  await expect(newerButton).toBeDisabled();
  await expect(olderButton).toBeEnabled();
  await page.getByRole("button", { name: "Go to the newest payments" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments\\?q=${tag}$`));
  await expect(rows).toHaveCount(2);

  // The event log, in a window that ends before any event of this run.
  const eventId = await eventOf(request, older.id, "payment.succeeded");
  await page.goto(`/dashboard/events?to=2020-01-01T00:00:00&after=${eventId}`);
  await expect(page.getByText("No older events match these filters.")).toBeVisible();
  await expect(newerButton).toBeEnabled();
  await page.getByRole("button", { name: "Go to the newest events" }).click();
  await expect(page).toHaveURL(/\/dashboard\/events\?to=2020-01-01T00%3A00%3A00$/);
  await expect(page.getByText("No events match these filters.")).toBeVisible();
});

/**
 * A slow server for the page at `path` once its address has `param=value`: the navigation to the
 * new address, and the list's rows for it (`procedure`, whose input names `value`), are held until
 * let go.
 */
async function holdFilteredPage(page: Page, path: string, param: string, value: string, procedure: string) {
  const navigation: Route[] = [];
  const list: Route[] = [];
  await page.route(
    (url) => url.pathname === path && url.searchParams.get(param) === value,
    (route) => void (route.request().headers()["rsc"] ? navigation.push(route) : route.continue()),
  );
  await page.route(new RegExp(`/api/trpc/[^?]*${procedure.replace(".", "\\.")}[^?]*\\?.*${encodeURIComponent(`"${value}"`)}`), (route) => void list.push(route));
  const letGo = async (routes: Route[]) => {
    // A request the page has since given up on (a newer one replaces it) is no longer there to let go.
    for (const route of routes.splice(0)) await route.continue().catch(() => undefined);
  };
  return {
    navigation: () => navigation.length,
    list: () => list.length,
    letNavigationGo: () => letGo(navigation),
    letListGo: async () => {
      await page.unrouteAll();
      await letGo(list);
    },
  };
}

test("while a new filter's page is on its way, the pager waits for it instead of paging the old filter's rows", async ({ page, request }, testInfo) => {
  // 25 payments in dollars, then the 2 newest in ZWG: the search's first page ends in dollars, and
  // ZWG alone has one page. Each succeeds, for a page of the event log as well.
  const tag = tagged("pager-wait");
  const succeeded = async (reference: string, currency: "USD" | "ZWG") => {
    const p = await v1<{ id: string }>(request, "POST", "/v1/payments", { amount: 1_000, currency, method: "wallet", reference, customer: { msisdn: "0770000003" } });
    await v1(request, "POST", `/v1/test_helpers/payments/${p.id}/succeed`);
  };
  for (let i = 1; i <= 25; i++) await succeeded(`${tag}-usd-${i}`, "USD");
  for (let i = 1; i <= 2; i++) await succeeded(`${tag}-zwg-${i}`, "ZWG");
  const rows = page.locator("table.data tbody tr");
  const olderButton = page.getByRole("button", { name: "Older →" });

  await page.goto(`/dashboard/payments?q=${tag}`);
  await expect(rows).toHaveCount(25);
  await expect(olderButton).toBeEnabled();
  const held = await holdFilteredPage(page, "/dashboard/payments", "currency", "ZWG", "payments.list");
  await page.getByLabel("Currency").selectOption("ZWG");

  // The address has not changed yet: the rows are still the search's, and the pager waits.
  await expect.poll(held.navigation).toBeGreaterThan(0);
  await expect(page).not.toHaveURL(/currency=ZWG/);
  await expect(rows).toHaveCount(25);
  await expect(olderButton).toBeDisabled();
  await held.letNavigationGo();

  // The address has: the search's rows stay in sight while ZWG's load, and the pager still waits.
  await expect(page).toHaveURL(/currency=ZWG/);
  await expect.poll(held.list).toBeGreaterThan(0);
  await expect(rows).toHaveCount(25);
  await expect(olderButton).toBeDisabled();
  await keep(page, testInfo, "pager-waits-for-filter");
  await held.letListGo();

  // ZWG's own page: its two payments, the newest first, and no pager: the whole list is on it.
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText(`${tag}-zwg-2`);
  await expect(page.locator(".pager")).toHaveCount(0);
  await expect(page).not.toHaveURL(/after=/);

  // The event log: from every payment.succeeded (27 at least) to the payment.failed ones. Its own
  // table's rows: the latest window replays may be listed above it.
  const eventRows = page.locator("table.ev-table tbody tr");
  await page.goto("/dashboard/events?type=payment.succeeded");
  await expect(eventRows).toHaveCount(25);
  await expect(olderButton).toBeEnabled();
  const heldEvents = await holdFilteredPage(page, "/dashboard/events", "type", "payment.failed", "events.list");
  await page.getByLabel("Type").selectOption("payment.failed");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect.poll(heldEvents.navigation).toBeGreaterThan(0);
  await expect(olderButton).toBeDisabled();
  await heldEvents.letNavigationGo();
  await expect(page).toHaveURL(/type=payment\.failed/);
  await expect.poll(heldEvents.list).toBeGreaterThan(0);
  await expect(eventRows.filter({ hasText: "payment.succeeded" })).toHaveCount(25);
  await expect(olderButton).toBeDisabled();
  await heldEvents.letListGo();
  await expect(eventRows.filter({ hasText: "payment.succeeded" })).toHaveCount(0);
});

/** Every list page in a tRPC answer (`{ data: [...], hasMore }`, however it is wrapped) made empty, as if its rows had left the filter. */
function emptied(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(emptied);
  if (body === null || typeof body !== "object") return body;
  const o = body as Record<string, unknown>;
  if (Array.isArray(o.data) && typeof o.hasMore === "boolean") return { ...o, data: [], hasMore: false };
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, emptied(v)]));
}

test("the lists that keep their page to themselves: a later page that comes back empty leads to the newest page, not to 'no links yet'", async ({ page, request }) => {
  // More links than a page holds, so that the list has an older page whatever other tests made.
  for (let i = 0; i < 21; i++) await v1(request, "POST", "/v1/payment_links", { amount: 100 + i, currency: "USD", description: `paging ${i}` });
  // The older page's links are deactivated by someone else before it is read, under "Hide deactivated".
  await page.route(/\/api\/trpc\/[^?]*paymentLinks\.list[^?]*\?.*startingAfter/, async (route) => {
    const res = await route.fetch();
    await route.fulfill({ response: res, json: emptied(await res.json()) });
  });
  await page.goto("/dashboard/payment-links");
  const rows = page.locator("table.data tbody tr");
  await expect(rows).toHaveCount(20);
  await page.getByRole("button", { name: "Older →" }).click();
  await expect(page.getByText("No older payment links.")).toBeVisible();
  await expect(page.getByText(/No payment links in this environment yet/)).toHaveCount(0);
  await page.getByRole("button", { name: "Go to the newest payment links" }).click();
  await expect(rows).toHaveCount(20);
});
