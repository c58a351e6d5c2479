import { randomUUID } from "node:crypto";
import { expect, test, type APIRequestContext, type Page, type Route } from "@playwright/test";
import { seed } from "../support/seed";
import { deleteEndpointsMade, eventOf, fillSignIn, harareWallTime, succeededPayment, v1 } from "./support";

test.afterEach(({ request }) => deleteEndpointsMade(request));

/**
 * The dashboard when an answer does not come, or is an error: readings that fail after the page
 * was drawn, actions whose outcome is unknown, sign-in and sign-out that get no answer. Signed in
 * as the seeded admin (see sign-in.setup.ts), except where a test starts signed out.
 */

/** Mari's own error (a 5xx), as the dashboard's API words it (server/trpc/init.ts). */
const INTERNAL = { message: "Something went wrong on our side. Try again.", code: -32603, data: { code: "INTERNAL_SERVER_ERROR", httpStatus: 500, service: null, fields: null } };

/** The procedures a tRPC call of the dashboard carries (one, or several batched into one request). */
const proceduresOf = (url: URL): string[] => (url.pathname.startsWith("/api/trpc/") ? decodeURIComponent(url.pathname.slice("/api/trpc/".length)).split(",") : []);

/**
 * Every call of `procedure` is answered with Mari's own error, whatever else its request carries:
 * the others batched with it are answered as the server answers them. Until the function it
 * returns is called: a call on its way then (a poll) gets the server's own answer, as the browser
 * lets it through once the route is gone.
 */
async function failing(page: Page, procedure: string): Promise<() => Promise<void>> {
  const matches = (url: URL) => proceduresOf(url).includes(procedure);
  let stopped = false;
  await page.route(
    matches,
    async (route) => {
      const names = proceduresOf(new URL(route.request().url()));
      const res = await route.fetch();
      const answers = (await res.json()) as unknown[];
      if (stopped) return;
      const json = names.map((name, i) => (name === procedure ? { error: INTERNAL } : answers[i]));
      await route.fulfill({ response: res, status: names.length > 1 ? 207 : 500, json });
    },
  );
  return () => {
    stopped = true;
    return page.unroute(matches);
  };
}

/** The request of `pattern` reaches Mari, which does what it asks; its answer is lost on the way back. */
async function answerLost(page: Page, pattern: RegExp): Promise<void> {
  await page.route(pattern, async (route) => {
    await route.fetch();
    await route.abort("connectionreset");
  });
}

test("a secret just rolled stays on the page, focused, when reading the endpoint again fails", async ({ page, request }) => {
  const endpoint = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url: "http://127.0.0.1:9/stale", enabled_events: ["refund.failed"] });
  await page.goto(`/dashboard/webhooks/${endpoint.id}`);
  await expect(page.getByRole("heading", { name: "http://127.0.0.1:9/stale" })).toBeVisible();
  // From now on the page cannot read the endpoint again (a network blip).
  await page.route(/\/api\/trpc\/[^?]*webhooks\.get/, (route) => route.abort("connectionreset"));
  await page.getByRole("button", { name: "Roll secret" }).click();
  await page.getByRole("form", { name: /^Roll the signing secret\?/ }).getByRole("button", { name: "Roll secret" }).click();
  const panel = page.getByRole("region", { name: "New signing secret" });
  await expect(panel).toBeVisible();
  await expect(panel).toBeFocused();
  const secret = (await page.getByTestId("new-secret").textContent())!.trim();

  // The reading the roll asked for fails (after its retries): said, and the secret is still shown.
  const stale = page.getByRole("alert").filter({ hasText: "Showing the endpoint as last read: it could not be read again." });
  await expect(stale).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId("new-secret")).toHaveText(secret);
  await page.unroute(/\/api\/trpc\/[^?]*webhooks\.get/);
  await stale.getByRole("button", { name: "Try again" }).click();
  await expect(stale).toHaveCount(0);
  await expect(page.getByTestId("new-secret")).toHaveText(secret);
});

