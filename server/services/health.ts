import { sql } from "drizzle-orm";
import { driver, getDb } from "@/db/client";
import { log } from "@/server/log";

export type Health = { status: "ok" | "unavailable"; database: "ok" | "unreachable"; driver?: string };

/** The database answering a trivial query within two seconds is what "healthy" means. */
export async function checkHealth(): Promise<Health> {
  try {
    const db = await getDb();
    await Promise.race([
      db.execute(sql`select 1`),
      new Promise((_, reject) => setTimeout(() => reject(new Error("database did not answer within 2 s")), 2_000).unref()),
    ]);
    return { status: "ok", database: "ok", driver: await driver() };
  } catch (e) {
    log.warn("health check failed", { error: e });
    return { status: "unavailable", database: "unreachable" };
  }
}
