import { TRPCError } from "@trpc/server";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { webhookEndpoints } from "@/db/schema";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { seedTestMerchant } from "@/server/testing/fixtures";
import { dashboardAs } from "./testing";

/** The refusal's code and what it told the page (message, and the field it names). */
async function refused(p: Promise<unknown>) {
  try {
    await p;
    return "OK";
  } catch (e) {
    if (!(e instanceof TRPCError)) throw e;
    const cause = e.cause as { code?: string; param?: string } | undefined;
    return { code: e.code, service: cause?.code, param: cause?.param, message: e.message };
  }
}

describe("dashboard input that could not be kept as sent", () => {
  it("is BAD_REQUEST naming the field, before any lookup or write, never a 500", async () => {
    const m = await seedTestMerchant();
    const endpoint = await createEndpoint(await m.ctx(false), { url: "http://127.0.0.1:9/hook", enabledEvents: ["*"] });
    const admin = await dashboardAs(m, "admin");

    // A NUL in an id reached PostgreSQL's text parser, which refuses it (a 500).
    expect(await refused(admin.payments.get({ id: "pay_\u0000" }))).toMatchObject({ code: "BAD_REQUEST", service: "parameter_invalid", param: "id", message: expect.stringMatching(/NUL/) });
    // Half a surrogate pair would be stored as U+FFFD, silently not what was typed.
    expect(await refused(admin.webhooks.update({ id: endpoint.id, description: "Orders \ud800" }))).toMatchObject({
      code: "BAD_REQUEST",
      param: "description",
      message: expect.stringMatching(/surrogate pair/),
    });
    const [row] = await (await getDb()).select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    expect(row!.description).toBeNull();
    // A whole pair (an emoji) is text like any other.
    expect(await admin.webhooks.update({ id: endpoint.id, description: "Orders \ud83d\ude00" })).toMatchObject({ description: "Orders \ud83d\ude00" });
  });
});
