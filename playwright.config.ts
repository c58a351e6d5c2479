import { existsSync } from "node:fs";
import { defineConfig, devices } from "@playwright/test";

/**
 * End-to-end tests against the PRODUCTION build (`next start`) on port 3100.
 * The server is started by e2e/support/start-server.mjs, which seeds a merchant first (see there).
 *
 * Browsers: Playwright cannot download its own here, so Debian's Chromium is used
 * (CHROMIUM_PATH, else /usr/bin/chromium when present, else Playwright's own browser).
 */
const PORT = Number(process.env.E2E_PORT ?? 3100);
const BASE_URL = `http://127.0.0.1:${PORT}`;
const CI = Boolean(process.env.CI);

function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return existsSync("/usr/bin/chromium") ? "/usr/bin/chromium" : undefined;
}

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  fullyParallel: false,
  forbidOnly: CI,
  // No retries: a test that passes only on a second try is a flaky test to fix, not a pass.
  retries: 0,
  workers: CI ? 2 : undefined,
  // What a test proves is not how fast it runs (speed is the benchmarks' job): on CI's two cores,
  // shared by the server, PostgreSQL and two workers' browsers, every step of a dashboard test
  // took twice its quiet-machine time in some runs (a field's fill 1.6–2.2 s, a new page 1–5 s),
  // and tests of 20 s there reached 30. On a slower machine of that size, whose whole run took
  // 1.7 times as long, adding a team member (two scrypt hashes of 128 MiB, 0.7 s each on one of
  // its idle cores, then queued behind the other worker's sign-ins) answered in 9.5 s.
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: [
    ["list"],
    ["json", { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_FILE ?? "playwright-report/e2e.json" }],
  ],
  use: {
    baseURL: BASE_URL,
    trace: "retain-on-failure",
    launchOptions: {
      executablePath: chromiumPath(),
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-quic",
      ],
    },
  },
  projects: [
    // HTTP only (the `request` fixture): no browser is launched.
    { name: "api", testMatch: "api/**/*.spec.ts" },
    // The hosted pages, in a phone-sized Chromium (Debian's, see launchOptions).
    { name: "checkout", testMatch: "checkout/**/*.spec.ts", use: { ...devices["Pixel 7"] } },
    // The dashboard: one sign-in (the setup project), its session reused by every test.
    { name: "dashboard-sign-in", testMatch: "dashboard/sign-in.setup.ts", use: { ...devices["Desktop Chrome"] } },
    {
      name: "dashboard",
      testMatch: "dashboard/**/*.spec.ts",
      dependencies: ["dashboard-sign-in"],
      use: { ...devices["Desktop Chrome"], storageState: "e2e/.auth/staff.json" },
    },
  ],
  webServer: {
    command: "node e2e/support/start-server.mjs",
    url: `${BASE_URL}/api/health`,
    env: { E2E_PORT: String(PORT) },
    // A run seeds its own merchant; reusing a server would pair it with another run's seed file.
    reuseExistingServer: !CI,
    // Seeding takes ~5 s; a missing build adds a `next build`.
    timeout: 240_000,
    stdout: "pipe",
    stderr: "pipe",
    gracefulShutdown: { signal: "SIGTERM", timeout: 10_000 },
  },
});
