import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { expect, test, type Locator, type Page, type Route } from "@playwright/test";
import { verifySignatureHeader } from "../../server/domain/signatures";
import { pageOverflow, tablesWiderThanTheirBox } from "../support/layout";
import { receiver } from "../support/receiver";
import { bearer, seed } from "../support/seed";
import { addTeamMember, addTeamMemberShown, deleteEndpointsMade, deliveredEvent, endpointMade, eventOf, fillSignIn, harareWallTime, keep, payLinkAndLeave, succeededPayment, testEventsAt, v1 } from "./support";

test.afterEach(({ request }) => deleteEndpointsMade(request));

/** A merchant's day in the dashboard, signed in as the seeded admin (see sign-in.setup.ts). */

test("search a payment by part of its reference, open it, read its timeline; export the search as CSV", async ({ page, request }, testInfo) => {
  const reference = `order-${Date.now().toString(36)}-blue`;
  const payment = await succeededPayment(request, reference);
  await succeededPayment(request); // another, which the search must leave out

  await page.goto("/dashboard/payments");
  await page.getByLabel("Search", { exact: true }).fill(reference.slice(6));
  await expect(page).toHaveURL(/[?&]q=/);
  const rows = page.locator("table.data tbody tr");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("USD 42.50");
  await expect(rows.first()).toContainText("Succeeded");
  await keep(page, testInfo, "payments");

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  const csv = readFileSync((await (await download).path())!, "utf8");
  expect(csv.split("\r\n").filter(Boolean)).toHaveLength(2);
  expect(csv).toContain(reference);

  await page.getByRole("link", { name: reference }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments/${payment.id}$`));
  const timeline = page.locator("ol.pay-timeline");
  await expect(timeline).toContainText("payment.succeeded");
  await expect(timeline.locator("li")).not.toHaveCount(0);
  // Each event is named once: by its own entry, with its deliveries, not again under the state change that fired it.
  const succeededEvent = await eventOf(request, payment.id, "payment.succeeded");
  await expect(timeline.locator("li.pay-tl-event").getByRole("link", { name: succeededEvent })).toHaveCount(1);
  await expect(timeline.locator("li.pay-tl-state").getByRole("link", { name: succeededEvent })).toHaveCount(0);
  await keep(page, testInfo, "payment-detail");
});

test("a page drawn in test mode exports test payments, even after live mode was chosen in another tab", async ({ page, request, baseURL }) => {
  const reference = `order-${Date.now().toString(36)}-mode`;
  await succeededPayment(request, reference);
  await page.goto(`/dashboard/payments?q=${reference}`);
  await expect(page.locator("table.data tbody tr")).toHaveCount(1);
  // Another tab switches to live: the cookie, shared by every tab, now says live.
  await page.context().addCookies([{ name: "mari_mode", value: "live", url: baseURL! }]);

  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  expect((await download).suggestedFilename()).toMatch(/^payments-test-/);
  expect(readFileSync((await (await download).path())!, "utf8")).toContain(reference);
});

test("the list follows a payment that settles while it shows; a date range that ends before it starts says so", async ({ page, request }) => {
  const reference = `order-${Date.now().toString(36)}-wait`;
  const p = await v1<{ id: string }>(request, "POST", "/v1/payments", { amount: 1_500, currency: "USD", method: "wallet", reference, customer: { msisdn: "0770000003" } });
  await page.goto(`/dashboard/payments?q=${reference}`);
  const row = page.locator("table.data tbody tr");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Awaiting customer");
  await v1(request, "POST", `/v1/test_helpers/payments/${p.id}/succeed`);
  // No reload, no focus change: the page asks again while a row is about to settle.
  await expect(row).toContainText("Succeeded", { timeout: 15_000 });

  await page.goto("/dashboard/payments?from=2026-11-30&to=2026-11-29");
  await expect(page.getByText("The end of the range must be on or after its start.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Export CSV" })).toBeDisabled();
});

test("the search finds a payment by the customer's number as people write it, and by its id", async ({ page, request }) => {
  const payment = await succeededPayment(request, `by-number-${Date.now().toString(36)}`);
  const res = await request.get(`/v1/payments/${payment.id}`, { headers: bearer(seed().keys.test) });
  const msisdn = ((await res.json()) as { customer: { msisdn: string } }).customer.msisdn;
  await page.goto("/dashboard/payments");
  await page.getByLabel("Search", { exact: true }).fill(`0${msisdn.slice(3, 5)} ${msisdn.slice(5, 8)} ${msisdn.slice(8)}`);
  await expect(page.locator("table.data tbody tr").filter({ hasText: payment.reference })).toBeVisible();
  await page.getByLabel("Search", { exact: true }).fill(payment.id);
  await expect(page.locator("table.data tbody tr")).toHaveCount(1);
  await expect(page.locator("table.data tbody tr")).toContainText(payment.reference);
  await page.getByLabel("Search", { exact: true }).fill("no-such-reference-anywhere");
  await expect(page.getByText(/The search finds part of a reference, a customer's whole number in any form, or a payment's pay_ id/)).toBeVisible();
});

test("a team member's role changes only once the change is confirmed, and the page says it did", async ({ page }) => {
  const email = `role-${Date.now().toString(36)}@example.test`;
  await page.goto("/dashboard/team");
  await page.getByRole("textbox", { name: "E-mail" }).fill(email);
  await page.getByLabel("Your password").fill(seed().staff.password!);
  await page.getByRole("button", { name: "Add", exact: true }).click();
  const role = page.getByLabel(`Role of ${email}`, { exact: true });
  await expect(role).toHaveValue("viewer");

  // Making someone admin asks for the admin's own password; a lesser role does not.
  await role.selectOption("admin");
  const confirm = page.getByRole("form", { name: `Change the role of ${email}` });
  await expect(confirm).toContainText(`Make ${email} an admin`);
  await expect(confirm.getByLabel("Your password")).toBeVisible();
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(role).toHaveValue("viewer");
  // Escape puts the question away too, and the focus goes back to the choice.
  await role.selectOption("developer");
  await confirm.getByLabel("Your password").click();
  await page.keyboard.press("Escape");
  await expect(confirm).toHaveCount(0);
  await expect(role).toHaveValue("viewer");
  await expect(role).toBeFocused();
  await page.reload();
  await expect(page.getByLabel(`Role of ${email}`)).toHaveValue("viewer");

  // A wrong password asks again for the same role, saying so beside the field.
  await page.getByLabel(`Role of ${email}`).selectOption("developer");
  await confirm.getByLabel("Your password").fill("not the admin's password");
  await confirm.getByRole("button", { name: "Change role" }).click();
  await expect(confirm.getByRole("alert")).toHaveText("That is not your current password.");
  await expect(confirm).toContainText(`Make ${email} a developer`);
  await expect(confirm.getByLabel("Your password")).toBeFocused();
  await expect(page.getByLabel(`Role of ${email}`, { exact: true })).toHaveValue("developer");
  await confirm.getByLabel("Your password").fill(seed().staff.password!);
  await page.getByRole("button", { name: "Change role" }).click();
  await expect(page.getByRole("status").filter({ hasText: `The role of ${email} is now developer` })).toBeVisible();
  await page.reload();
  await expect(page.getByLabel(`Role of ${email}`)).toHaveValue("developer");
});

test("filters combine with the search as they are set, and Clear filters clears them all at once", async ({ page }) => {
  await page.goto("/dashboard/payments");
  // A status chosen while the search box still waits for typing to stop is kept.
  await page.getByLabel("Search", { exact: true }).fill("order");
  await page.getByLabel("Status").selectOption("failed");
  await expect(page).toHaveURL(/q=order/);
  await expect(page).toHaveURL(/status=failed/);
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(page).toHaveURL(/\/dashboard\/payments$/);
  // Past the search box's wait (350 ms), nothing comes back.
  await page.waitForTimeout(1_000);
  await expect(page).toHaveURL(/\/dashboard\/payments$/);
  await expect(page.getByLabel("Status")).toHaveValue("");
  await expect(page.getByLabel("Search", { exact: true })).toHaveValue("");
});

test("a page of the list is a step the browser's Back undoes; a filter is not", async ({ page, request }) => {
  const tag = `back-${Date.now().toString(36)}`;
  for (let i = 0; i < 26; i++) await succeededPayment(request, `${tag}-${i}`);
  await page.goto("/dashboard");
  await page.goto("/dashboard/payments");
  await page.getByLabel("Search", { exact: true }).fill(tag);
  await expect(page).toHaveURL(new RegExp(`q=${tag}`));
  await expect(page.locator("table.data tbody tr")).toHaveCount(25);
  await page.getByRole("button", { name: "Older →" }).click();
  await expect(page).toHaveURL(/after=pay_/);
  await expect(page.locator("table.data tbody tr")).toHaveCount(1);
  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments\\?q=${tag}$`));
  await expect(page.locator("table.data tbody tr")).toHaveCount(25);
  // The search replaced the address it was typed on: one more Back leaves the list.
  await page.goBack();
  await expect(page).toHaveURL(/\/dashboard$/);
});

