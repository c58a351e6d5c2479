import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { nextStartArgs } from "../../bench/next-start.mjs";
import { freePort } from "../support/free-port";
import { bearer } from "../support/seed";
import { fillSignIn } from "./support";

/**
 * The README's first command on a machine with nothing on it: the production server on the
 * embedded database, in a data directory of its own. The first start prints the demo merchant's
 * login and a test key; both work; a second start on the same data prints nothing and they still
 * work. (That a start killed while printing leaves nothing, so the next prints again, is
 * seedMerchant's test.)
 */
test.use({ storageState: { cookies: [], origins: [] } });

type Started = { server: ChildProcess; output: () => string };

/** `next start` on the embedded database in `dataDir`, as a fresh machine's first command runs it. */
function start(dataDir: string, port: number): Started {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: "production", PGLITE_DIR: path.join(dataDir, "pglite"), PUBLIC_BASE_URL: `http://127.0.0.1:${port}` };
  // Nothing of the test run's own server: no PostgreSQL, no Redis, no secrets given, the demo on by default.
  for (const name of ["DATABASE_URL", "REDIS_URL", "NEXTAUTH_SECRET", "DATA_ENCRYPTION_KEY", "BOOTSTRAP_DEMO", "PORT"]) delete env[name];
  const root = path.resolve(import.meta.dirname, "../..");
  const server = spawn(process.execPath, nextStartArgs(root, String(port), "127.0.0.1"), { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  server.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  server.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return { server, output: () => output };
}

async function stop({ server }: Started): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGTERM");
  const forced = setTimeout(() => server.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(forced);
}

test("the first start on the embedded database prints a staff login and a test key that work; a second start prints none", async ({ page, request }) => {
  // Two starts on a new embedded database (its migrations, the seed's password hash) beside the
  // run's own server and another worker: 72 s in all in CI, against 17 s on a quiet machine.
  test.setTimeout(300_000);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mari-first-start-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  let running: Started | undefined;
  try {
    running = start(dataDir, port);
    const first = running;
    await expect.poll(first.output, { timeout: 120_000, message: "the first start's banner" }).toMatch(/curl \S+ -u sk_test_\w+:/);
    const banner = first.output();
    expect(banner).toContain("Mari is ready. Demo merchant created (shown once, keep it):");
    expect(banner).toContain(`dashboard   ${base}/dashboard/sign-in?business=demo`);
    const [, email, password] = /staff {7}business demo, (\S+) \/ (\S+)/.exec(banner) ?? [];
    const key = /test key {4}(sk_test_\w+)/.exec(banner)?.[1];
    expect({ email, password, key }).toEqual({ email: "admin@demo.mari.test", password: expect.any(String), key: expect.any(String) });

    const listed = await request.get(`${base}/v1/payments`, { headers: bearer(key!) });
    expect(listed.status(), await listed.text()).toBe(200);
    await page.goto(`${base}/dashboard/sign-in?business=demo`);
    await fillSignIn(page, email!, password!, "demo");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/dashboard`);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();

    await stop(first);
    running = start(dataDir, port);
    const second = running;
    await expect.poll(async () => (await request.get(`${base}/api/health`).catch(() => null))?.status(), { timeout: 120_000 }).toBe(200);
    expect(second.output()).not.toContain("Mari is ready");
    expect((await request.get(`${base}/v1/payments`, { headers: bearer(key!) })).status()).toBe(200);
  } finally {
    if (running) await stop(running);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
