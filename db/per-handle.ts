import type { Db } from "./client";

/**
 * `build(db)` made once per database handle and kept with it: for statements that drizzle should
 * build and prepare once rather than on every request. A transaction is a handle of its own, so
 * what is made for it goes with it.
 */
export function perHandle<T>(build: (db: Db) => T): (db: Db) => T {
  const made = new WeakMap<Db, T>();
  return (db) => {
    let value = made.get(db);
    if (value === undefined) made.set(db, (value = build(db)));
    return value;
  };
}
