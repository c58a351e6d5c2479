import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { closeDb, migrateHandle, openPglite } from "@/db/client";
import { migrateDatabase } from "@/db/client";
import { env } from "@/server/env";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteDump: string | null;
  }
}

/**
 * PostgreSQL (DATABASE_URL set, as in CI): migrate it once; tests isolate by creating their own
 * merchants. PGlite (no DATABASE_URL): migrate one in-memory instance and dump it, so each test
 * file starts from a copy in half a second instead of migrating again.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (env().DATABASE_URL) {
    await migrateDatabase();
    await closeDb();
    project.provide("pgliteDump", null);
    return async () => {};
  }
  const handle = await openPglite(undefined);
  await migrateHandle(handle);
  const client = (handle.db as unknown as { $client: { dumpDataDir(c: "none"): Promise<Blob> } }).$client;
  const dump = await client.dumpDataDir("none");
  const dir = await mkdtemp(path.join(os.tmpdir(), "mari-test-"));
  const file = path.join(dir, "pglite.tar");
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
  await handle.close();
  project.provide("pgliteDump", file);
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