test("a refund from the payment's page says it was made, and the form starts again from what remains", async ({ page, request }) => {
  const payment = await succeededPayment(request);
  await page.goto(`/dashboard/payments/${payment.id}`);
  await expect(page.getByText("USD 42.50 of USD 42.50 can be refunded")).toBeVisible();
  await page.getByLabel("Amount (USD)").fill("2.00");
  // By keyboard: the question takes the focus, and Cancel gives it back to Refund….
  await page.getByRole("button", { name: "Refund…" }).focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: "Yes, refund USD 2.00" })).toBeFocused();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("button", { name: "Refund…" })).toBeFocused();
  // Escape puts it away as Cancel does.
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: "Yes, refund USD 2.00" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("button", { name: "Yes, refund USD 2.00" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Refund…" })).toBeFocused();
  // Asked again, then the amount changed: the question goes, and the focus stays in the field typed in.
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: "Yes, refund USD 2.00" })).toBeFocused();
  await page.getByLabel("Amount (USD)").fill("2.0");
  await expect(page.getByRole("button", { name: "Yes, refund USD 2.00" })).toHaveCount(0);
  await expect(page.getByLabel("Amount (USD)")).toBeFocused();
  await page.keyboard.type("0");
  await expect(page.getByLabel("Amount (USD)")).toHaveValue("2.00");
  // Enter in the field asks, and Enter on its Yes refunds.
  await page.keyboard.press("Enter");
  await page.keyboard.press("Enter");
  // The form starts again from what remains, and the refund just made is still said.
  await expect(page.getByText("USD 40.50 of USD 42.50 can be refunded")).toBeVisible();
  await expect(page.getByLabel("Amount (USD)")).toHaveValue("40.50");
  await expect(page.getByRole("status").filter({ hasText: /Refund re_\w+ of USD 2\.00 is/ })).toBeVisible();
  // The page follows the refund to its end without a reload.
  await expect(page.getByRole("status").filter({ hasText: /Refund re_\w+ of USD 2\.00 is done/ })).toBeVisible({ timeout: 20_000 });

  // The list marks the payment refunded in part; the overview's volume stays gross and says how much of it was refunded.
  // (Counted once the provider confirms the refund, a moment later.)
  await page.goto(`/dashboard/payments?q=${payment.reference}`);
  await expect(async () => {
    await page.reload();
    await expect(page.locator("table.data tbody tr").filter({ hasText: payment.reference })).toContainText("Partly refunded", { timeout: 1_000 });
  }).toPass({ timeout: 20_000 });
  await page.goto("/dashboard");
  await expect(page.getByRole("region", { name: "Today", exact: true })).toContainText(/USD [\d,.]+ of it refunded/);
});

test("a refund refused because another was made meanwhile says so in the page's money, and shows what now remains", async ({ page, request }) => {
  const payment = await succeededPayment(request);
  await page.goto(`/dashboard/payments/${payment.id}`);
  await expect(page.getByText("USD 42.50 of USD 42.50 can be refunded")).toBeVisible();
  // This tab reads nothing new meanwhile (a laptop's connection that dropped): held until the end.
  const held: Route[] = [];
  await page.route(/payments\.timeline/, (route) => void held.push(route));
  // A colleague refunds part of it first.
  await v1(request, "POST", "/v1/refunds", { payment: payment.id, amount: 200 });

  // This tab still offers the whole amount: asking for it is refused, and the page catches up.
  await page.getByRole("button", { name: "Refund…" }).click();
  await page.getByRole("button", { name: "Yes, refund USD 42.50" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Nothing was refunded: meanwhile another refund of this payment was made" })).toBeVisible();
  await page.unroute(/payments\.timeline/);
  // The page gave up on some of them (a refetch replaces the one in flight).
  for (const route of held) await route.continue().catch(() => undefined);
  await expect(page.getByText("USD 40.50 of USD 42.50 can be refunded")).toBeVisible();
  await expect(page.getByLabel("Amount (USD)")).toHaveValue("40.50");
  await expect(page.getByRole("alert").filter({ hasText: "Nothing was refunded" })).toBeVisible();
  await expect(page.getByText(/exceeds what remains refundable|\b4250\b/)).toHaveCount(0);
  await expect(page.getByRole("button", { name: /Yes, refund/ })).toHaveCount(0);
});

test("the Payments and Events links of the navigation clear the filters, and the controls say so", async ({ page }) => {
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  await page.goto("/dashboard/payments?q=order-101&status=succeeded");
  await expect(page.getByLabel("Search", { exact: true })).toHaveValue("order-101");
  await nav.getByRole("link", { name: "Payments" }).click();
  await expect(page).toHaveURL(/\/dashboard\/payments$/);
  await expect(page.getByLabel("Search", { exact: true })).toHaveValue("");
  await expect(page.getByRole("button", { name: "Clear filters" })).toHaveCount(0);

  await page.goto("/dashboard/events?type=refund.succeeded");
  await expect(page.getByLabel("Type")).toHaveValue("refund.succeeded");
  await nav.getByRole("link", { name: "Events" }).click();
  await expect(page).toHaveURL(/\/dashboard\/events$/);
  await expect(page.getByLabel("Type")).toHaveValue("");
});

test("an address no payment could have says there is no such payment, with the way back, not a retry", async ({ page }) => {
  await page.goto(`/dashboard/payments/pay_${"x".repeat(80)}`);
  await expect(page.locator(".warning[role=alert]")).toContainText("There is no payment pay_xxxx");
  await expect(page.getByRole("link", { name: "← Payments" })).toBeVisible();
  await expect(page.getByRole("button", { name: /try again/i })).toHaveCount(0);
});

test("the overview's counts of the week open the list of that week's payments", async ({ page, request }) => {
  await succeededPayment(request, `week-${Date.now().toString(36)}`);
  await page.goto("/dashboard");
  const monday = (await page.getByText(/since Monday \d{4}-\d\d-\d\d/).textContent())!.match(/\d{4}-\d\d-\d\d/)![0];
  await page.locator(".status-counts li").filter({ hasText: "Succeeded" }).getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments\\?status=succeeded&from=${monday}$`));
  await expect(page.getByLabel("From")).toHaveValue(monday);
});

test("← Payments and ← Events go back to the list as it was filtered", async ({ page, request }) => {
  const tag = `back-to-${Date.now().toString(36)}`;
  const payment = await succeededPayment(request, `${tag}-1`);
  await page.goto(`/dashboard/payments?q=${tag}&status=succeeded`);
  await page.getByRole("link", { name: payment.reference }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments/${payment.id}$`));
  await page.getByRole("link", { name: "← Payments" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments\\?q=${tag}&status=succeeded$`));
  await expect(page.getByLabel("Search", { exact: true })).toHaveValue(tag);
  await expect(page.getByLabel("Status")).toHaveValue("succeeded");

  const eventId = await eventOf(request, payment.id, "payment.succeeded");
  await page.goto("/dashboard/events?type=payment.succeeded");
  await page.getByRole("link", { name: eventId }).first().click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/events/${eventId}$`));
  await page.getByRole("link", { name: "← Events" }).click();
  await expect(page).toHaveURL(/\/dashboard\/events\?type=payment\.succeeded$/);
});