test("a refund being typed stays when reading the payment again fails", async ({ page, request }) => {
  const payment = await succeededPayment(request);
  await page.goto(`/dashboard/payments/${payment.id}`);
  await expect(page.getByText("USD 42.50 of USD 42.50 can be refunded")).toBeVisible();
  await page.getByLabel("Amount (USD)").fill("1.25");
  await page.route(/\/api\/trpc\/[^?]*payments\.timeline/, (route) => route.abort("connectionreset"));
  // Back on the tab once its reading is stale (10 s): it reads the payment again, and cannot.
  await page.waitForTimeout(10_500);
  await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange", { bubbles: true })));
  await expect(page.getByRole("alert").filter({ hasText: "Showing the payment as last read" })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByLabel("Amount (USD)")).toHaveValue("1.25");
});

test("the role that could not be read is said where it is needed, with a retry", async ({ page, request }) => {
  const payment = await succeededPayment(request);
  const unfail = await failing(page, "session.me");
  await page.goto("/dashboard/security");
  const unread = page.getByRole("alert").filter({ hasText: "Your role could not be read, so the actions it allows are not shown." });
  await expect(unread).toBeVisible({ timeout: 20_000 });

  await page.goto(`/dashboard/payments/${payment.id}`);
  await expect(page.locator("h1")).toContainText("Succeeded");
  await expect(unread).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole("heading", { name: "Refund" })).toHaveCount(0);
  await unfail();
  await unread.getByRole("button", { name: "Try again" }).click();
  await expect(page.getByRole("button", { name: "Refund…" })).toBeVisible();
  await expect(unread).toHaveCount(0);

  await page.goto("/dashboard/security");
  await expect(page.locator("table.security-log")).toBeVisible();
});

