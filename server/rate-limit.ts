import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { env } from "@/server/env";
import type { LoginKey } from "@/server/domain/staff";
import { log } from "@/server/log";

type Limiters = {
  test: RateLimiterAbstract;
  live: RateLimiterAbstract;
  signIn: RateLimiterAbstract;
  signInByAddress: RateLimiterAbstract;
  signInKnown: RateLimiterAbstract;
  promptsPerMinute: RateLimiterAbstract;
  promptsPerHour: RateLimiterAbstract;
  testPagePayments: RateLimiterAbstract;
  pagePaymentsByAddress: RateLimiterAbstract;
  keyFailuresByAddress: RateLimiterAbstract;
};

/** How long a request waits on Redis for its count before the in-memory limiter counts instead. */
const REDIS_COMMAND_TIMEOUT_MS = 250;

const holder = globalThis as unknown as { __mariLimiters?: Promise<Limiters> };

/** This process's limiters, built on first use. */
const limiters = (): Promise<Limiters> => (holder.__mariLimiters ??= build());

/** Counters in memory, or in Redis when REDIS_URL is set (shared by every instance). */
async function build(): Promise<Limiters> {
  const { REDIS_URL, RATE_LIMIT_TEST_PER_SECOND, RATE_LIMIT_LIVE_PER_SECOND, SIGN_IN_ATTEMPTS_PER_15_MIN, PIN_PROMPTS_PER_NUMBER_PER_MINUTE, PIN_PROMPTS_PER_NUMBER_PER_HOUR, TEST_PAGE_PAYMENTS_PER_MINUTE, PAGE_PAYMENTS_PER_ADDRESS_PER_MINUTE, API_KEY_FAILURES_PER_ADDRESS_PER_MINUTE } =
    env();
  const memory = (keyPrefix: string, points: number, duration: number) => new RateLimiterMemory({ points, duration, keyPrefix });
  let make: (keyPrefix: string, points: number, duration: number) => RateLimiterAbstract = memory;
  if (REDIS_URL) {
    const { Redis } = await import("ioredis");
    // Fail fast rather than queue: when Redis is away, the in-memory insurance limiter answers.
    // So it does when Redis is connected but does not answer (stalled, or its packets dropped):
    // without a command timeout every request would wait on it for as long as the socket stays open.
    const client = new Redis(REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false, commandTimeout: REDIS_COMMAND_TIMEOUT_MS });
    client.on("error", (e: Error) => log.warn("rate-limit redis error", { error: e.message }));
    // Until it connects, every command fails over to the in-memory insurance limiter, and counts
    // made there are lost once Redis answers: a fresh process would allow a budget twice over.
    await readyOrTimeout(client, 2_000);
    make = (keyPrefix, points, duration) =>
      new RateLimiterRedis({ storeClient: client, points, duration, keyPrefix, insuranceLimiter: memory(keyPrefix, points, duration) });
  }
  return {
    test: make("mari:rl", RATE_LIMIT_TEST_PER_SECOND, 1),
    live: make("mari:rl", RATE_LIMIT_LIVE_PER_SECOND, 1),
    signIn: make("mari:signin", SIGN_IN_ATTEMPTS_PER_15_MIN, 15 * 60),
    // An office or a mobile network puts many people behind one address.
    signInByAddress: make("mari:signin-ip", SIGN_IN_ATTEMPTS_PER_15_MIN * 10, 15 * 60),
    // A browser the member signed in on before, or their own session: a budget of its own.
    signInKnown: make("mari:signin-known", SIGN_IN_ATTEMPTS_PER_15_MIN, 15 * 60),
    promptsPerMinute: make("mari:prompt-1m", PIN_PROMPTS_PER_NUMBER_PER_MINUTE, 60),
    promptsPerHour: make("mari:prompt-1h", PIN_PROMPTS_PER_NUMBER_PER_HOUR, 60 * 60),
    testPagePayments: make("mari:test-page", TEST_PAGE_PAYMENTS_PER_MINUTE, 60),
    pagePaymentsByAddress: make("mari:page-ip", PAGE_PAYMENTS_PER_ADDRESS_PER_MINUTE, 60),
    keyFailuresByAddress: make("mari:key-fail-ip", API_KEY_FAILURES_PER_ADDRESS_PER_MINUTE, 60),
  };
}