test("the event log links a refund's events to the refund's payment, and a settlement's to the settlement", async ({ page, request }) => {
  const payment = await succeededPayment(request);
  const refund = await v1<{ id: string }>(request, "POST", "/v1/refunds", { payment: payment.id, amount: 100 });
  const refundEvent = await eventOf(request, refund.id, "refund.succeeded", 20_000);
  await page.goto(`/dashboard/events/${refundEvent}`);
  await page.getByRole("link", { name: refund.id }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments/${payment.id}$`));

  // Another test may batch this payment first: any settlement will do.
  await v1(request, "POST", "/v1/test_helpers/settlements/run");
  const settlement = (await v1<{ data: Array<{ id: string }> }>(request, "GET", "/v1/settlements?limit=1")).data[0]!.id;
  const paid = await eventOf(request, settlement, "settlement.paid", 20_000);
  await page.goto("/dashboard/events?type=settlement.paid");
  const row = page.locator("table.data tbody tr").filter({ has: page.getByRole("link", { name: paid }) });
  await row.getByRole("link", { name: settlement }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/settlements/${settlement}$`));
  // Its lines name each payment by the reference the merchant's books know, and open the payment.
  const line = (await v1<{ data: Array<{ payment: string; reference: string; source: string }> }>(request, "GET", `/v1/settlements/${settlement}/lines?limit=1`)).data[0]!;
  const lineRow = page.locator("table.data tbody tr").filter({ hasText: line.source });
  await lineRow.getByRole("link", { name: line.reference, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments/${line.payment}$`));
});

test.describe("with the browser's clock in another time zone", () => {
  test.use({ timezoneId: "America/New_York" });

  test("the event log reads From and Before as Harare time, the time it shows", async ({ page, request }) => {
    const payment = await succeededPayment(request);
    const eventId = await eventOf(request, payment.id, "payment.succeeded");
    const { created_at } = await v1<{ created_at: string }>(request, "GET", `/v1/events/${eventId}`);
    const harare = (ms: number) => harareWallTime(created_at, ms);
    await page.goto(`/dashboard/events?from=${harare(-60_000)}&to=${harare(60_000)}`);
    await expect(page.getByRole("link", { name: eventId })).toBeVisible();
    // The same minutes read on the browser's own clock, or on UTC, hold no such event.
    await page.goto(`/dashboard/events?from=${harare(-2 * 3600_000 - 60_000)}&to=${harare(-2 * 3600_000 + 60_000)}`);
    await expect(page.getByText("No events match these filters.")).toBeVisible();
  });
});

test("replay an event: the new delivery shows on the event's page and reaches the endpoint", async ({ page, request }, testInfo) => {
  const hook = await receiver(200);
  try {
    const { endpoint, eventId, received } = await deliveredEvent(request, hook);

    // Straight to its page: on the log, other tests' newer events may have pushed it past the first page.
    await page.goto(`/dashboard/events/${eventId}`);
    // Other tests' endpoints may take this event too: count the rows of this test's endpoint.
    const deliveries = page.locator("table.data tbody tr").filter({ has: page.locator(`a[title="${endpoint.id}"]`) });
    await expect(deliveries).toHaveCount(1);
    await keep(page, testInfo, "event-detail");

    await page.getByLabel("Send to").selectOption(endpoint.id);
    await page.getByRole("button", { name: "Replay event" }).click();
    await expect(page.getByRole("status").filter({ hasText: /Queued 1 delivery/ })).toBeVisible();
    await expect(deliveries).toHaveCount(2, { timeout: 15_000 });
    await expect.poll(received, { timeout: 15_000 }).toBe(2);
  } finally {
    hook.close();
  }
});

test("replay a time window: counted first, then queued; the endpoint gets the window's events again", async ({ page, request }) => {
  const hook = await receiver(200);
  try {
    const { endpoint, eventId, received } = await deliveredEvent(request, hook);
    const { created_at } = await v1<{ created_at: string }>(request, "GET", `/v1/events/${eventId}`);
    const harare = (ms: number) => harareWallTime(created_at, ms);

    await page.goto(`/dashboard/events?from=${harare(-1_000)}&to=${harare(1_000)}&type=payment.succeeded`);
    await page.getByRole("button", { name: "Replay a time window…" }).click();
    const panel = page.getByRole("region", { name: "Replay a time window" });
    await panel.getByRole("combobox", { name: "To", exact: true }).selectOption(endpoint.id);
    // It was delivered: only a replay of everything sends it again.
    await panel.getByLabel("Only what was not delivered").uncheck();
    await panel.getByRole("button", { name: "Count (dry run)" }).click();
    // Other tests' payments may have succeeded in the same seconds: at least this one.
    await expect(panel.getByRole("status")).toContainText(/\d+ events?, \d+ deliver(y|ies)/);
    expect(received()).toBe(1);
    // The count asks whether to queue: its answer has the focus, and Escape puts it away as Cancel does.
    await expect(panel.getByRole("button", { name: /^Queue \d+ deliver/ })).toBeFocused();
    await page.keyboard.press("Escape");
    await expect(panel.getByRole("status")).toHaveCount(0);
    await expect(panel.getByRole("button", { name: "Count (dry run)" })).toBeFocused();
    await page.keyboard.press("Enter");
    await panel.getByRole("button", { name: /^Queue \d+ deliver/ }).click();
    await expect(panel.getByRole("status").filter({ hasText: /^Queued \d+ deliver/ })).toBeVisible();
    await expect.poll(received, { timeout: 15_000 }).toBe(2);
    // The latest replays show it, done, to that endpoint.
    const latest = page.getByRole("region", { name: "Latest window replays" }).getByRole("row").filter({ hasText: hook.url });
    await expect(latest).toHaveCount(1);
    await expect(latest).toContainText(/^Done\d+ deliver(y|ies) for \d+ events?/);

    // A start in the future with no end: a window that would hold nothing, said so, not counted.
    await panel.getByLabel("Before (Harare time; empty: now)").fill("");
    await panel.getByLabel("From (Harare time)").fill(harare(2 * 86_400_000));
    await panel.getByRole("button", { name: "Count (dry run)" }).click();
    await expect(panel.getByText("The start is in the future")).toBeVisible();
    await expect(panel.getByRole("button", { name: "Count (dry run)" })).toBeDisabled();
    await panel.getByLabel("From (Harare time)").fill(harare(-1_000));
    await expect(panel.getByRole("button", { name: "Count (dry run)" })).toBeEnabled();
  } finally {
    hook.close();
  }
});

test("a test event whose endpoint is disabled since is replayed only where the form says", async ({ page, request }) => {
  const first = await receiver(200);
  const second = await receiver(200);
  try {
    // A type no other test here makes (a test event goes whatever the endpoint takes): the test
    // event's row stays on the endpoint's first page.
    const home = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url: first.url, enabled_events: ["refund.failed"] });
    const elsewhere = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url: second.url, enabled_events: ["refund.failed"] });
    await page.goto(`/dashboard/webhooks/${home.id}`);
    await page.getByRole("button", { name: "Send test event" }).click();
    await expect.poll(() => testEventsAt(first).length, { timeout: 15_000 }).toBe(1);
    await v1(request, "POST", `/v1/webhook_endpoints/${home.id}`, { disabled: true });

    await page.reload();
    await page.getByRole("link", { name: "webhook_endpoint.test" }).first().click();
    await expect(page).toHaveURL(/\/dashboard\/events\/evt_/);
    const replay = page.getByRole("region", { name: "Replay" });
    await expect(replay).toContainText(`The endpoint this test event was sent to (${home.id}) is disabled or deleted`);
    // Nothing is chosen for the customer to send blind: the button waits for a pick.
    await expect(replay.getByLabel("Send to")).toHaveValue("");
    await expect(replay.getByRole("button", { name: "Replay event" })).toBeDisabled();
    await replay.getByLabel("Send to").selectOption(elsewhere.id);
    await replay.getByRole("button", { name: "Replay event" }).click();
    await expect(replay.getByRole("status")).toContainText("Queued 1 delivery");
    await expect.poll(() => testEventsAt(second).length, { timeout: 15_000 }).toBe(1);
    expect(testEventsAt(first)).toHaveLength(1);
  } finally {
    first.close();
    second.close();
  }
});

test("an endpoint's page: its Saved goes once the secret is rolled; Delete goes back to the list, which says so", async ({ page, request }) => {
  const hook = await receiver(200);
  try {
    // A type no other test here makes: no delivery of theirs keeps this page reading it again.
    const endpoint = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url: hook.url, enabled_events: ["refund.failed"] });
    const missing: string[] = [];
    page.on("response", (r) => {
      if (r.url().includes("/api/trpc/") && r.status() === 404) missing.push(r.url());
    });
    await page.goto(`/dashboard/webhooks/${endpoint.id}`);
    await page.getByRole("button", { name: "Edit" }).click();
    await page.getByLabel("Description (optional)").fill("Orders");
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect(page.getByRole("status").filter({ hasText: "Saved." })).toBeVisible();

    await page.getByRole("button", { name: "Roll secret" }).click();
    await page.locator("form.endpoint-confirm").getByRole("button", { name: "Roll secret" }).click();
    await expect(page.getByTestId("new-secret")).toBeVisible();
    await expect(page.getByText("Saved.")).toHaveCount(0);
    await page.getByRole("button", { name: "I have stored it" }).click();

    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("button", { name: "Delete endpoint" }).click();
    await expect(page).toHaveURL(/\/dashboard\/webhooks$/);
    await expect(page.getByRole("status").filter({ hasText: `Endpoint ${endpoint.id} deleted: nothing more is sent to it.` })).toBeVisible();
    await expect(page.getByRole("link", { name: hook.url })).toHaveCount(0);
    // The deleted endpoint's page was not asked for again.
    expect(missing).toEqual([]);
    await page.reload();
    await expect(page.getByRole("heading", { name: "Webhook endpoints" })).toBeVisible();
    await expect(page.getByText(`Endpoint ${endpoint.id} deleted`)).toHaveCount(0);
  } finally {
    hook.close();
  }
});

test("an endpoint that keeps failing is flagged degraded on the webhooks page and the overview", async ({ page, request }, testInfo) => {
  const down = await receiver(503);
  try {
    await v1(request, "POST", "/v1/webhook_endpoints", { url: down.url, enabled_events: ["payment.succeeded"] });
    // Five failed attempts in a row: five events, each failing its first attempt.
    for (let i = 0; i < 5; i++) await succeededPayment(request);
    await expect.poll(() => down.got.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(5);

    await page.goto("/dashboard/webhooks");
    const alert = page.locator(".degraded-alert");
    await expect(alert).toBeVisible({ timeout: 15_000 });
    await expect(alert).toContainText(down.url);
    await keep(page, testInfo, "webhooks");

    await page.goto("/dashboard");
    await expect(page.getByText(down.url).first()).toBeVisible();
    await keep(page, testInfo, "overview");
  } finally {
    down.close();
  }
});

test("two admins resolve one unresolved payment: the second is told it was resolved meanwhile, and sees how", async ({ page, browser, request }) => {
  const stuck = await v1<{ id: string }>(request, "POST", "/v1/payments", { amount: 990, currency: "USD", method: "wallet", reference: `both-${Date.now().toString(36)}`, customer: { msisdn: "0770000003" } });
  await v1(request, "POST", `/v1/test_helpers/payments/${stuck.id}/unknown`);
  await v1(request, "POST", `/v1/test_helpers/payments/${stuck.id}/age`);
  // Another admin, in a browser of their own (the same admin's other tab would be told it was theirs).
  const email = `resolver-${Date.now().toString(36)}@example.test`;
  const password = await addTeamMember(page, email, "admin");
  const otherBrowser = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const other = await otherBrowser.newPage();
  await other.goto("/dashboard/sign-in");
  await fillSignIn(other, email, password);
  await other.getByRole("button", { name: "Sign in" }).click();
  await other.waitForURL("**/dashboard");
  const resolve = async (p: typeof page, outcome: RegExp) => {
    await p.goto(`/dashboard/payments/${stuck.id}`);
    await p.getByLabel(outcome).check();
    await p.getByLabel("Reason (kept with the payment)").fill("Provider statement checked by phone");
    await p.getByRole("button", { name: "Resolve…" }).click();
  };
  await resolve(page, /The customer paid/);
  await resolve(other, /No money moved/);
  // The other admin's page reads the payment again now and then (more often while one of its
  // events waits on an endpoint): held until their press, so that the press is what tells them.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const timeline = /\/api\/trpc\/[^?]*payments\.timeline/;
  await other.route(timeline, async (route) => {
    await released;
    await route.continue().catch(() => undefined);
  });
  await page.getByRole("button", { name: "Yes, mark it succeeded" }).click();
  await expect(page.locator("h1")).toContainText("Succeeded");
  await other.getByRole("button", { name: "Yes, mark it failed" }).click();
  release();
  await expect(other.getByRole("status").filter({ hasText: "Not resolved by you: someone resolved this payment meanwhile, and it is now succeeded." })).toBeVisible();
  await expect(other.locator("h1")).toContainText("Succeeded");
  await expect(other.getByRole("button", { name: /Yes, mark it/ })).toHaveCount(0);
  expect((await v1<{ status: string }>(request, "GET", `/v1/payments/${stuck.id}`)).status).toBe("succeeded");
  await otherBrowser.close();
});

test("a member another admin removed meanwhile: the page says so and drops them, with no raw id", async ({ page, context }) => {
  const email = `gone-${Date.now().toString(36)}@example.test`;
  await addTeamMember(page, email);
  const other = await context.newPage();
  await other.goto("/dashboard/team");
  const row = (p: typeof page) => p.getByRole("row").filter({ hasText: email });
  await row(page).getByRole("button", { name: "Remove" }).click();
  await row(page).getByLabel("Your password").fill(seed().staff.password!);
  await page.getByRole("button", { name: "Remove them" }).click();
  await expect(page.getByRole("status").filter({ hasText: `${email} is removed from the team, and signed out.` })).toBeVisible();
  // The other tab still shows them: its removal is told they are gone, and the row goes.
  await row(other).getByRole("button", { name: "Remove" }).click();
  await row(other).getByLabel("Your password").fill(seed().staff.password!);
  await other.getByRole("button", { name: "Remove them" }).click();
  await expect(other.getByText(`${email} is no longer on the team: someone removed them meanwhile.`)).toBeVisible();
  await expect(row(other)).toHaveCount(0);
  await expect(other.getByText(/usr_/)).toHaveCount(0);
  await other.close();
});

test("an endpoint deleted in another tab: a save here says it is gone, not a raw 'No such' twice", async ({ page, request }) => {
  const endpoint = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url: "http://127.0.0.1:9/gone", enabled_events: ["refund.failed"] });
  await page.goto(`/dashboard/webhooks/${endpoint.id}`);
  await page.getByRole("button", { name: "Edit", exact: true }).click();
  // The page's own looks at the endpoint are held meanwhile: it still shows it as it was.
  const held: Route[] = [];
  await page.route(/webhooks\.(get|deliveries)/, (route) => void held.push(route));
  expect(held).toHaveLength(0);
  await v1(request, "DELETE", `/v1/webhook_endpoints/${endpoint.id}`);
  await page.getByLabel("Description (optional)").fill("too late");
  const refused = page.waitForResponse(/webhooks\.update/);
  await page.getByRole("button", { name: "Save changes" }).click();
  expect((await refused).status()).toBe(404);
  // Only now, once the save is told the endpoint is gone, are the page's readings answered (those
  // held, the one the refusal asked for among them, whether it was sent before this or after).
  await page.unroute(/webhooks\.(get|deliveries)/);
  for (const route of held) await route.continue().catch(() => undefined);
  await expect(page.getByText(`No endpoint ${endpoint.id} in this environment. It may have been deleted`)).toBeVisible();
  await expect(page.getByRole("button", { name: "Save changes" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "← Webhook endpoints" })).toBeVisible();
});

test("two people edit one endpoint: each save changes only what its form changed", async ({ page, context, request }) => {
  const endpoint = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url: "http://127.0.0.1:9/before", enabled_events: ["*"], description: "shared" });
  const other = await context.newPage();
  for (const p of [page, other]) {
    await p.goto(`/dashboard/webhooks/${endpoint.id}`);
    await p.getByRole("button", { name: "Edit", exact: true }).click();
  }
  // One changes the address and saves; the other, whose form still shows the old address, changes the events.
  await page.getByLabel("Endpoint URL").fill("http://127.0.0.1:9/after");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText("Saved.")).toBeVisible();
  await other.getByLabel(/All events/).uncheck();
  await other.getByLabel("payment.succeeded").check();
  await other.getByRole("button", { name: "Save changes" }).click();
  await expect(other.getByText("Saved.")).toBeVisible();
  const stored = await v1<{ url: string; enabled_events: string[]; description: string }>(request, "GET", `/v1/webhook_endpoints/${endpoint.id}`);
  expect(stored).toMatchObject({ url: "http://127.0.0.1:9/after", enabled_events: ["payment.succeeded"], description: "shared" });
  await other.close();
  // Nothing answers there: left, it would hold a pending delivery of every payment after this.
  await v1(request, "DELETE", `/v1/webhook_endpoints/${endpoint.id}`);
});

test("a refund whose answer was lost is still said once the page reads the payment again; sent again, it is that one refund", async ({ page, request }) => {
  const payment = await succeededPayment(request);
  await page.goto(`/dashboard/payments/${payment.id}`);
  await expect(page.getByText("USD 42.50 of USD 42.50 can be refunded")).toBeVisible();
  // The refund reaches Mari; its answer is lost on the way back.
  await page.route(/payments\.refund/, async (route) => {
    await route.fetch();
    await route.abort("connectionreset");
  });
  await page.getByLabel("Amount (USD)").fill("2.00");
  await page.getByRole("button", { name: "Refund…" }).click();
  await page.getByRole("button", { name: "Yes, refund USD 2.00" }).click();
  // The page reads the payment again, and the form starts again from what remains: the question stays.
  await expect(page.getByText("USD 40.50 of USD 42.50 can be refunded")).toBeVisible();
  const lost = page.getByRole("alert").filter({ hasText: "Your refund of USD 2.00 got no answer" });
  await expect(lost).toBeVisible();
  await expect(page.getByText("Could not reach Mari")).toHaveCount(0);
  await page.unroute(/payments\.refund/);

  await lost.getByRole("button", { name: "Send it again" }).dblclick();
  await expect(page.getByRole("status").filter({ hasText: /Refund re_\w+ of USD 2\.00 is/ })).toBeVisible();
  await expect(lost).toHaveCount(0);
  await expect(page.getByText("USD 40.50 of USD 42.50 can be refunded")).toBeVisible();
  // One refund of USD 2.00, not two.
  await expect(page.getByRole("status").filter({ hasText: /Refund re_\w+ of USD 2\.00 is done/ })).toBeVisible({ timeout: 20_000 });
  expect(await v1(request, "GET", `/v1/payments/${payment.id}`)).toMatchObject({ amount_refunded: 200 });
});

test("two tabs roll one endpoint's secret: the second is warned first, and the first learns its secret is no longer the newest", async ({ page, context, request }) => {
  const endpoint = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url: "http://127.0.0.1:9/rolls", enabled_events: ["refund.failed"] });
  const roll = async (p: Page) => {
    await p.getByRole("button", { name: "Roll secret" }).click();
    const form = p.getByRole("form", { name: /^Roll the signing secret\?/ });
    const question = (await form.locator("#confirm-text").textContent()) ?? "";
    await form.getByRole("button", { name: "Roll secret" }).click();
    return { question, secret: (await p.getByTestId("new-secret").textContent())!.trim() };
  };
  await page.goto(`/dashboard/webhooks/${endpoint.id}`);
  const first = await roll(page);
  expect(first.question).not.toContain("stops signing at once");

  const other = await context.newPage();
  await other.goto(`/dashboard/webhooks/${endpoint.id}`);
  const second = await roll(other);
  // Rolling again within the overlap retires the secret the first roll kept: said before it is done.
  expect(second.question).toContain("The secret kept from the last roll stops signing at once");
  expect(second.secret).not.toBe(first.secret);
  await other.close();

  // Back on the first tab once it reads the endpoint again (its data is fresh for 10 s).
  await page.waitForTimeout(10_500);
  await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange", { bubbles: true })));
  await expect(page.getByRole("alert").filter({ hasText: "The secret was rolled again since, elsewhere: this one is no longer the newest." })).toBeVisible();
  await expect(page.getByTestId("new-secret")).toHaveText(first.secret);
});

test("an endpoint added here shows its signing secret once, and its test event is signed with it; a roll tried again after a lost answer is one roll", async ({ page }, testInfo) => {
  const hook = await receiver(200);
  try {
    await page.goto("/dashboard/webhooks");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    // An address the server refuses is said under the field, which has the focus; changed, the message goes.
    const url = page.getByLabel("Endpoint URL");
    await url.fill("http://169.254.169.254/latest/meta-data");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect(url).toHaveAttribute("aria-invalid", "true");
    await expect(url).toHaveAccessibleDescription(/link-local/);
    await expect(url).toBeFocused();
    await url.fill(hook.url);
    await expect(url).not.toHaveAttribute("aria-invalid");
    await expect(page.getByRole("alert").filter({ hasText: /link-local/ })).toHaveCount(0);
    await page.getByLabel("Description (optional)").fill("e2e signing check");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    const secret = (await page.getByTestId("new-secret").textContent())!.trim();
    expect(secret.length).toBeGreaterThan(20);
    await keep(page, testInfo, "endpoint-secret");
    await page.getByRole("link", { name: "Open the endpoint" }).click();
    await expect(page).toHaveURL(/\/dashboard\/webhooks\/we_\w+$/);
    endpointMade(page.url().split("/").pop()!);
    // A double click sends one test event, not two.
    await page.getByRole("button", { name: "Send test event" }).dblclick();
    await expect.poll(() => testEventsAt(hook).length, { timeout: 15_000 }).toBe(1);
    const [sent] = testEventsAt(hook);
    expect(verifySignatureHeader(sent!.signature, sent!.body, [secret], new Date())).toBe(true);
    // Shown once: the endpoint's page does not show it again.
    await expect(page.getByText(secret)).toHaveCount(0);

    // The roll's answer is lost on the way back; tried again (with a double click), it is still
    // that one roll: the secret the receiver holds still signs beside the new one.
    await page.route(/webhooks\.rollSecret/, async (route) => {
      await route.fetch();
      await route.abort("connectionreset");
    });
    await page.getByRole("button", { name: "Roll secret" }).click();
    const confirmRoll = page.getByRole("form", { name: /^Roll the signing secret\?/ }).getByRole("button", { name: "Roll secret" });
    await confirmRoll.click();
    await expect(page.getByRole("alert").filter({ hasText: "Could not reach Mari, or its answer was lost on the way." }).first()).toBeVisible();
    await page.unroute(/webhooks\.rollSecret/);
    await confirmRoll.dblclick();
    const rolled = (await page.getByTestId("new-secret").textContent())!.trim();
    expect(rolled).not.toBe(secret);
    await page.getByRole("button", { name: "I have stored it" }).click();
    await page.getByRole("button", { name: "Send test event" }).click();
    await expect.poll(() => testEventsAt(hook).length, { timeout: 15_000 }).toBe(2);
    const [, again] = testEventsAt(hook);
    expect(again!.signature.match(/v1=/g)).toHaveLength(2);
    expect(verifySignatureHeader(again!.signature, again!.body, [secret], new Date())).toBe(true);
    expect(verifySignatureHeader(again!.signature, again!.body, [rolled], new Date())).toBe(true);
    expect(testEventsAt(hook)).toHaveLength(2);
  } finally {
    hook.close();
  }
});

test("a question asked in place looks the same on every page, whichever pages came before", async ({ page, request }) => {
  const hook = await receiver(200);
  const endpoint = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url: hook.url, enabled_events: ["*"] });
  const nav = page.getByRole("navigation", { name: "Dashboard" });
  /** Each page's own question, and how it must look there: a box under the actions, or on the action's line. */
  // Each is put away by Escape as by Cancel, and the focus goes back to the button that asked.
  let putAway: "Cancel" | "Escape" = "Cancel";
  const answer = async (question: Locator, asker: Locator) => {
    if (putAway === "Cancel") await question.getByRole("button", { name: "Cancel" }).click();
    else await page.keyboard.press("Escape");
    await expect(question).toHaveCount(0);
    await expect(asker).toBeFocused();
    putAway = putAway === "Cancel" ? "Escape" : "Cancel";
  };
  const endpointQuestion = async () => {
    const asker = page.getByRole("button", { name: "Delete", exact: true });
    await asker.click();
    const box = page.getByRole("form", { name: /^Delete this endpoint\?/ });
    await expect(box).toHaveCSS("display", "block");
    await expect(box).toHaveCSS("border-top-style", "solid");
    await expect(box.getByRole("button", { name: "Delete endpoint" })).toBeFocused();
    await answer(box, asker);
  };
  const keyQuestion = async () => {
    const row = page.locator("table.data tbody tr").filter({ hasText: "Active" }).first();
    await row.getByRole("button", { name: "Revoke" }).click();
    const inline = row.getByRole("group");
    await expect(inline).toHaveCSS("display", "inline-flex");
    await expect(inline).toHaveCSS("border-top-style", "none");
    await answer(inline, row.getByRole("button", { name: "Revoke" }));
  };

  // Opened directly, then reached from each other without a reload (Next keeps each page's styles).
  await page.goto(`/dashboard/webhooks/${endpoint.id}`);
  await endpointQuestion();
  await nav.getByRole("link", { name: "API keys" }).click();
  await expect(page).toHaveURL(/\/dashboard\/api-keys$/);
  await keyQuestion();
  await nav.getByRole("link", { name: "Webhooks" }).click();
  await page.locator(`a[href="/dashboard/webhooks/${endpoint.id}"]`).first().click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/webhooks/${endpoint.id}$`));
  await endpointQuestion();
  await page.goto("/dashboard/api-keys");
  await keyQuestion();
  await v1(request, "DELETE", `/v1/webhook_endpoints/${endpoint.id}`);
  hook.close();
});

