/**
 * The name of the unique constraint a write violated, or null. Both drivers surface PostgreSQL's
 * SQLSTATE 23505, postgres-js as `constraint_name`, PGlite as `constraint`; drizzle wraps either
 * in a `cause`.
 */
export function violatedUniqueConstraint(e: unknown): string | null {
  for (let cur: unknown = e, depth = 0; cur && typeof cur === "object" && depth < 4; depth++) {
    const err = cur as { code?: unknown; constraint_name?: unknown; constraint?: unknown; cause?: unknown };
    if (err.code === "23505") {
      const name = err.constraint_name ?? err.constraint;
      return typeof name === "string" ? name : "";
    }
    cur = err.cause;
  }
  return null;
}
