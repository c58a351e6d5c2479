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
    env: { LOG_LEVEL: "silent", NODE_ENV: "test", BOOTSTRAP_DEMO: "false" },
  },
});
