import { customType, timestamp } from "drizzle-orm/pg-core";

/**
 * Public ids compare byte-wise (COLLATE "C") whatever the database locale, so that ordering by
 * id is ordering by creation time and keyset cursors are stable.
 */
export const idColumn = customType<{ data: string; driverData: string }>({
  dataType: () => 'text COLLATE "C"',
});

export const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull();
export const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