test("a resolve whose answer was lost, pressed again, says it was resolved by you; focus follows the question", async ({ page, request }) => {
  const stuck = await v1<{ id: string }>(request, "POST", "/v1/payments", { amount: 770, currency: "USD", method: "wallet", reference: `mine-${Date.now().toString(36)}`, customer: { msisdn: "0770000003" } });
  await v1(request, "POST", `/v1/test_helpers/payments/${stuck.id}/unknown`);
  await v1(request, "POST", `/v1/test_helpers/payments/${stuck.id}/age`);
  await page.goto(`/dashboard/payments/${stuck.id}`);
  await page.getByLabel(/The customer paid/).check();
  await page.getByLabel("Reason (kept with the payment)").fill("Provider statement checked by phone");
  // The question takes the focus, and Cancel gives it back to the button that asked it.
  await page.getByRole("button", { name: "Resolve…" }).click();
  await expect(page.getByRole("button", { name: "Yes, mark it succeeded" })).toBeFocused();
  await page.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByRole("button", { name: "Resolve…" })).toBeFocused();

  // The page polls an unresolved payment: until the second press, its readings fail, so it still
  // shows the question (as a page whose poll has not come round yet would).
  const readAgain = await failing(page, "payments.timeline");
  await answerLost(page, /payments\.resolve/);
  await page.getByRole("button", { name: "Resolve…" }).click();
  await page.getByRole("button", { name: "Yes, mark it succeeded" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Could not reach Mari, or its answer was lost on the way." })).toBeVisible();
  await page.unroute(/payments\.resolve/);
  // Pressed again: refused, since the first try went through. The page says whose it was.
  await page.getByRole("button", { name: "Yes, mark it succeeded" }).click();
  await readAgain();
  await expect(page.getByRole("status").filter({ hasText: "Resolved by you: it is now succeeded." })).toBeVisible();
  await expect(page.getByText("Not resolved by you")).toHaveCount(0);
  await expect(page.locator("h1")).toContainText("Succeeded");
});

/** A gateway in front of Mari answering with its own page (a 502 with HTML), as proxies do. */
const GATEWAY_PAGE = { status: 502, contentType: "text/html", body: "<html><body><h1>502 Bad Gateway</h1></body></html>" };

for (const [answer, fulfilled] of [
  ["Mari's own error", { status: 500, json: [{ error: INTERNAL }] }],
  ["a gateway's error page", GATEWAY_PAGE],
] as const) {
  test(`a refund answered with ${answer} may have been made: the page reads the payment again, and sent again it is one refund`, async ({ page, request }) => {
    await refundWithLostAnswer(page, request, fulfilled);
  });
}

async function refundWithLostAnswer(page: Page, request: APIRequestContext, fulfilled: Parameters<Route["fulfill"]>[0]): Promise<void> {
  const payment = await succeededPayment(request);
  await page.goto(`/dashboard/payments/${payment.id}`);
  await expect(page.getByText("USD 42.50 of USD 42.50 can be refunded")).toBeVisible();
  // The refund is made; the answer is an error all the same.
  await page.route(/payments\.refund/, async (route) => {
    await route.fetch();
    await route.fulfill(fulfilled);
  });
  await page.getByLabel("Amount (USD)").fill("2.00");
  await page.getByRole("button", { name: "Refund…" }).click();
  await page.getByRole("button", { name: "Yes, refund USD 2.00" }).click();
  const lost = page.getByRole("alert").filter({ hasText: "Your refund of USD 2.00 got no answer, or an error from Mari: it may have been made, or not." });
  await expect(lost).toBeVisible();
  await expect(page.getByText("USD 40.50 of USD 42.50 can be refunded")).toBeVisible();
  await expect(page.getByText(/Something went wrong on our side|is not valid JSON|Unexpected token/)).toHaveCount(0);
  await page.unroute(/payments\.refund/);
  await lost.getByRole("button", { name: "Send it again" }).click();
  // One refund of USD 2.00, not two, and no question left open that would send another.
  await expect(page.getByRole("status").filter({ hasText: /Refund re_\w+ of USD 2\.00 is/ })).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole("button", { name: /^Yes, refund/ })).toHaveCount(0);
  await expect.poll(async () => (await v1<{ amount_refunded: number }>(request, "GET", `/v1/payments/${payment.id}`)).amount_refunded, { timeout: 20_000 }).toBe(200);
  expect((await v1<{ data: unknown[] }>(request, "GET", `/v1/refunds?payment=${payment.id}`)).data).toHaveLength(1);
}

test("a list whose reading gets a gateway's error page says so in words, not the browser's parser error", async ({ page }) => {
  await page.route(/\/api\/trpc\/[^?]*payments\.list/, (route) => route.fulfill(GATEWAY_PAGE));
  await page.goto("/dashboard/payments");
  await expect(page.getByText(/Could not reach Mari, or its answer was lost on the way/).first()).toBeVisible({ timeout: 20_000 });
  await expect(page.getByText(/is not valid JSON|Unexpected token/)).toHaveCount(0);
});

test("replay waits for the endpoints, and says when they could not be read rather than that there are none", async ({ page, request }) => {
  const payment = await succeededPayment(request);
  const eventId = await eventOf(request, payment.id, "payment.succeeded");
  const url = `http://127.0.0.1:9/replay-${randomUUID().slice(0, 8)}`;
  await v1(request, "POST", "/v1/webhook_endpoints", { url, enabled_events: ["refund.failed"] });
  const unfail = await failing(page, "webhooks.list");
  await page.goto(`/dashboard/events/${eventId}`);
  const replay = page.getByRole("region", { name: "Replay" });
  const unread = replay.getByRole("alert").filter({ hasText: "Could not read the endpoints it can be sent to." });
  await expect(unread).toBeVisible({ timeout: 20_000 });
  await expect(replay.getByText("No endpoint is enabled")).toHaveCount(0);
  await expect(replay.getByRole("button", { name: "Replay event" })).toBeDisabled();
  await unfail();
  await unread.getByRole("button", { name: "Try again" }).click();
  await expect(replay.getByLabel("Send to")).toContainText(url);
  await expect(unread).toHaveCount(0);
  await expect(replay.getByRole("button", { name: "Replay event" })).toBeEnabled();
});

