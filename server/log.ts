import { env } from "./env";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;

/** How many causes deep an error is followed (a failed query's cause is the database's error). */
const CAUSE_DEPTH = 3;

/**
 * An error as the log keeps it: its name, message, code (PostgreSQL's SQLSTATE, or Node's such as
 * ECONNREFUSED) and stack, then what caused it, in turn. A failed query's message and stack name
 * its SQL but not its parameters, which hold what a request carried (a customer's number, an
 * e-mail, metadata); a database error's `detail` (the values of a violated key) is left out for
 * the same reason.
 */
export function loggableError(e: Error, depth = 0): Record<string, unknown> {
  const message = isFailedQuery(e) ? `Failed query: ${e.query}` : e.message;
  const code = (e as { code?: unknown }).code;
  return {
    name: e.name,
    message,
    ...(typeof code === "string" ? { code } : {}),
    stack: message === e.message ? e.stack : e.stack?.replace(e.message, () => message),
    ...(e.cause instanceof Error && depth < CAUSE_DEPTH ? { cause: loggableError(e.cause, depth + 1) } : {}),
  };
}

/**
 * A query that failed in drizzle with its parameters in its message, known by its shape
 * (DrizzleQueryError's message, `query` and `params`) rather than its class: the production build
 * holds more than one copy of drizzle, so `instanceof` misses it. drizzle as patched here
 * (patches/) no longer writes them there, so that what Next prints or Inngest is sent of the error
 * holds none either; this keeps the log right for an error made without the patch.
 */
function isFailedQuery(e: Error): e is Error & { query: string } {
  const { query, params } = e as { query?: unknown; params?: unknown };
  return typeof query === "string" && Array.isArray(params) && e.message.startsWith(`Failed query: ${query}\nparams: `);
}

function write(level: Level, msg: string, fields?: Record<string, unknown>): void {
  if (LEVELS[level] < LEVELS[env().LOG_LEVEL]) return;
  const line = JSON.stringify({ level, time: new Date().toISOString(), msg, ...fields }, (_k, v: unknown) => (v instanceof Error ? loggableError(v) : v));
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(`${line}\n`);
}

/** Structured one-line JSON logs. Never log secrets, keys or full phone numbers. */
export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};
