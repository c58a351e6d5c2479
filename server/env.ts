import { z } from "zod";
import { parseDataKey } from "./domain/sealing";
import { REFUND_SUBMIT_LEASE_S } from "./domain/refund-schedule";

/**
 * The one place that reads `process.env`. Everything else imports `env()`.
 * Parsed once, lazily, so scripts and tests can set variables before first use.
 */
/** `true`/`1` or `false`/`0`; unset (or empty: see env()): undefined, for a default that depends on other settings. */
const FLAG_VALUES = ["true", "false", "1", "0"] as const;
const flag = z
  .enum(FLAG_VALUES)
  .optional()
  .transform((v) => (v === undefined ? undefined : v === "true" || v === "1"));
const bool = (fallback: boolean) => flag.transform((v) => v ?? fallback);

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** A provider call's longest wait: ten seconds short of the refund submission's lease. */
const PROVIDER_TIMEOUT_MAX_MS = REFUND_SUBMIT_LEASE_S * 1000 - 10_000;
/** What a create does besides the push (its reads and writes), within the lock on its key. */
const LOCK_MARGIN_MS = 1_000;

const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  /** Runtime Next.js is compiling for; only instrumentation cares. */
  NEXT_RUNTIME: z.string().optional(),
  /** PostgreSQL connection string. Unset → the embedded PGlite database under PGLITE_DIR. */
  DATABASE_URL: z.string().url().optional(),
  /**
   * Connections per app instance. 10, not more: on a 2-core machine creates ran 15–20% faster
   * with 10 than with 20 (fewer backends contending for the cores, more queries sharing a
   * socket write), and every instance also holds a quarter as many for searches and one for
   * LISTEN, all out of PostgreSQL's max_connections (100 by default).
   */
  DATABASE_POOL_MAX: positiveInt(10),
  PGLITE_DIR: z.string().default(".data/pglite"),
  /** Redis for shared rate-limit counters across instances. Unset → in-memory counters. */
  REDIS_URL: z.string().url().optional(),
  /**
   * Public origin used to build URLs returned by the API (checkout, payment links). Unset →
   * http://localhost on the port the server listens on (`next start -p` and `next dev -p` set PORT).
   */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /**
   * The origin Inngest is told to call /api/inngest on when the app is synced (the SDK's own
   * variable). Unset → PUBLIC_BASE_URL when set, so that a sync never names the origin a request's
   * Host header claims; with neither, the SDK takes it from the request.
   */
  INNGEST_SERVE_ORIGIN: z.string().url().optional(),
  PORT: z.coerce.number().int().positive().optional(),
  /** How long a valid API key is remembered in process (0 = ask the database every time). */
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(5_000),
  /** Requests per second allowed per API key. */
  RATE_LIMIT_TEST_PER_SECOND: positiveInt(25),
  RATE_LIMIT_LIVE_PER_SECOND: positiveInt(100),
  /** PIN prompts allowed to one phone number (live mode, across all merchants) per minute and per hour. */
  PIN_PROMPTS_PER_NUMBER_PER_MINUTE: positiveInt(3),
  PIN_PROMPTS_PER_NUMBER_PER_HOUR: positiveInt(10),
  /** New payments one test-mode payment link or checkout session takes per minute, from every payer together. */
  TEST_PAGE_PAYMENTS_PER_MINUTE: positiveInt(30),
  /**
   * New payments started on payment link and checkout pages (live and test, every merchant's) from
   * one client address per minute; counted only where the address is known (TRUSTED_PROXY_HOPS).
   */
  PAGE_PAYMENTS_PER_ADDRESS_PER_MINUTE: positiveInt(20),
  /** /v1 requests with a missing or invalid API key from one client address per minute (TRUSTED_PROXY_HOPS); past it, 429 until the minute ends. */
  API_KEY_FAILURES_PER_ADDRESS_PER_MINUTE: positiveInt(60),
  /** A request holding an idempotency key longer than this is presumed crashed and may be taken over. */
  IDEMPOTENCY_LOCK_TIMEOUT_MS: positiveInt(15_000),
  /**
   * How long the wallet provider gets to accept a PIN prompt (or a refund) before the payment is
   * `unknown`. Well inside the 30 s for which a refund's submission is left to the request that
   * made it: a call still running past that would be sent again beside it.
   */
  PROVIDER_PUSH_TIMEOUT_MS: positiveInt(8_000).refine((ms) => ms <= PROVIDER_TIMEOUT_MAX_MS, {
    error: `must be at most ${PROVIDER_TIMEOUT_MAX_MS} (a provider call must end well inside the ${REFUND_SUBMIT_LEASE_S} s a refund's submission is left to its request)`,
  }),
  /** Create the demo merchant and print its credentials on first start. Default: on for the embedded database. */
  BOOTSTRAP_DEMO: flag,
  /** Exposes /api/bench/* floor routes used by `npm run bench`. Never on in production. */
  BENCH_ROUTES: bool(false),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: flag,
  /** Shared secret the sandbox wallet signs its callbacks with. */
  // Unset: made from the data key (server/providers/registry.ts), so it is never a published value.
  SANDBOX_CALLBACK_SECRET: z.string().min(16).optional(),
  /** Scales the sandbox's answer delays (1 = real-life seconds); tests make it small. */
  SANDBOX_DELAY_SCALE: z.coerce.number().min(0).default(1),
  /**
   * Inngest runs durable work when it can: with both keys (Inngest Cloud, or a self-hosted
   * `inngest start` at INNGEST_BASE_URL), or with INNGEST_DEV (a dev server). Otherwise the local runner.
   */
  INNGEST_EVENT_KEY: z.string().min(1).optional(),
  INNGEST_SIGNING_KEY: z.string().min(1).optional(),
  INNGEST_BASE_URL: z.string().url().optional(),
  /** `1`: a dev server at its default address (or at INNGEST_BASE_URL); a URL: the dev server there, as the SDK reads it. */
  INNGEST_DEV: z
    .string()
    .refine((v) => flag.safeParse(v).success || (/^https?:\/\//.test(v) && URL.canParse(v)), "must be 1, 0, true, false or the dev server's URL")
    .optional()
    .transform((v): boolean | string => {
      const set = flag.safeParse(v);
      return set.success ? (set.data ?? false) : v!;
    }),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /**
   * Signs the dashboard's session cookies (next-auth). Required with DATABASE_URL, where every
   * instance must share it; on the embedded default one is made once and kept in `.data/auth-secret`.
   */
  NEXTAUTH_SECRET: z.string().min(32, "NEXTAUTH_SECRET must be at least 32 characters").optional(),
  /** The dashboard's public origin + /api/auth, for next-auth behind a proxy (next-auth reads it too). */
  NEXTAUTH_URL: z.string().url().optional(),
  /**
   * Seals stored secrets (webhook signing secrets) with AES-256-GCM: 32 bytes as 64 hex digits or
   * base64. Every instance on one database needs the same key. Unset → a key file in `.data/`.
   */
  DATA_ENCRYPTION_KEY: z
    .string()
    .refine((v) => parseDataKey(v) !== null, "DATA_ENCRYPTION_KEY must be 32 bytes, as 64 hex digits or base64")
    .optional(),
  /** How long a dashboard sign-in lasts. */
  SESSION_MAX_AGE_HOURS: positiveInt(8),
  /** Sign-in attempts allowed per e-mail address in 15 minutes (a success clears them); per client address, ten times this. */
  SIGN_IN_ATTEMPTS_PER_15_MIN: positiveInt(10),
  /**
   * How many proxies of yours stand in front of Mari and append to X-Forwarded-For. 0: the header
   * is not trusted (anyone can write it), so sign-in attempts are counted per e-mail address only.
   */
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
}).superRefine((d, ctx) => {
  // A create holds its key through the provider's push: a lock that could run out first lets a
  // retry take over a request still waiting on the provider, and push beside it.
  if (d.IDEMPOTENCY_LOCK_TIMEOUT_MS < d.PROVIDER_PUSH_TIMEOUT_MS + LOCK_MARGIN_MS) {
    ctx.addIssue({
      code: "custom",
      path: ["IDEMPOTENCY_LOCK_TIMEOUT_MS"],
      message: `must be at least PROVIDER_PUSH_TIMEOUT_MS + ${LOCK_MARGIN_MS} (${d.PROVIDER_PUSH_TIMEOUT_MS + LOCK_MARGIN_MS}): a request still waiting on the provider would be taken over`,
    });
  }
  // Half an Inngest configuration would start no local runner and run nothing on Inngest either:
  // every timer (expiries, retries) would stop. Refused at start instead.
  const keys = [d.INNGEST_EVENT_KEY, d.INNGEST_SIGNING_KEY].filter(Boolean).length;
  if (keys === 1) {
    const missing = d.INNGEST_EVENT_KEY ? "INNGEST_SIGNING_KEY" : "INNGEST_EVENT_KEY";
    ctx.addIssue({ code: "custom", path: [missing], message: "INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY go together: set both, or neither for the local runner" });
  } else if (keys === 0 && d.INNGEST_BASE_URL && !d.INNGEST_DEV) {
    ctx.addIssue({
      code: "custom",
      path: ["INNGEST_BASE_URL"],
      message: "needs INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY (a self-hosted inngest start), or INNGEST_DEV=1 (a dev server there)",
    });
  }
});