/**
 * A window's queueing (or its count, with `dryRun`) answered slowly, as a window of many thousand
 * events is: the page's fetch hands on the streamed answer's lines one a second, and its result
 * (the line saying `done`) only once the test calls the function this returns.
 */
async function slowReplayAnswer(page: Page, { dryRun = false } = {}): Promise<() => Promise<void>> {
  await page.addInitScript((run) => {
    const released = new Promise<void>((resolve) => Object.assign(window, { releaseReplayResult: resolve }));
    const pageFetch = window.fetch.bind(window);
    window.fetch = async (input, init) => {
      const answer = await pageFetch(input, init);
      const slowed = String(input instanceof Request ? input.url : input).includes("events.replayWindow") && String(init?.body).includes(run);
      if (!slowed) return answer;
      const lines = (await answer.text()).split("\n").filter(Boolean);
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const line = lines.shift()!;
          await (line.includes('"done":true') ? released : new Promise((resolve) => setTimeout(resolve, 1_000)));
          controller.enqueue(new TextEncoder().encode(`${line}\n`));
          if (lines.length === 0) controller.close();
        },
      });
      return new Response(body, { status: answer.status, headers: answer.headers });
    };
  }, `"dryRun":${dryRun}`);
  return () => page.evaluate(() => (window as unknown as { releaseReplayResult: () => void }).releaseReplayResult());
}

test("a window's replay that takes a while says it is still queueing, for how long and how far it has come, then what it queued", async ({ page, request }) => {
  const endpoint = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url: "http://127.0.0.1:9/slow-window", enabled_events: ["payment.succeeded"] });
  const paid = await succeededPayment(request);
  const { created_at } = await v1<{ created_at: string }>(request, "GET", `/v1/events/${await eventOf(request, paid.id, "payment.succeeded")}`);
  const releaseResult = await slowReplayAnswer(page);

  await page.goto(`/dashboard/events?from=${harareWallTime(created_at, -1_000)}&to=${harareWallTime(created_at, 1_000)}&type=payment.succeeded`);
  await page.getByRole("button", { name: "Replay a time window…" }).click();
  const panel = page.getByRole("region", { name: "Replay a time window" });
  await panel.getByRole("combobox", { name: "To", exact: true }).selectOption(endpoint.id);
  await panel.getByRole("button", { name: "Count (dry run)" }).click();
  // Other tests' payments may have succeeded in the same seconds: at least this one.
  const counted = Number(/^([\d,]+) events?/.exec((await panel.locator(".replay-counts").textContent()) ?? "")?.[1]?.replace(/,/g, ""));
  expect(counted).toBeGreaterThanOrEqual(1);
  await panel.getByRole("button", { name: /^Queue \d+ deliver/ }).click();
  await expect(panel.getByRole("button", { name: "Queueing…" })).toBeDisabled();
  // Quiet at first (a usual window is queued in well under a second), then said, with a count of
  // seconds that goes on and the events done of those counted, as the stream reports them.
  const still = panel.getByText(/^Still queueing \(\d+ s so far(; [\d,]+ of [\d,]+ events? done)?\): a large window takes a while\. It goes on if you leave this page/);
  await expect(still).toHaveCount(0);
  await expect(still).toBeVisible();
  await expect(still).toContainText(`; ${counted.toLocaleString("en-GB")} of ${counted.toLocaleString("en-GB")} event`);
  const bar = panel.getByRole("progressbar", { name: "Events queued so far" });
  await expect(bar).toHaveJSProperty("value", counted);
  await expect(bar).toHaveJSProperty("max", counted);
  const seconds = async () => Number(/\((\d+) s/.exec((await still.textContent()) ?? "")?.[1]);
  const first = await seconds();
  expect(first).toBeGreaterThanOrEqual(2);
  await expect.poll(seconds).toBeGreaterThan(first);
  await releaseResult();
  await expect(panel.getByRole("status").filter({ hasText: /^Queued \d+ deliver/ })).toBeVisible();
  await expect(still).toHaveCount(0);
});