test("create a restricted key, see it once, use it, revoke it", async ({ page, request }, testInfo) => {
  await page.goto("/dashboard/api-keys");
  await page.getByLabel("Restricted key").check();
  await page.getByRole("checkbox", { name: "payments:read" }).check();
  const name = `e2e ${Date.now()}`;
  await page.getByLabel("Name (optional)").fill(name);
  // A double click makes one key: a second would be live with a secret nobody saw.
  await page.getByRole("button", { name: "Create key" }).dblclick();
  const secret = (await page.getByTestId("new-secret").textContent())!.trim();
  expect(secret).toMatch(/^rk_test_/);
  expect((await request.get("/v1/payments", { headers: bearer(secret) })).status()).toBe(200);
  // Leaving for another page of the dashboard while it shows asks first; staying keeps it in sight.
  const asked: string[] = [];
  page.once("dialog", (d) => {
    asked.push(d.message());
    void d.dismiss();
  });
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Payments" }).click();
  await expect.poll(() => asked).toEqual(["Leave this page? The secret shown here is shown only this once: it cannot be shown again once you leave."]);
  await expect(page).toHaveURL(/\/dashboard\/api-keys$/);
  await expect(page.getByTestId("new-secret")).toHaveText(secret);
  // A reload asks the browser's own question; staying keeps it in sight.
  const browserAsked: string[] = [];
  page.once("dialog", (d) => {
    browserAsked.push(d.type());
    void d.dismiss();
  });
  await page.reload({ timeout: 3_000 }).catch(() => undefined);
  expect(browserAsked).toEqual(["beforeunload"]);
  await expect(page.getByTestId("new-secret")).toHaveText(secret);
  await page.getByRole("button", { name: "I have stored it" }).click();
  await expect(page.getByTestId("new-secret")).toHaveCount(0);
  await keep(page, testInfo, "api-keys");

  const row = page.locator("tr").filter({ hasText: name });
  await expect(row).toHaveCount(1);
  await page.waitForTimeout(1_000);
  await page.reload();
  await expect(row).toHaveCount(1);
  await row.getByRole("button", { name: "Revoke" }).click();
  await row.getByRole("button", { name: "Revoke key" }).click();
  await expect(row).toContainText("Revoked");
  // The key cache remembers a valid key for a few seconds at most.
  await expect.poll(async () => (await request.get("/v1/payments", { headers: bearer(secret) })).status(), { timeout: 15_000 }).toBe(401);
  expect(seed().keys.test).not.toBe(secret);
  // Once stored, nothing is lost by leaving: no question.
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Payments" }).click();
  await expect(page).toHaveURL(/\/dashboard\/payments$/);
  expect(asked).toHaveLength(1);
});

