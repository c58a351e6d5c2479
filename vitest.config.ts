import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": import.meta.dirname } },
  test: {
    environment: "node",
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", ".next/**", "e2e/**", ".data/**"],
    globalSetup: ["server/testing/global-setup.ts"],
    setupFiles: ["server/testing/setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Generous request budgets so concurrency tests measure races, not the rate limiter (which has its own tests).
    env: { LOG_LEVEL: "silent", NODE_ENV: "test", BOOTSTRAP_DEMO: "false", RATE_LIMIT_TEST_PER_SECOND: "10000", RATE_LIMIT_LIVE_PER_SECOND: "10000",
      // Live payments to one number are limited to a few a minute; prompt-limit.test.ts sets the real budget.
      PIN_PROMPTS_PER_NUMBER_PER_MINUTE: "100000", PIN_PROMPTS_PER_NUMBER_PER_HOUR: "100000",
      // Webhook receivers in tests listen on 127.0.0.1; the SSRF tests turn this off where they need to.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true",
    },
  },
});
