import { randomUUID } from "node:crypto";
import { expect, type APIRequestContext, type Locator, type Page, type TestInfo } from "@playwright/test";
import type { Got } from "../support/receiver";
import { bearer, seed } from "../support/seed";

/** The merchant's side through /v1 (the seeded merchant whose admin the dashboard tests sign in as). */
const key = () => seed().keys.test;

export async function v1<T>(request: APIRequestContext, method: "GET" | "POST" | "DELETE", path: string, data?: unknown): Promise<T> {
  const res = await request.fetch(path, { method, headers: { ...bearer(key()), ...(method === "POST" ? { "Idempotency-Key": randomUUID() } : {}) }, data });
  expect(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`).toBe(true);
  const body = (await res.json()) as T;
  if (method === "POST" && path === "/v1/webhook_endpoints") endpointMade((body as { id: string }).id);
  return body;
}

/** The endpoints this worker's current test made (through `v1`, or in the page), which `deleteEndpointsMade` deletes. */
const endpointsMade: string[] = [];

/** An endpoint the test made (`v1` notes its own; a test notes one made in the page), for `deleteEndpointsMade` to delete. */
export function endpointMade(id: string): void {
  endpointsMade.push(id);
}

/**
 * Deletes the endpoints the test just ended made, however it ended (a spec's afterEach). Left
 * behind, they would take the merchant's endpoints (16 per environment, shared by every test of
 * the run) and keep retrying their receivers, closed with their tests. One the test deleted itself
 * answers 404 here, which is what it should.
 */
export async function deleteEndpointsMade(request: APIRequestContext): Promise<void> {
  for (const id of endpointsMade.splice(0)) {
    const res = await request.delete(`/v1/webhook_endpoints/${id}`, { headers: bearer(key()) });
    expect([200, 404], `DELETE ${id}: ${res.status()} ${await res.text()}`).toContain(res.status());
  }
}

/** A payment the sandbox leaves awaiting (…03), moved to succeeded by the test helper: one payment.succeeded event. */
export async function succeededPayment(request: APIRequestContext, reference = `dash-${randomUUID().slice(0, 8)}`) {
  const p = await v1<{ id: string }>(request, "POST", "/v1/payments", { amount: 4_250, currency: "USD", method: "wallet", reference, customer: { msisdn: "0770000003" } });
  await v1(request, "POST", `/v1/test_helpers/payments/${p.id}/succeed`);
  return { id: p.id, reference };
}

/** The event of a type about an object, once it exists. */
export async function eventOf(request: APIRequestContext, objectId: string, type: string, timeout?: number): Promise<string> {
  let id: string | undefined;
  await expect
    .poll(async () => {
      const list = await v1<{ data: Array<{ id: string; type: string; data: { object: { id: string } } }> }>(request, "GET", `/v1/events?type=${type}&limit=100`);
      id = list.data.find((e) => e.data.object.id === objectId)?.id;
      return id;
    }, { timeout })
    .toBeTruthy();
  return id!;
}

/**
 * An endpoint of this test's own (a receiver answering 200, subscribed to payment.succeeded) and a
 * payment.succeeded event it has received once; `received()` counts its deliveries of that event.
 */
export async function deliveredEvent(request: APIRequestContext, hook: { url: string; got: Got[] }) {
  const endpoint = await v1<{ id: string }>(request, "POST", "/v1/webhook_endpoints", { url: hook.url, enabled_events: ["payment.succeeded"] });
  const payment = await succeededPayment(request);
  const eventId = await eventOf(request, payment.id, "payment.succeeded");
  const received = () => hook.got.filter((g) => g.body.includes(eventId)).length;
  await expect.poll(received, { timeout: 15_000 }).toBe(1);
  return { endpoint, eventId, received };
}

/**
 * The test events a receiver got, in order. Other tests of the merchant, run alongside, make
 * events too, and an endpoint subscribed to them gets theirs as well: a count of test events is
 * this test's own.
 */
export const testEventsAt = (hook: { got: Got[] }): Got[] => hook.got.filter((g) => (JSON.parse(g.body) as { type?: string }).type === "webhook_endpoint.test");

/** The wall-clock time in Harare (UTC+2, no daylight saving) `ms` from `iso`, as a datetime-local field holds it. */
export const harareWallTime = (iso: string, ms = 0) => new Date(Date.parse(iso) + 2 * 3600_000 + ms).toISOString().slice(0, 19);

/** A full-page screenshot kept with the test's results. */
export async function keep(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: "image/png" });
}

/**
 * The signed-in admin adds `email` on the Team page (confirming with the seeded admin's password):
 * the panel that hands over their one-time password, still shown.
 */
export async function addTeamMemberShown(page: Page, email: string, role: "admin" | "developer" | "viewer" = "viewer"): Promise<Locator> {
  await page.goto("/dashboard/team");
  await page.getByRole("textbox", { name: "E-mail" }).fill(email);
  await page.locator("form select[name=role]").selectOption(role);
  await page.getByLabel("Your password").fill(seed().staff.password!);
  await page.getByRole("button", { name: "Add", exact: true }).click();
  const panel = page.getByRole("region", { name: `${email} is on the team` });
  await expect(panel).toContainText(`${email} can sign in to the business ${seed().slug} with this password`);
  return panel;
}

/** A secret shown once (SecretOnce) as the panel shows it: a password handed over, a key, a signing secret. */
export const secretIn = (panel: Locator): Promise<string> => panel.getByTestId("new-secret").evaluate((el) => el.firstChild?.textContent?.trim() ?? "");

/** addTeamMemberShown, then the one-time password read and the panel put away, as the admin does once it is handed over. */
export async function addTeamMember(page: Page, email: string, role: "admin" | "developer" | "viewer" = "viewer"): Promise<string> {
  const panel = await addTeamMemberShown(page, email, role);
  const password = await secretIn(panel);
  await panel.getByRole("button", { name: "I have handed it over" }).click();
  await expect(panel).toHaveCount(0);
  return password;
}

/**
 * Fills the sign-in form for a login of the seeded merchant (its business, then the address and
 * password), as someone who types it; the page must be the sign-in page.
 */
export async function fillSignIn(page: Page, email: string, password: string, business = seed().slug): Promise<void> {
  await page.getByLabel("Business").fill(business);
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
}

/** A customer pays through a link on its page in another tab, and leaves while the PIN prompt waits (the sandbox's …03 never answers). */
export async function payLinkAndLeave(page: Page, linkId: string): Promise<void> {
  const customer = await page.context().newPage();
  await customer.goto(`/pay/${linkId}`);
  await customer.getByLabel(/mobile money number/i).fill("0770000003");
  await customer.getByRole("button", { name: /^Pay / }).click();
  await expect(customer.getByRole("heading", { name: "Check your phone and enter your PIN" })).toBeVisible();
  await customer.close();
}
