import { customType, timestamp } from "drizzle-orm/pg-core";
import { dataKey } from "../../server/data-key";
import { seal, unseal } from "../../server/domain/sealing";

/**
 * Public ids compare byte-wise (COLLATE "C") whatever the database locale, so that ordering by
 * id is ordering by creation time and keyset cursors are stable.
 */
export const idColumn = customType<{ data: string; driverData: string }>({
  dataType: () => 'text COLLATE "C"',
});

export const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull();
export const tstz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * A secret the service reads back, stored sealed (AES-256-GCM under the data key): the database,
 * its backups and its dumps hold no usable secret. Code reads and writes plaintext.
 */
export const sealedText = customType<{ data: string; driverData: string }>({
  dataType: () => "text",
  toDriver: (value) => seal(dataKey(), value),
  fromDriver: (value) => unseal(dataKey(), value),
});
