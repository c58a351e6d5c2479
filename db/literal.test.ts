import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { payments, webhookDeliveries } from "@/db/schema";
import { literalIn } from "./literal";

const render = (q: ReturnType<typeof literalIn>) => new PgDialect().sqlToQuery(q);

describe("literalIn", () => {
  it("writes the values into the text, binding nothing", () => {
    expect(render(literalIn(webhookDeliveries.status, "pending"))).toEqual({ sql: `"webhook_deliveries"."status" = 'pending'`, params: [] });
    expect(render(literalIn(payments.status, "unknown", "unresolved"))).toEqual({ sql: `"payments"."status" in ('unknown', 'unresolved')`, params: [] });
  });

  it("refuses anything but a schema constant", () => {
    expect(() => literalIn(payments.status, "x' or '1'='1" as never)).toThrow(/not a schema constant/);
    expect(() => literalIn(payments.status, "" as never)).toThrow(/not a schema constant/);
  });
});
