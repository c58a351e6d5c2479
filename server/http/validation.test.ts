import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ServiceError } from "@/server/domain/errors";
import { OPERATIONS } from "@/server/openapi";
import { listEventsQuery, replayWindowBody } from "@/server/schemas/events";
import { listPaymentsQuery, createPaymentBody } from "@/server/schemas/payments";
import { createEndpointBody } from "@/server/schemas/webhooks";
import { parseOrThrow, queryObject } from "./validation";

const valid = {
  amount: 1000,
  currency: "USD",
  method: "wallet",
  reference: "order-1",
  customer: { msisdn: "0771234567" },
};

function refusal(schema: z.ZodType, input: unknown, where: "body" | "query" = "body"): { param: string | undefined; message: string } {
  try {
    parseOrThrow(schema, input, where);
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    expect(e.code).toBe("parameter_invalid");
    return { param: e.param, message: e.message };
  }
  throw new Error(`accepted: ${JSON.stringify(input)}`);
}

const query = (qs: string) => queryObject(new URL(`http://x/v1/things?${qs}`));

/** zod's own wording, which a merchant should never read: every request field has a message of ours. */
const ZOD_DEFAULT = /^(Invalid|Too small|Too big|Unrecognized|Expected)\b/;

describe("validation errors", () => {
  it("tells a missing field from a field of the wrong type", () => {
    const { amount: _amount, currency: _currency, ...withoutBoth } = valid;
    expect(refusal(createPaymentBody, withoutBoth)).toEqual({ param: "amount", message: "Missing required parameter: 'amount'." });
    const { currency: _c, ...withoutCurrency } = valid;
    expect(refusal(createPaymentBody, withoutCurrency)).toEqual({ param: "currency", message: "Missing required parameter: 'currency'." });
    for (const amount of [10.5, "100", null, 0, -5]) {
      const r = refusal(createPaymentBody, { ...valid, amount });
      expect(r.param).toBe("amount");
      expect(r.message).toMatch(/^amount must be /);
    }
    // Too large to be exact is too large, whatever else: the limit is what the merchant needs to read.
    for (const amount of [1e20, 9_007_199_254_740_992, 100_000_000]) expect(refusal(createPaymentBody, { ...valid, amount })).toEqual({ param: "amount", message: "amount must be at most 99999999." });
    expect(refusal(createPaymentBody, { ...valid, amount: 10.5 }).message).toBe("amount must be an integer number of cents.");
    expect(refusal(createPaymentBody, { ...valid, customer: { msisdn: 263771234567 } })).toEqual({
      param: "customer.msisdn",
      message: "customer.msisdn must be a string.",
    });
    expect(refusal(createPaymentBody, { ...valid, metadata: { order: 1 } })).toEqual({ param: "metadata.order", message: "metadata values must be strings." });
    expect(refusal(createPaymentBody, { ...valid, currency: "EUR" })).toEqual({ param: "currency", message: "currency must be USD or ZWG." });
  });

  it("names fields as they are spelt, list entries with their index", () => {
    expect(refusal(createEndpointBody, { url: "https://example.test/hook", enabled_events: ["payment.succeeded", "nope"] })).toMatchObject({
      param: "enabled_events[1]",
      message: expect.stringMatching(/^enabled_events\[1\] must be "\*" or one of payment\.succeeded, /),
    });
    expect(refusal(replayWindowBody, { created_gte: 0, types: [] })).toEqual({ param: "types", message: "types must name at least one event type." });
    expect(refusal(replayWindowBody, { created_gte: 0, types: "payment.failed" })).toEqual({ param: "types", message: "types must be a list of event types." });
    expect(refusal(replayWindowBody, { created_gte: 10, created_lt: 5 })).toEqual({ param: "created_lt", message: "created_lt must be after created_gte." });
    expect(refusal(replayWindowBody, { created_gte: "yesterday" })).toEqual({
      param: "created_gte",
      message: "created_gte must be Unix seconds or an RFC 3339 timestamp, no later than 9999-12-31T23:59:59Z.",
    });
  });

  it("names a query parameter by its key, whatever values it carried", () => {
    expect(refusal(listEventsQuery, query("type=payment.succeeded,bogus"), "query")).toMatchObject({ param: "type", message: expect.stringMatching(/^type must be one of /) });
    expect(refusal(listPaymentsQuery, query("limit=3&limit=4"), "query")).toMatchObject({ param: "limit", message: expect.not.stringMatching(/^Missing/) });
    expect(refusal(listPaymentsQuery, query("starting_after=pay_nope"), "query")).toEqual({
      param: "starting_after",
      message: "starting_after must be a payment id (pay_ and 26 letters and digits).",
    });
    expect(refusal(listPaymentsQuery, query("created[gte]=soon"), "query")).toEqual({
      param: "created[gte]",
      message: "created[gte] must be Unix seconds or an RFC 3339 timestamp, no later than 9999-12-31T23:59:59Z.",
    });
    // "+02:00" sent unencoded: the query string reads its "+" as a space, and the message says so.
    expect(refusal(listPaymentsQuery, query("created[gte]=2026-11-29T18:00:00+02:00"), "query")).toEqual({
      param: "created[gte]",
      message: "created[gte] must be Unix seconds or an RFC 3339 timestamp, no later than 9999-12-31T23:59:59Z, and a '+' in a query string arrives as a space: write it as %2B.",
    });
    expect(() => parseOrThrow(listPaymentsQuery, query("created[gte]=2026-11-29T18:00:00%2B02:00"), "query")).not.toThrow();
    // A parameter given twice is told so, whether its schema is one type or a choice of several.
    for (const qs of ["limit=3&limit=4", "created[gte]=1&created[gte]=2", "status=failed&status=expired"]) {
      const name = qs.split("=")[0]!;
      expect(refusal(listPaymentsQuery, query(qs), "query")).toEqual({ param: name, message: `${name} may be given only once.` });
    }
    // One that takes several values still names the bad one.
    expect(refusal(listEventsQuery, query("type=payment.succeeded&type=bogus"), "query")).toMatchObject({ param: "type", message: expect.stringMatching(/^type must be one of /) });
  });

  it("says zod's own refusals in plain words where a schema gave none (the dashboard's inputs)", () => {
    const input = z.object({ id: z.string().max(64), limit: z.number().int().min(1), kind: z.enum(["a", "b"]) });
    expect(refusal(input, { id: "x".repeat(81), limit: 1, kind: "a" })).toEqual({ param: "id", message: "id must be at most 64 characters." });
    expect(refusal(input, { id: "x", limit: 0, kind: "a" })).toEqual({ param: "limit", message: "limit must be at least 1." });
    expect(refusal(input, { id: 5, limit: 1, kind: "a" })).toEqual({ param: "id", message: "id must be a string." });
    expect(refusal(input, { id: "x", limit: 1, kind: "c" })).toEqual({ param: "kind", message: "kind must be a or b." });
  });

  it("words every refusal of every operation's fields itself, as one sentence", () => {
    let checked = 0;
    const wordedByZod = new Set<string>();
    for (const op of OPERATIONS) {
      for (const [where, schema] of [["body", op.body], ["query", op.query]] as const) {
        const shape = (schema as { shape?: Record<string, unknown> } | undefined)?.shape;
        if (!schema || !shape) continue;
        for (const field of Object.keys(shape)) {
          const wrongs: unknown[] = where === "body" ? [12.5, [], true, "", {}] : ["", "x".repeat(300), ["a", "b"]];
          // The field alone, so that its own refusal is the one reported (not another's absence).
          const alone = z.strictObject({ [field]: shape[field] as z.ZodType });
          for (const wrong of wrongs) {
            if (alone.safeParse({ [field]: wrong }).success) continue;
            const { param, message } = refusal(alone, { [field]: wrong }, where);
            checked++;
            if (ZOD_DEFAULT.test(message) || !/^[^\n]+[.!?]$/.test(message) || param === undefined) {
              wordedByZod.add(`${op.operationId} ${where} ${field}=${JSON.stringify(wrong)}: ${param} "${message}"`);
            }
          }
        }
      }
    }
    expect([...wordedByZod]).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });
});