function readyOrTimeout(client: import("ioredis").Redis, ms: number): Promise<void> {
  if (client.status === "ready") return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    client.once("ready", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

type Verdict = { ok: true } | { ok: false; retryAfterSeconds: number };

/** Whole seconds until a spent budget takes one more (Retry-After): 1 at least. */
const retryAfter = (state: RateLimiterRes): number => Math.max(1, Math.ceil(state.msBeforeNext / 1000));

async function consume(pick: (l: Limiters) => RateLimiterAbstract, key: string): Promise<Verdict> {
  const all = await limiters();
  try {
    await pick(all).consume(key);
    return { ok: true };
  } catch (e) {
    if (e instanceof RateLimiterRes) return { ok: false, retryAfterSeconds: retryAfter(e) };
    throw e;
  }
}

/** Takes one request from a key's per-second budget; returns seconds to wait when it is spent. */
export const consumeRateLimit = (keyId: string, livemode: boolean): Promise<Verdict> => consume((l) => (livemode ? l.live : l.test), keyId);

/**
 * One PIN prompt to a phone number, whichever merchant asks: a few a minute at most, so that no
 * one (a merchant's bug, or anyone holding a payment link) can flood a customer's phone with
 * prompts. A prompt spends both budgets or neither: the hour's is only spent by prompts the
 * minute's allows, and one the hour's refuses gives the minute's back. A refusal waits for the
 * later of the two when both are spent, so that a retry after it is not refused again.
 */
export async function consumePinPrompt(msisdn: string): Promise<Verdict> {
  const minute = await consume((l) => l.promptsPerMinute, msisdn);
  if (!minute.ok) return { ok: false, retryAfterSeconds: Math.max(minute.retryAfterSeconds, await secondsUntilFree((l) => l.promptsPerHour, msisdn)) };
  const hour = await consume((l) => l.promptsPerHour, msisdn);
  if (!hour.ok) await (await limiters()).promptsPerMinute.reward(msisdn, 1);
  return hour;
}

/** Seconds until a spent budget takes one more; 0 when it takes one now. */
async function secondsUntilFree(pick: (l: Limiters) => RateLimiterAbstract, key: string): Promise<number> {
  const limiter = pick(await limiters());
  const state = await limiter.get(key);
  return state && state.consumedPoints >= limiter.points && state.msBeforeNext > 0 ? retryAfter(state) : 0;
}

/** Gives back a prompt that consumePinPrompt counted but that was never sent. */
export async function returnPinPrompt(msisdn: string): Promise<void> {
  const all = await limiters();
  await Promise.all([all.promptsPerMinute.reward(msisdn, 1), all.promptsPerHour.reward(msisdn, 1)]);
}

/**
 * One new payment through a test-mode payment link or checkout session (`originId`), whoever pays:
 * such a page takes payments from anyone holding its address, without a key, and its sandbox
 * prompts are not counted by number (consumePinPrompt is for live ones), so this is what keeps it
 * from making a merchant's test payments, and their webhooks, without end.
 */
export const consumeTestPagePayment = (originId: string): Promise<Verdict> => consume((l) => l.testPagePayments, originId);

/** Gives back a test page's payment that consumeTestPagePayment counted but that was never made. */
export async function returnTestPagePayment(originId: string): Promise<void> {
  await (await limiters()).testPagePayments.reward(originId, 1);
}

/**
 * One new payment started on a link's or a session's page from a client address (known only behind
 * TRUSTED_PROXY_HOPS), whichever page and merchant: those pages take payments without a key, and a
 * live one prompts any number typed into it (each number is held to a few a minute, but not the
 * count of numbers), so this is what keeps one source from prompting phone after phone. Generous,
 * since a mobile network puts many customers behind one address.
 */
export const consumePagePaymentByAddress = (clientAddress: string): Promise<Verdict> => consume((l) => l.pagePaymentsByAddress, clientAddress);

/** Gives back a page payment that consumePagePaymentByAddress counted but that was never made. */
export async function returnPagePaymentByAddress(clientAddress: string): Promise<void> {
  await (await limiters()).pagePaymentsByAddress.reward(clientAddress, 1);
}

/**
 * Seconds until a client address may present an API key again: 0 while it has failures left this
 * minute. Asked before the key is looked up, so that a flood of made-up keys from one address
 * stops reaching the database (a key is 160 random bits: the flood can only cost, never guess).
 */
export const keyFailuresWait = (clientAddress: string): Promise<number> => secondsUntilFree((l) => l.keyFailuresByAddress, clientAddress);

/** A request from `clientAddress` whose key was missing, malformed, unknown or revoked. */
export async function countKeyFailure(clientAddress: string): Promise<void> {
  await consume((l) => l.keyFailuresByAddress, clientAddress);
}

/**
 * One password guess for a login (`loginKey`: a business and an e-mail address), at sign-in or
 * when a signed-in member confirms their password. From a browser not known to the member it is
 * counted against the login (guessing one account) and the client's address when known (trying
 * many from one place, with ten times the budget): refused when either is spent. From a browser
 * known to the member (`known`: the device cookie of an earlier sign-in to this login, or the
 * member's own session) it spends that browser's own budget instead, so a flood of guesses from
 * elsewhere cannot lock the member out of the browsers they use; each such browser still gets only
 * the same few guesses.
 */
export async function consumeSignInAttempt(login: LoginKey, clientAddress: string | null, known: string | null = null): Promise<Verdict> {
  const first = known ? await consume((l) => l.signInKnown, known) : await consume((l) => l.signIn, login);
  if (!first.ok || !clientAddress) return first;
  return consume((l) => l.signInByAddress, clientAddress);
}

/** After a right password: earlier failures on this login, and on the known browser it came from, no longer count. */
export async function forgetSignInFailures(login: LoginKey, known: string | null = null): Promise<void> {
  const all = await limiters();
  await Promise.all([all.signIn.delete(login), known ? all.signInKnown.delete(known) : null]);
}

/** Tests: rebuild limiters after changing the configured budget. */
export function resetRateLimitersForTests(): void {
  holder.__mariLimiters = undefined;
}
