import { afterEach, describe, expect, it } from "vitest";
import { env } from "./env";
import { setEnv } from "./testing/env";

describe("env", () => {
  let restore: (() => void) | undefined;
  afterEach(() => restore?.());

  it("builds the public origin from the port the server listens on when none is given", () => {
    restore = setEnv({ PUBLIC_BASE_URL: undefined, PORT: "3055" });
    expect(env().PUBLIC_BASE_URL).toBe("http://localhost:3055");
  });

  it("defaults to port 3000, and a given origin wins over the port", () => {
    restore = setEnv({ PUBLIC_BASE_URL: undefined, PORT: undefined });
    expect(env().PUBLIC_BASE_URL).toBe("http://localhost:3000");
    restore();
    restore = setEnv({ PUBLIC_BASE_URL: "https://pay.example.test", PORT: "3055" });
    expect(env().PUBLIC_BASE_URL).toBe("https://pay.example.test");
  });

  it("reads a variable set to nothing as unset: its default, not an empty value", () => {
    restore = setEnv({ PGLITE_DIR: "", DATABASE_URL: "", PUBLIC_BASE_URL: "", PORT: "3055", RATE_LIMIT_TEST_PER_SECOND: "", RATE_LIMIT_LIVE_PER_SECOND: "" });
    expect(env()).toMatchObject({ PGLITE_DIR: ".data/pglite", embedded: true, PUBLIC_BASE_URL: "http://localhost:3055", RATE_LIMIT_TEST_PER_SECOND: 25, RATE_LIMIT_LIVE_PER_SECOND: 100 });
    expect(env().DATABASE_URL).toBeUndefined();
  });

  describe("who runs the durable work", () => {
    const none = { INNGEST_EVENT_KEY: undefined, INNGEST_SIGNING_KEY: undefined, INNGEST_BASE_URL: undefined, INNGEST_DEV: undefined };

    it("the local runner unless Inngest can run it: both keys, or a dev server", () => {
      restore = setEnv(none);
      expect(env().jobDriver).toBe("local");
      restore();
      restore = setEnv({ ...none, INNGEST_EVENT_KEY: "evt", INNGEST_SIGNING_KEY: "signkey-prod-01" });
      expect(env().jobDriver).toBe("inngest");
      restore();
      restore = setEnv({ ...none, INNGEST_EVENT_KEY: "evt", INNGEST_SIGNING_KEY: "signkey-prod-01", INNGEST_BASE_URL: "http://inngest.internal:8288" });
      expect(env().jobDriver).toBe("inngest");
      restore();
      restore = setEnv({ ...none, INNGEST_DEV: "1" });
      expect(env()).toMatchObject({ jobDriver: "inngest", INNGEST_DEV: true });
      restore();
      restore = setEnv({ ...none, INNGEST_DEV: "0" });
      expect(env()).toMatchObject({ jobDriver: "local", INNGEST_DEV: false });
    });

    it("takes INNGEST_DEV as the dev server's URL, as the SDK documents it", () => {
      restore = setEnv({ ...none, INNGEST_DEV: "http://inngest-dev:8288" });
      expect(env()).toMatchObject({ jobDriver: "inngest", INNGEST_DEV: "http://inngest-dev:8288" });
    });

    it.each([
      [{ INNGEST_EVENT_KEY: "evt" }, /INNGEST_SIGNING_KEY: INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY go together/],
      [{ INNGEST_SIGNING_KEY: "signkey-prod-01" }, /INNGEST_EVENT_KEY: INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY go together/],
      [{ INNGEST_BASE_URL: "http://inngest.internal:8288" }, /INNGEST_BASE_URL: needs INNGEST_EVENT_KEY and INNGEST_SIGNING_KEY/],
      [{ INNGEST_DEV: "yes" }, /INNGEST_DEV: must be 1, 0, true, false or the dev server's URL/],
    ])("refuses half a configuration, which would run no timer anywhere: %o", (vars, message) => {
      restore = setEnv({ ...none, ...vars });
      expect(() => env()).toThrow(message);
    });
  });

  it("reads 0 and 1 as false and true in the settings whose default follows the database", () => {
    const cases: [Record<string, string | undefined>, boolean, boolean][] = [
      [{ DATABASE_URL: undefined }, true, true],
      [{ DATABASE_URL: undefined, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "0", BOOTSTRAP_DEMO: "0" }, false, false],
      [{ DATABASE_URL: undefined, WEBHOOK_ALLOW_PRIVATE_NETWORKS: "false", BOOTSTRAP_DEMO: "false" }, false, false],
      [{ DATABASE_URL: "postgres://db.internal/mari" }, false, false],
      [{ DATABASE_URL: "postgres://db.internal/mari", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "1", BOOTSTRAP_DEMO: "1" }, true, true],
      [{ DATABASE_URL: "postgres://db.internal/mari", WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", BOOTSTRAP_DEMO: "true" }, true, true],
    ];
    for (const [vars, privateNetworks, demo] of cases) {
      restore = setEnv({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: undefined, BOOTSTRAP_DEMO: undefined, ...vars });
      expect({ vars, privateNetworks: env().WEBHOOK_ALLOW_PRIVATE_NETWORKS, demo: env().BOOTSTRAP_DEMO }).toEqual({ vars, privateNetworks, demo });
      restore();
      restore = undefined;
    }
  });

  it("refuses a provider timeout that would outlast the lease of a refund's submission (it would be sent again beside itself)", () => {
    restore = setEnv({ PROVIDER_PUSH_TIMEOUT_MS: "20000", IDEMPOTENCY_LOCK_TIMEOUT_MS: "21000" });
    expect(env().PROVIDER_PUSH_TIMEOUT_MS).toBe(20_000);
    restore();
    restore = setEnv({ PROVIDER_PUSH_TIMEOUT_MS: "45000" });
    expect(() => env()).toThrow(/PROVIDER_PUSH_TIMEOUT_MS/);
  });

  it("refuses an idempotency lock that could run out while a create waits on the provider's push", () => {
    restore = setEnv({ PROVIDER_PUSH_TIMEOUT_MS: "20000" });
    expect(() => env()).toThrow(/IDEMPOTENCY_LOCK_TIMEOUT_MS.*at least PROVIDER_PUSH_TIMEOUT_MS \+ 1000 \(21000\)/);
    restore();
    restore = setEnv({ IDEMPOTENCY_LOCK_TIMEOUT_MS: "8000" });
    expect(() => env()).toThrow(/IDEMPOTENCY_LOCK_TIMEOUT_MS/);
    restore();
    restore = setEnv({ IDEMPOTENCY_LOCK_TIMEOUT_MS: "9000" });
    expect(env().IDEMPOTENCY_LOCK_TIMEOUT_MS).toBe(9_000);
  });

  it("refuses a port that is not a number, naming it", () => {
    restore = setEnv({ PORT: "eighty" });
    expect(() => env()).toThrow(/PORT/);
  });
});