test("a window's replay whose answer is lost says it goes on by itself, and the latest replays show it done", async ({ page, request }) => {
  const url = `http://127.0.0.1:9/lost-window-${randomUUID().slice(0, 8)}`;
  const endpoint = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url, enabled_events: ["payment.succeeded"] });
  const paid = await succeededPayment(request);
  const { created_at } = await v1<{ created_at: string }>(request, "GET", `/v1/events/${await eventOf(request, paid.id, "payment.succeeded")}`);
  // The queueing reaches the server and runs to its end; its answer never reaches the page.
  await page.route(
    (u) => proceduresOf(u).includes("events.replayWindow"),
    async (route) => {
      if (!String(route.request().postData()).includes('"dryRun":false')) return route.fallback();
      await route.fetch();
      await route.abort("connectionreset");
    },
  );

  await page.goto(`/dashboard/events?from=${harareWallTime(created_at, -1_000)}&to=${harareWallTime(created_at, 1_000)}&type=payment.succeeded`);
  await page.getByRole("button", { name: "Replay a time window…" }).click();
  const panel = page.getByRole("region", { name: "Replay a time window" });
  await panel.getByRole("combobox", { name: "To", exact: true }).selectOption(endpoint.id);
  await panel.getByRole("button", { name: "Count (dry run)" }).click();
  await panel.getByRole("button", { name: /^Queue \d+ deliver/ }).click();
  await expect(panel.getByRole("alert")).toContainText("A replay cut off goes on by itself, carried on by the server: Latest window replays below shows when it is done.");
  const latest = page.getByRole("region", { name: "Latest window replays" }).getByRole("row").filter({ hasText: url });
  await expect(latest).toContainText("Done");
});

test("a window's count that takes a while says how many events it has counted so far", async ({ page, request }) => {
  const paid = await succeededPayment(request);
  const { created_at } = await v1<{ created_at: string }>(request, "GET", `/v1/events/${await eventOf(request, paid.id, "payment.succeeded")}`);
  const releaseResult = await slowReplayAnswer(page, { dryRun: true });

  await page.goto(`/dashboard/events?from=${harareWallTime(created_at, -1_000)}&to=${harareWallTime(created_at, 1_000)}&type=payment.succeeded`);
  await page.getByRole("button", { name: "Replay a time window…" }).click();
  const panel = page.getByRole("region", { name: "Replay a time window" });
  await panel.getByRole("button", { name: "Count (dry run)" }).click();
  // Other tests' payments may have succeeded in the same seconds: at least this one.
  const counting = panel.getByRole("button", { name: /^Counting… [\d,]+ events? so far$/ });
  await expect(counting).toBeDisabled();
  await releaseResult();
  await expect(panel.locator(".replay-counts")).toHaveText(/^[\d,]+ events?, [\d,]+ deliver(y|ies)$/);
  await expect(panel.getByRole("button", { name: "Count (dry run)" })).toBeEnabled();
});

test("a revoke or deactivation whose answer was lost says it may have been done, and the list is read again", async ({ page, request }) => {
  // A key of this test's own, not the seeded one the other tests use. Its secret panel takes the focus.
  const name = `lost-${randomUUID().slice(0, 8)}`;
  await page.goto("/dashboard/api-keys");
  await page.getByLabel("Name (optional)").fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  await expect(page.getByRole("region", { name: "Your new key" })).toBeFocused();
  await page.getByRole("button", { name: "I have stored it" }).click();
  const key = page.getByRole("row").filter({ hasText: name });
  await expect(key).toContainText("Active");
  await answerLost(page, /apiKeys\.revoke/);
  await key.getByRole("button", { name: "Revoke" }).click();
  await key.getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "the key may have been revoked, or not. The list was reloaded" })).toBeVisible();
  await expect(page.getByText("Could not revoke")).toHaveCount(0);
  await expect(key).toContainText("Revoked");

  const description = `lost link ${randomUUID().slice(0, 8)}`;
  await v1(request, "POST", "/v1/payment_links", { amount: 1_200, currency: "USD", description });
  await page.goto("/dashboard/payment-links");
  const link = page.getByRole("row").filter({ hasText: description });
  await expect(link).toContainText("Active");
  await answerLost(page, /paymentLinks\.deactivate/);
  await link.getByRole("button", { name: "Deactivate" }).click();
  await link.getByRole("button", { name: "Deactivate link" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "the link may have been deactivated, or not. The list was reloaded" })).toBeVisible();
  await expect(page.getByText("Could not deactivate")).toHaveCount(0);
  await expect(link).toContainText("Deactivated");
});

