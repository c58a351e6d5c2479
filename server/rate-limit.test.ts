import { createServer, type AddressInfo, type Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { consumePinPrompt, consumeRateLimit, resetRateLimitersForTests } from "@/server/rate-limit";
import { setEnv } from "@/server/testing/env";

/**
 * A Redis that answers until told to fall silent: its connection stays open, its commands are read
 * and never answered (a stalled server, or a network that drops packets without a reset).
 */
async function stallingRedis() {
  const sockets: Socket[] = [];
  let silent = false;
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on("data", (data) => {
      if (silent) return;
      // Each command is a RESP array whose first element names it; INFO (the ready check) wants a bulk string.
      for (const [, name] of data.toString().matchAll(/\*\d+\r\n\$\d+\r\n([^\r]*)\r\n/g)) {
        const info = "redis_version:7.2.0\r\nloading:0\r\n";
        socket.write(/^info$/i.test(name!) ? `$${info.length}\r\n${info}\r\n` : `*2\r\n:1\r\n:1000\r\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fallSilent: () => (silent = true),
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

const within = <T>(ms: number, promise: Promise<T>) =>
  Promise.race([promise, new Promise<"no answer">((resolve) => setTimeout(() => resolve("no answer"), ms))]);

describe("rate limits counted in Redis", () => {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    for (const cleanup of cleanups.splice(0)) cleanup();
    resetRateLimitersForTests();
  });

  it("a Redis that stops answering does not hold requests: the in-memory limiter counts instead, within a moment", async () => {
    const redis = await stallingRedis();
    cleanups.push(redis.close, setEnv({ REDIS_URL: redis.url, PIN_PROMPTS_PER_NUMBER_PER_MINUTE: "1" }));
    resetRateLimitersForTests();
    expect(await within(2_000, consumeRateLimit("key_stall_a", false))).toEqual({ ok: true });

    redis.fallSilent();
    const started = Date.now();
    expect(await within(3_000, consumeRateLimit("key_stall_b", false))).toEqual({ ok: true });
    expect(Date.now() - started).toBeLessThan(1_000);
    // The fallback still limits: one prompt a minute to a number.
    expect(await within(3_000, consumePinPrompt("263771230001"))).toEqual({ ok: true });
    expect(await within(3_000, consumePinPrompt("263771230001"))).toEqual({ ok: false, retryAfterSeconds: expect.any(Number) });
  });
});

describe("PIN prompts per number", () => {
  const number = () => `26377${String(Math.floor(1_000_000 + Math.random() * 8_999_999))}`;
  let restore: () => void = () => {};
  const budget = (perMinute: number, perHour: number) => {
    restore = setEnv({ REDIS_URL: undefined, PIN_PROMPTS_PER_NUMBER_PER_MINUTE: String(perMinute), PIN_PROMPTS_PER_NUMBER_PER_HOUR: String(perHour) });
    resetRateLimitersForTests();
  };
  afterEach(() => {
    vi.useRealTimers();
    restore();
    resetRateLimitersForTests();
  });

  it("with the minute's and the hour's budgets both spent, Retry-After is the hour's wait, not the minute's", async () => {
    budget(3, 3);
    const msisdn = number();
    for (let i = 0; i < 3; i++) expect(await consumePinPrompt(msisdn)).toEqual({ ok: true });
    const refused = await consumePinPrompt(msisdn);
    // Waiting only the minute out would be refused again, for the rest of the hour.
    expect(refused).toEqual({ ok: false, retryAfterSeconds: expect.any(Number) });
    expect(refused.ok === false && refused.retryAfterSeconds).toBeGreaterThan(60 * 59);
  });

  it("an attempt the hour's budget refuses spends none of the minute's", async () => {
    vi.useFakeTimers();
    budget(2, 2);
    const msisdn = number();
    expect(await consumePinPrompt(msisdn)).toEqual({ ok: true });
    vi.advanceTimersByTime(59.5 * 60_000);
    // The hour's second prompt; the minute's first.
    expect(await consumePinPrompt(msisdn)).toEqual({ ok: true });
    expect(await consumePinPrompt(msisdn)).toMatchObject({ ok: false });
    // The first prompt's hour is over; this minute has seen one prompt, so one more fits.
    vi.advanceTimersByTime(31_000);
    expect(await consumePinPrompt(msisdn)).toEqual({ ok: true });
  });
});