test("the test/live switch: every page shows the chosen environment's data", async ({ page, request }) => {
  const reference = `live-${Date.now().toString(36)}`;
  const res = await request.post("/v1/payments", {
    headers: { ...bearer(seed().keys.live), "Idempotency-Key": reference },
    data: { amount: 1_000, currency: "USD", method: "wallet", reference, customer: { msisdn: "0770000003" } },
  });
  expect(res.status(), await res.text()).toBe(201);

  await page.goto(`/dashboard/payments?q=${reference}`);
  const testMode = page.getByRole("switch", { name: "Test mode" });
  await expect(testMode).toBeChecked();
  await expect(page.getByText("Test mode: you are looking at test data.")).toBeVisible();
  await expect(page.getByRole("link", { name: reference })).toHaveCount(0);

  // Turning test mode off reloads the page on live data, and on again back to test data.
  await testMode.click();
  await expect(testMode).not.toBeChecked();
  await expect(page.getByText("Test mode: you are looking at test data.")).toHaveCount(0);
  await expect(page.getByRole("link", { name: reference })).toBeVisible();

  await testMode.click();
  await expect(page.getByText("Test mode: you are looking at test data.")).toBeVisible();
  await expect(testMode).toBeChecked();
});

test.describe("before the page's script runs", () => {
  test.use({ javaScriptEnabled: false });

  test("the test/live switch is disabled: a click could not switch, and would only flip the box", async ({ page }) => {
    await page.goto("/dashboard/payments");
    const testMode = page.getByRole("switch", { name: "Test mode" });
    await expect(testMode).toBeChecked();
    await expect(testMode).toBeDisabled();
  });

  test("a list's filters are disabled: what was typed or chosen would be wiped once it runs", async ({ page }) => {
    await page.goto("/dashboard/payments");
    await expect(page.getByLabel("Search", { exact: true })).toBeDisabled();
    for (const name of ["Status", "From (Harare day)"]) await expect(page.getByLabel(name)).toBeDisabled();
    await expect(page.getByRole("button", { name: "Export CSV" })).toBeDisabled();
    await page.goto("/dashboard/events");
    await expect(page.getByLabel("Type")).toBeDisabled();
    await expect(page.getByRole("button", { name: "Apply" })).toBeDisabled();
    await page.goto("/dashboard/settlements");
    await expect(page.getByLabel("Status")).toBeDisabled();
    await page.goto("/dashboard/payment-links");
    await expect(page.getByLabel("Hide deactivated")).toBeDisabled();
  });
});

