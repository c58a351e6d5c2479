import { readFile } from "node:fs/promises";
import { afterAll, inject } from "vitest";
import { closeDb, openPglite, overrideDbForTests } from "@/db/client";

// Each test file gets its own embedded database copied from the migrated dump, opened only if
// the file touches the database. With DATABASE_URL every file shares the real server.
const dump = inject("pgliteDump");
if (dump) {
  overrideDbForTests(async () => openPglite(undefined, new Blob([await readFile(dump)])));
}

afterAll(async () => {
  await closeDb();
});
