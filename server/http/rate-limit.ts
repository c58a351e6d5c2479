import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { env } from "@/server/env";
import { log } from "@/server/log";

type Limiters = { test: RateLimiterAbstract; live: RateLimiterAbstract };

const holder = globalThis as unknown as { __mariLimiters?: Promise<Limiters> };

async function build(): Promise<Limiters> {
  const { REDIS_URL, RATE_LIMIT_TEST_PER_SECOND, RATE_LIMIT_LIVE_PER_SECOND } = env();
  const memory = (points: number) => new RateLimiterMemory({ points, duration: 1, keyPrefix: "mari:rl" });
  if (!REDIS_URL) return { test: memory(RATE_LIMIT_TEST_PER_SECOND), live: memory(RATE_LIMIT_LIVE_PER_SECOND) };

  const { Redis } = await import("ioredis");
  // Fail fast rather than queue: when Redis is away, the in-memory insurance limiter answers.
  const client = new Redis(REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
  client.on("error", (e: Error) => log.warn("rate-limit redis error", { error: e.message }));
  const redis = (points: number) =>
    new RateLimiterRedis({ storeClient: client, points, duration: 1, keyPrefix: "mari:rl", insuranceLimiter: memory(points) });
  return { test: redis(RATE_LIMIT_TEST_PER_SECOND), live: redis(RATE_LIMIT_LIVE_PER_SECOND) };
}

/** Takes one request from a key's per-second budget; returns seconds to wait when it is spent. */
export async function consumeRateLimit(keyId: string, livemode: boolean): Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }> {
  holder.__mariLimiters ??= build();
  const limiters = await holder.__mariLimiters;
  try {
    await (livemode ? limiters.live : limiters.test).consume(keyId);
    return { ok: true };
  } catch (e) {
    if (e instanceof RateLimiterRes) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(e.msBeforeNext / 1000)) };
    throw e;
  }
}

/** Tests: rebuild limiters after changing the configured budget. */
export function resetRateLimitersForTests(): void {
  holder.__mariLimiters = undefined;
}
