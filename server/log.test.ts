import { describe, expect, it } from "vitest";
import { logOf, queryFailingWith } from "@/server/testing/log";
import { inngest } from "./jobs/inngest/client";
import { log, logFor, loggableError } from "./log";

const NUMBER = "263779876543";

/** The error a query with a customer's number among its parameters fails with in the database. */
const failedQuery = () => queryFailingWith(NUMBER).catch((e: unknown) => e as Error);

describe("an error in the log", () => {
  it("a failed query: its SQL, the database's reason and SQLSTATE, and none of its parameters, in the message or the stack", async () => {
    const kept = loggableError(await failedQuery());
    expect(JSON.stringify(kept)).not.toContain(NUMBER);
    expect(kept.message).toMatch(/^Failed query: select "id" from "payments" where "payments"."customer_msisdn" = \$1 and 1 \/ 0 = 1$/);
    // The SQL's placeholders kept as they are ($1 is not read as a replacement pattern).
    expect(kept.stack).toMatch(/^Error: Failed query: select .* = \$1 and 1 \/ 0 = 1\n\s+at /);
    expect(kept.cause).toMatchObject({ message: "division by zero", code: "22012" });
  });

  it("a failed query whose message names its parameters (as drizzle writes it without patches/, whatever copy made it) is kept without them", async () => {
    const e = (await failedQuery()) as Error & { query: string };
    // Not drizzle's class as this module imports it: its shape only, as another copy of drizzle makes it.
    const unpatched = Object.assign(new Error(`Failed query: ${e.query}\nparams: ${NUMBER}`, { cause: e.cause }), { query: e.query, params: [NUMBER] });
    expect(unpatched.stack).toContain(NUMBER);
    const kept = loggableError(unpatched);
    expect(kept).toMatchObject({ message: `Failed query: ${e.query}`, stack: expect.stringMatching(/^Error: Failed query: select .*\n\s+at /), cause: { message: "division by zero" } });
    expect(JSON.stringify(kept)).not.toContain(NUMBER);
    // The database's own error carries the query and its parameters as fields, but its message names neither: it is kept as it is.
    const own = Object.assign(new Error("division by zero"), { query: "select 1 / 0 where $1 = $1", params: [NUMBER] });
    expect(loggableError(own).message).toBe("division by zero");
  });

  it("is written whole, causes and all, wherever it sits among a line's fields", async () => {
    const outer = new Error("starting failed", { cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432", { cause: await failedQuery() }), { code: "ECONNREFUSED" }) });
    const { text, lines } = await logOf(async () => log.error("boot", { attempt: 2, error: outer }));
    expect(text).not.toContain(NUMBER);
    expect(lines).toMatchObject([
      {
        msg: "boot",
        attempt: 2,
        error: {
          name: "Error",
          message: "starting failed",
          cause: { message: "connect ECONNREFUSED 127.0.0.1:5432", code: "ECONNREFUSED", cause: { message: expect.stringMatching(/^Failed query: /), cause: { message: "division by zero" } } },
        },
      },
    ]);
  });

  it("a library's calls (Inngest's SDK), Pino's way or the console's, are JSON lines of it under their source", async () => {
    const error = await failedQuery();
    const { text, lines } = await logOf(async () => {
      const lib = logFor("inngest");
      lib.error({ err: error, runId: "01RUN", level: 30, msg: "theirs" }, "function failed");
      lib.error("giving up after", 5, "tries");
      lib.error(new Error("sync refused"));
      lib.warn("not written at LOG_LEVEL=error");
    });
    expect(lines).toMatchObject([
      { level: "error", msg: "function failed", source: "inngest", runId: "01RUN", error: { message: expect.stringMatching(/^Failed query: /), cause: { message: "division by zero" } } },
      { level: "error", msg: "giving up after", source: "inngest", values: [5, "tries"] },
      { level: "error", msg: "sync refused", source: "inngest", error: { name: "Error", message: "sync refused" } },
    ]);
    expect(text).not.toContain(NUMBER);
  });

  it("is what the Inngest client logs with", async () => {
    const { lines } = await logOf(async () => inngest.logger.error({ functionId: "expire-payment" }, "probe"));
    expect(lines).toMatchObject([{ level: "error", msg: "probe", source: "inngest", functionId: "expire-payment" }]);
  });
});
