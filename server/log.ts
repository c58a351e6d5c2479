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

/** A call's arguments as a library logs them: Pino's way `(fields, message, …)` or the console's `(message, …values)`. */
function fromArgs(args: unknown[]): [string, Record<string, unknown>] {
  const [first, second, ...rest] = args;
  const more = (values: unknown[]) => (values.length ? { values } : {});
  if (typeof first === "object" && first !== null && !(first instanceof Error) && typeof second === "string") {
    // Pino's name for an error is `err`; ours is `error`. The line's own level, time and message stand.
    const { err, level: _level, time: _time, msg: _msg, ...fields } = first as Record<string, unknown>;
    return [second, { ...fields, ...(err === undefined ? {} : { error: err }), ...more(rest) }];
  }
  if (typeof first === "string") return [first, more(args.slice(1))];
  if (first instanceof Error) return [first.message, { error: first, ...more(args.slice(1)) }];
  return ["", more(args)];
}

/**
 * The log for a library that takes a logger (Inngest's SDK): each call is one JSON line with the
 * library's name as `source`, its errors kept as every error is (loggableError), at LOG_LEVEL.
 */
export function logFor(source: string): Record<Level, (...args: unknown[]) => void> {
  const at = (level: Level) => (...args: unknown[]) => {
    const [msg, fields] = fromArgs(args);
    write(level, msg, { source, ...fields });
  };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** Structured one-line JSON logs. Never log secrets, keys or full phone numbers. */
export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};