test("at 1280 px no table of the dashboard needs sideways scrolling", async ({ page, request }) => {
  // Ten pages, each loaded until the network is quiet: 17 s on a quiet machine, 29–31 s in CI
  // beside the other worker.
  test.setTimeout(90_000);
  const down = await receiver(503);
  try {
    // The widest rows there are: a degraded endpoint with a long address, its failed deliveries,
    // a link with a long description, a settlement's period.
    const endpoint = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", {
      url: `${down.url}/mari/payments/receiver-with-a-rather-long-path?tenant=demo`,
      enabled_events: ["payment.succeeded"],
    });
    for (let i = 0; i < 5; i++) await succeededPayment(request);
    await expect.poll(() => down.got.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(5);
    // A payment refunded in part: its status cell holds two badges.
    const refunded = await succeededPayment(request);
    await v1(request, "POST", "/v1/refunds", { payment: refunded.id, amount: 100 });
    await v1(request, "POST", "/v1/payment_links", { amount: 2_500, currency: "USD", description: "School fees for the second term of Grade 7 at the academy" });
    // A single-use link whose payment is in progress: the widest status there is.
    const single = await v1<{ id: string }>(request, "POST", "/v1/payment_links", {
      amount: 1_500_000,
      currency: "ZWG",
      description: "Grade 7 school fees, second term, paid once",
      single_use: true,
      expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString(),
    });
    await payLinkAndLeave(page, single.id);
    // A checkout session with the longest reference there may be, paid: its reference and its payment's link.
    const longReference = `order-${"7".repeat(240)}-${randomUUID().slice(0, 8)}`;
    const session = await v1<{ id: string }>(request, "POST", "/v1/checkout_sessions", { amount: 1_500_000, currency: "ZWG", reference: longReference, success_url: "https://shop.example/done" });
    const buyer = await page.context().newPage();
    await buyer.goto(`/checkout/${session.id}`);
    await buyer.getByLabel(/mobile money number/i).fill("0770000003");
    await buyer.getByRole("button", { name: /^Pay / }).click();
    await expect(buyer.getByRole("heading", { name: "Check your phone and enter your PIN" })).toBeVisible();
    await buyer.close();
    await v1(request, "POST", "/v1/test_helpers/settlements/run");
    // An unresolved payment with the longest reference there may be, for the overview's table.
    const stuck = await v1<{ id: string }>(request, "POST", "/v1/payments", {
      amount: 990,
      currency: "USD",
      method: "wallet",
      reference: `stuck-${"8".repeat(236)}-${randomUUID().slice(0, 8)}`,
      customer: { msisdn: "0770000003" },
    });
    await v1(request, "POST", `/v1/test_helpers/payments/${stuck.id}/unknown`);
    await v1(request, "POST", `/v1/test_helpers/payments/${stuck.id}/age`);

    expect(page.viewportSize()?.width).toBe(1280);
    for (const path of ["/dashboard", "/dashboard/payments", "/dashboard/events", "/dashboard/webhooks", `/dashboard/webhooks/${endpoint.id}`, "/dashboard/payment-links", "/dashboard/checkout-sessions", "/dashboard/settlements", "/dashboard/api-keys", "/dashboard/team", "/dashboard/security"]) {
      await page.goto(path);
      await page.waitForLoadState("networkidle");
      await expect(page.locator(".table-wrap").first(), path).toBeVisible();
      expect(await tablesWiderThanTheirBox(page), `${path}: tables wider than their box`).toEqual([]);
    }
  } finally {
    down.close();
  }
});