test("a sign-out that gets no answer says so and can be tried again", async ({ page }) => {
  await page.goto("/dashboard");
  // A 5xx page, not next-auth's JSON (the database is down): this browser is still signed in.
  await page.route("**/api/auth/signout", (route) => route.fulfill({ status: 500, contentType: "text/html", body: "<html><body>Internal Server Error</body></html>" }));
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "You may still be signed in. Could not reach Mari" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign out" })).toBeEnabled();
  await expect(page).toHaveURL(/\/dashboard$/);
});

test("a sign-in that gets no answer says so, and the button can be pressed again", async ({ browser }) => {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  await page.goto("/dashboard/sign-in");
  await page.route("**/api/auth/callback/credentials", (route) => route.abort("connectionreset"));
  await fillSignIn(page, seed().staff.email, seed().staff.password!);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.locator(".error[role=alert]")).toHaveText("Could not reach Mari, or its answer did not come through. Check your connection, then try again.");
  await page.unroute("**/api/auth/callback/credentials");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/dashboard");
  await context.close();
});

test("a list already shown stays when reading it again fails, and says it may be out of date", async ({ page, request }) => {
  const payment = await succeededPayment(request);
  await page.goto(`/dashboard/payments?${new URLSearchParams({ q: payment.reference })}`);
  await expect(page.getByRole("link", { name: payment.reference })).toBeVisible();
  await page.route(/\/api\/trpc\/[^?]*payments\.list/, (route) => route.abort("connectionreset"));
  // Back on the tab once its reading is stale: it reads the list again, and cannot.
  await page.waitForTimeout(10_500);
  await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange", { bubbles: true })));
  const stale = page.getByRole("alert").filter({ hasText: "as last read: it could not be read again." });
  await expect(stale).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole("link", { name: payment.reference })).toBeVisible();
  await page.unroute(/\/api\/trpc\/[^?]*payments\.list/);
  await stale.getByRole("button", { name: "Try again" }).click();
  await expect(stale).toHaveCount(0);
  await expect(page.getByRole("link", { name: payment.reference })).toBeVisible();
});

test("an endpoint's deliveries stay shown when reading them again fails", async ({ page, request }) => {
  // A type no other test here makes (a test event goes whatever the endpoint takes): other tests'
  // events do not push the test event's row off the first page meanwhile.
  const endpoint = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url: "http://127.0.0.1:9/stale-deliveries", enabled_events: ["refund.failed"] });
  await page.goto(`/dashboard/webhooks/${endpoint.id}`);
  await page.getByRole("button", { name: "Send test event" }).click();
  const row = page.locator("section[aria-labelledby=recent-title] table tbody tr").filter({ hasText: "webhook_endpoint.test" });
  await expect(row).toHaveCount(1, { timeout: 20_000 });
  // The list polls while its delivery is pending (its receiver refuses); from now on it cannot read it.
  const readAgain = await failing(page, "webhooks.deliveries");
  const stale = page.getByRole("alert").filter({ hasText: "Showing the deliveries as last read: it could not be read again." });
  await expect(stale).toBeVisible({ timeout: 30_000 });
  await expect(row).toHaveCount(1);
  await readAgain();
  await stale.getByRole("button", { name: "Try again" }).click();
  await expect(stale).toHaveCount(0);
  await expect(row).toHaveCount(1);
});
