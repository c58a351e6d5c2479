import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { queryFailingWith } from "@/server/testing/log";
import { driver } from "./client";

const NUMBER = "263779876543";

// patches/drizzle-orm: what a request carried never rides on the error of a query that failed.
describe("the error of a failed query (drizzle as patched)", () => {
  it("names its SQL and its cause, and keeps its parameters out of the message, the stack and what inspects or serializes it", async () => {
    const e = (await queryFailingWith(NUMBER).catch((x: unknown) => x)) as Error & { query: string; params: unknown[] };
    expect(e.message).toBe('Failed query: select "id" from "payments" where "payments"."customer_msisdn" = $1 and 1 / 0 = 1');
    expect(e.stack).not.toContain(NUMBER);
    // What Next prints of an error it meets (console.error inspects it): its own fields. On
    // PostgreSQL the driver's error, its cause, names no parameter either; PGlite's (the embedded
    // database) keeps them as a field of its own, shown when the cause is inspected.
    expect(inspect(e, { depth: 0 })).not.toContain(NUMBER);
    if ((await driver()) === "postgres") expect(inspect(e, { depth: 5 })).not.toContain(NUMBER);
    // What Inngest sends of a failed run: the error's name, message and stack, and its cause's.
    const picked = (x: Error) => ({ name: x.name, message: x.message, stack: x.stack });
    expect(JSON.stringify({ ...picked(e), cause: picked(e.cause as Error) })).not.toContain(NUMBER);
    expect((e.cause as Error).message).toBe("division by zero");
    // Still there for code that asks for them by name.
    expect(e.params).toEqual([NUMBER]);
    expect(Object.keys(e)).not.toContain("params");
  });
});