test("the longest values people may type wrap in their box, at 1280 and 390 px: no page scrolls sideways, no table at 1280", async ({ page, request }) => {
  test.setTimeout(90_000);
  // Each as long as its field takes, without a space: an endpoint's address (2,048), a link's
  // description (500), a key's name (100), an e-mail (254).
  const url = `http://127.0.0.1:9/${"p".repeat(2_048 - "http://127.0.0.1:9/".length)}`;
  await v1(request, "POST", "/v1/webhook_endpoints", { url, enabled_events: ["refund.failed"] });
  await v1(request, "POST", "/v1/payment_links", { amount: 2_500, currency: "USD", description: "L".repeat(500) });
  const email = `${"e".repeat(64)}@${"d".repeat(60)}.${"s".repeat(60)}.${"t".repeat(53)}.${randomUUID().slice(0, 8)}.test`;
  expect(email).toHaveLength(254);
  const paid = await succeededPayment(request);
  const eventId = await eventOf(request, paid.id, "payment.succeeded");

  const fits = async (where: string, tables: boolean) => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await pageOverflow(page), `${where} at ${width} px: the page scrolls sideways by`).toBeLessThanOrEqual(0);
      if (tables && width === 1280) expect(await tablesWiderThanTheirBox(page), `${where}: tables wider than their box`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  // The event's replay form offers the endpoint by its address.
  await page.goto(`/dashboard/events/${eventId}`);
  await expect(page.getByLabel("Send to").locator("option", { hasText: "p".repeat(100) })).toHaveCount(1);
  await fits("an event's replay form", false);
  await page.goto("/dashboard/events");
  await page.getByRole("button", { name: "Replay a time window…" }).click();
  await expect(page.getByLabel("To").locator("option", { hasText: "p".repeat(100) })).toHaveCount(1);
  await fits("the replay of a window", false);
  await page.goto("/dashboard/payment-links");
  await expect(page.getByRole("cell", { name: "L".repeat(500) }).first()).toBeVisible();
  await fits("the payment links", true);

  const name = `${"N".repeat(86)}${Date.now()}`;
  await page.goto("/dashboard/api-keys");
  await page.getByLabel("Restricted key").check();
  await page.getByRole("checkbox", { name: "payments:read" }).check();
  await page.getByLabel("Name (optional)").fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByTestId("new-secret")).toBeVisible();
  await page.getByRole("button", { name: "I have stored it" }).click();
  const key = page.locator("tr").filter({ hasText: name });
  await expect(key).toHaveCount(1);
  await fits("the API keys", true);
  await key.getByRole("button", { name: "Revoke" }).click();
  await key.getByRole("button", { name: "Revoke key" }).click();
  await expect(key).toContainText("Revoked");

  // The panel that hands over their password names them twice.
  const panel = await addTeamMemberShown(page, email);
  await fits("the new member's panel", true);
  await panel.getByRole("button", { name: "I have handed it over" }).click();
  const member = page.getByRole("row").filter({ hasText: email });
  await fits("the team", true);
  await member.getByRole("button", { name: "Remove" }).click();
  await member.getByLabel("Your password").fill(seed().staff.password!);
  await fits("the question before a removal", true);
  await page.getByRole("button", { name: "Remove them" }).click();
  await expect(page.getByRole("status").filter({ hasText: "is removed from the team, and signed out." })).toBeVisible();
});

test.describe("on a phone", () => {
  test.use({ viewport: { width: 412, height: 915 } });

  test("every section of the navigation is in sight, and an address that leads nowhere says so inside the dashboard", async ({ page }) => {
    const errors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" && !/404/.test(m.text())) errors.push(m.text());
    });
    const res = await page.goto("/dashboard/no-such-section");
    expect(res?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "No such page" })).toBeVisible();
    await expect(page.getByRole("link", { name: "← Overview" })).toBeVisible();
    const nav = page.getByRole("navigation", { name: "Dashboard" });
    for (const link of await nav.getByRole("link").all()) {
      const box = (await link.boundingBox())!;
      expect(box.x + box.width, (await link.textContent()) ?? "").toBeLessThanOrEqual(412);
    }
    await expect(nav.getByRole("link", { name: "Team" })).toBeInViewport();
    expect(errors).toEqual([]);
  });

  test("the payments list shows each payment as a card, its status in sight without sideways scrolling", async ({ page, request }) => {
    const payment = await succeededPayment(request);
    await page.goto(`/dashboard/payments?q=${payment.reference}`);
    const row = page.locator("table.data tbody tr").filter({ hasText: payment.reference });
    await expect(row).toContainText("Succeeded");
    const badge = await row.getByText("Succeeded").boundingBox();
    expect(badge!.x + badge!.width).toBeLessThanOrEqual(412);
    const wider = await page.locator(".table-wrap").evaluate((e) => e.scrollWidth - e.clientWidth);
    expect(wider).toBeLessThanOrEqual(1);
  });

  test("the event log shows each event as a card, its object in sight without sideways scrolling", async ({ page, request }) => {
    const payment = await succeededPayment(request);
    const eventId = await eventOf(request, payment.id, "payment.succeeded");
    await page.goto("/dashboard/events?type=payment.succeeded");
    const row = page.locator("table.data tbody tr").filter({ has: page.getByRole("link", { name: eventId }) });
    const object = await row.getByRole("link", { name: payment.id }).boundingBox();
    expect(object!.x + object!.width).toBeLessThanOrEqual(412);
    // The log's table, and the latest window replays' above it when there are any.
    const wider = await page.locator(".table-wrap").evaluateAll((wraps) => Math.max(...wraps.map((e) => e.scrollWidth - e.clientWidth)));
    expect(wider).toBeLessThanOrEqual(1);
  });
});