export type Env = Omit<z.infer<typeof schema>, "BOOTSTRAP_DEMO" | "WEBHOOK_ALLOW_PRIVATE_NETWORKS"> & {
  PUBLIC_BASE_URL: string;
  embedded: boolean;
  jobDriver: "inngest" | "local";
  /** Where Inngest calls the functions (INNGEST_SERVE_ORIGIN, else an explicit PUBLIC_BASE_URL). */
  inngestServeOrigin: string | undefined;
  /** Default: on for the embedded database (a developer's laptop), off with DATABASE_URL. */
  BOOTSTRAP_DEMO: boolean;
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: boolean;
};

let cached: Env | undefined;

export function env(): Env {
  if (cached) return cached;
  // A variable set to nothing (`PGLITE_DIR=` in a .env file or a shell) is unset, as most tools read
  // it: an empty PGLITE_DIR would otherwise put the database in the working directory.
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== "")));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  const embedded = parsed.data.DATABASE_URL === undefined;
  const d = parsed.data;
  cached = {
    ...d,
    PUBLIC_BASE_URL: d.PUBLIC_BASE_URL ?? `http://localhost:${d.PORT ?? 3000}`,
    embedded,
    jobDriver: (d.INNGEST_EVENT_KEY && d.INNGEST_SIGNING_KEY) || d.INNGEST_DEV ? "inngest" : "local",
    inngestServeOrigin: d.INNGEST_SERVE_ORIGIN ?? d.PUBLIC_BASE_URL,
    // The embedded default is a developer's laptop: demo data on, webhooks to localhost allowed.
    BOOTSTRAP_DEMO: d.BOOTSTRAP_DEMO ?? embedded,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: d.WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? embedded,
  };
  return cached;
}

/** Tests only: forget the parsed configuration so changed variables take effect. */
export function resetEnvForTests(): void {
  cached = undefined;
}
