import { sql } from "drizzle-orm";
import { vi } from "vitest";
import { getDb } from "@/db/client";
import { payments } from "@/db/schema";
import { sandbox } from "@/server/providers/registry";
import { setEnv } from "./env";

/** A query that fails in the database (division by zero) with `msisdn` among its parameters. */
export async function queryFailingWith(msisdn: string): Promise<never> {
  await (await getDb()).select({ id: payments.id }).from(payments).where(sql`${payments.customerMsisdn} = ${msisdn} and 1 / 0 = 1`);
  throw new Error("the query did not fail");
}

/** The next provider push fails as a query of its request would fail, the customer's number among the query's parameters. */
export function nextPushFailsInTheDatabase(): () => void {
  const original = sandbox.push;
  sandbox.push = async function failingOnce(push) {
    sandbox.push = original;
    return queryFailingWith(push.msisdn);
  };
  return () => {
    sandbox.push = original;
  };
}

export type LoggedLine = { msg: string; [field: string]: unknown };

/** What `run` writes to the log at LOG_LEVEL=error (warnings and errors): the text, and each line parsed. */
export async function logOf<T>(run: () => Promise<T>): Promise<{ result: T; text: string; lines: LoggedLine[] }> {
  const restore = setEnv({ LOG_LEVEL: "error" });
  const written: string[] = [];
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => (written.push(String(chunk)), true));
  try {
    const result = await run();
    return { result, text: written.join(""), lines: written.map((l) => JSON.parse(l) as LoggedLine) };
  } finally {
    spy.mockRestore();
    restore();
  }
}