test("a checkout's attempt leads to the session's other attempts", async ({ page, request }) => {
  const reference = `order-${randomUUID().slice(0, 8)}`;
  const session = await v1<{ id: string }>(request, "POST", "/v1/checkout_sessions", { amount: 1_200, currency: "USD", reference, success_url: "https://shop.example/done" });
  const customer = await page.context().newPage();
  await customer.goto(`/checkout/${session.id}`);
  await customer.getByLabel(/mobile money number/i).fill("0770000002"); // declined
  await customer.getByRole("button", { name: /^Pay / }).click();
  await expect(customer.getByRole("heading", { name: "Payment not completed" })).toBeVisible({ timeout: 15_000 });
  await customer.close();
  const [attempt] = (await v1<{ data: Array<{ id: string }> }>(request, "GET", `/v1/payments?search=${reference}`)).data;

  await page.goto(`/dashboard/payments/${attempt!.id}`);
  await expect(page.getByText(session.id)).toBeVisible();
  await page.getByRole("link", { name: "its attempts" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments\\?q=${reference}$`));
  await expect(page.getByRole("link", { name: `${reference}#1` })).toBeVisible();

  // The session's own list: still open after the declined attempt, its URL to copy, its attempts a click away.
  await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Checkout sessions" }).click();
  const row = page.getByRole("row").filter({ hasText: session.id });
  await expect(row.getByText("Open", { exact: true })).toBeVisible();
  await expect(row).toContainText("USD 12.00");
  await expect(row.getByRole("button", { name: "Copy URL" })).toBeVisible();
  await row.getByRole("link", { name: `Attempts at ${reference}` }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments\\?q=${reference}$`));

  // Paid by a second attempt: complete, with the way to its payment, and no URL to hand out.
  const again = await page.context().newPage();
  await again.goto(`/checkout/${session.id}`);
  await again.getByLabel(/mobile money number/i).fill("0770000003");
  await again.getByRole("button", { name: /^Pay / }).click();
  await expect(again.getByRole("heading", { name: "Check your phone and enter your PIN" })).toBeVisible();
  await again.close();
  const paid = (await v1<{ data: Array<{ id: string; reference: string }> }>(request, "GET", `/v1/payments?search=${reference}`)).data.find((p) => p.reference === `${reference}#2`);
  await v1(request, "POST", `/v1/test_helpers/payments/${paid!.id}/succeed`);
  await page.goto("/dashboard/checkout-sessions");
  await expect(row.getByText("Complete", { exact: true })).toBeVisible();
  await expect(row.getByRole("button", { name: "Copy URL" })).toHaveCount(0);
  await row.getByRole("link", { name: "its payment" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments/${paid!.id}$`));
});

test("the link form quotes what customers will pay, fee included; a single-use link reads as its payment left it", async ({ page, request }) => {
  const usd = (minor: number) => `USD ${(minor / 100).toFixed(2)}`;
  const quote = await v1<{ fee: number; charged_amount: number }>(request, "POST", "/v1/payments/preview", { amount: 2_500, currency: "USD", method: "wallet" });
  await page.goto("/dashboard/payment-links");
  const amount = page.getByLabel("Amount", { exact: true });
  await amount.fill("25");
  // The quote is the field's description: a screen reader reads it with the field.
  await expect(amount).toHaveAccessibleDescription(new RegExp(`^Customers pay ${usd(quote.charged_amount)}.*${usd(quote.fee)} fee`));

  const description = `Used link ${randomUUID().slice(0, 8)}`;
  const link = await v1<{ id: string }>(request, "POST", "/v1/payment_links", { amount: 1_000, currency: "USD", description, single_use: true });
  // The customer pays on the link's page; the sandbox leaves …03 waiting for the PIN.
  await payLinkAndLeave(page, link.id);

  const row = page.getByRole("row").filter({ hasText: description });
  await page.reload();
  await expect(row.getByText("Payment in progress")).toBeVisible();
  await expect(row.getByText("Single use", { exact: true })).toBeVisible();
  const made = await v1<{ data: Array<{ id: string }> }>(request, "GET", `/v1/payments?search=${link.id}`);
  expect(made.data).toHaveLength(1);
  // A day without an outcome: the link waits on staff, not on the customer.
  await v1(request, "POST", `/v1/test_helpers/payments/${made.data[0]!.id}/unknown`);
  await v1(request, "POST", `/v1/test_helpers/payments/${made.data[0]!.id}/age`);
  await page.reload();
  await expect(row.getByText("Payment unresolved")).toBeVisible();
  await expect(row.getByText("Resolve its payment")).toBeVisible();
  // This merchant bears the fee: the list adds no "customers pay" (server/trpc/routers/payment-links.test.ts has the other case).
  expect((await v1<{ fee_bearer: string }>(request, "POST", "/v1/payments/preview", { amount: 1_000, currency: "USD", method: "wallet" })).fee_bearer).toBe("merchant");
  await expect(row.getByText(/customers pay/)).toHaveCount(0);
  await v1(request, "POST", `/v1/test_helpers/payments/${made.data[0]!.id}/succeed`);
  await page.reload();
  await expect(row.getByText("Used", { exact: true })).toBeVisible();
  await expect(row.getByRole("button", { name: "Deactivate" })).toHaveCount(0);

  // The link's row leads to its payments, and a payment back to the others made through its link.
  await row.getByRole("link", { name: `Payments through ${description}` }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments\\?q=${link.id}$`));
  await page.goto(`/dashboard/payments/${made.data[0]!.id}`);
  await page.getByRole("link", { name: "payments through it" }).click();
  await expect(page).toHaveURL(new RegExp(`/dashboard/payments\\?q=${link.id}$`));

  // The payments list cuts a long reference in the middle: the end that tells a link's payments apart stays in sight.
  const payment = await v1<{ reference: string }>(request, "GET", `/v1/payments/${made.data[0]!.id}`);
  const cell = page.getByRole("link", { name: payment.reference });
  await expect(cell).toHaveAttribute("href", `/dashboard/payments/${made.data[0]!.id}`);
  const tail = cell.locator(".mid-clip-tail");
  await expect(tail).toHaveText(payment.reference.slice(-12));
  const [tailBox, cellBox] = [await tail.boundingBox(), await cell.locator("xpath=ancestor::td").boundingBox()];
  expect(tailBox!.x + tailBox!.width).toBeLessThanOrEqual(cellBox!.x + cellBox!.width);
});

test("the link form says what is wrong under each field, from the first one, and each message goes once its field is mended", async ({ page }) => {
  await page.goto("/dashboard/payment-links");
  const amount = page.getByLabel("Amount", { exact: true });
  const description = page.getByLabel("Description (shown to the customer)");
  const expires = page.getByLabel("Expires (optional, Harare time)");
  await expires.fill(harareWallTime(new Date().toISOString(), -3_600_000).slice(0, 16));
  await page.getByRole("button", { name: "Create link" }).click();
  // Every field that is wrong says so, tied to it; the first has the focus.
  await expect(amount).toBeFocused();
  await expect(amount).toHaveAttribute("aria-invalid", "true");
  await expect(amount).toHaveAccessibleDescription("Enter an amount such as 25 or 1,250.50.");
  await expect(description).toHaveAccessibleDescription("Say what the customer pays for.");
  await expect(expires).toHaveAccessibleDescription("The expiry must be in the future.");
  // (The page's other alert is Next's route announcer, empty.)
  const said = page.getByRole("alert").filter({ hasText: /\S/ });
  await expect(said).toHaveCount(3);

  // Mended, a field's message goes (its hint comes back); the others stay until theirs are.
  await amount.fill("12.50");
  await expect(amount).not.toHaveAttribute("aria-invalid");
  await expect(amount).toHaveAccessibleDescription(/^Customers pay USD 12\.50/);
  await expect(description).toHaveAttribute("aria-invalid", "true");
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(description).toBeFocused();
  const mended = `Mended ${randomUUID().slice(0, 8)}`;
  await description.fill(mended);
  await expires.fill("");
  await expect(said).toHaveCount(0);
  await page.getByRole("button", { name: "Create link" }).click();
  await expect(page.getByRole("status").filter({ hasText: `Link for “${mended}” created` })).toBeVisible();
  await expect(page.getByRole("row").filter({ hasText: mended })).toContainText("USD 12.50");
});
