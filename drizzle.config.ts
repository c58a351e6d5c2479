import { defineConfig } from "drizzle-kit";

// Generation only diffs the schema files against the committed snapshots; it needs no database.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema/index.ts",
  out: "./db/migrations",
  strict: true,
  verbose: true,
});
