import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { access, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { staffUsers } from "@/db/schema";
import { verifyPassword } from "@/server/domain/passwords";
import { getDb, openPglite } from "./client";

const run = promisify(execFile);

/** Runs `npm run seed -- …` as a user would (through tsx), against PostgreSQL or a fresh embedded dir. */
describe("npm run seed -- --json", async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), "mari-seed-"));
  const slug = `seed-${randomBytes(4).toString("hex")}`;
  const seed = (...args: string[]) =>
    run(path.resolve("node_modules/.bin/tsx"), ["db/seed.ts", ...args], {
      env: { ...process.env, PGLITE_DIR: dir, LOG_LEVEL: "silent" },
      timeout: 60_000,
    });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("creates the merchant once and prints exactly one JSON object", async () => {
    const first = await seed("--json", "--merchant", slug, "--restricted", "payments:read,refunds:write");
    const lines = first.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]!);
    expect(Object.keys(out).sort()).toEqual(["keys", "merchant_id", "slug", "staff"]);
    expect(out.merchant_id).toMatch(/^mer_/);
    expect(out.slug).toBe(slug);
    expect(out.staff).toEqual({ email: `admin@${slug}.mari.test`, password: expect.any(String) });
    expect(out.keys.test).toMatch(/^sk_test_[0-9a-z]{32}$/);
    expect(out.keys.live).toMatch(/^sk_live_[0-9a-z]{32}$/);
    expect(out.keys.restricted).toMatch(/^rk_test_[0-9a-z]{32}$/);

    const again = JSON.parse((await seed("--json", "--merchant", slug)).stdout);
    expect(again.merchant_id).toBe(out.merchant_id);
    expect(again.staff).toEqual({ email: out.staff.email });
    expect(again.keys.test).not.toBe(out.keys.test);
    expect(again.keys.restricted).toBeUndefined();
  });

  it("through npm itself, stdout is that one JSON object and nothing of npm's", async () => {
    // npm reads the project's .npmrc from the directory it runs in (LOG_LEVEL is the service's own).
    const { stdout } = await run("npm", ["run", "seed", "--", "--json", "--merchant", slug], {
      env: { ...process.env, PGLITE_DIR: dir, LOG_LEVEL: "silent" },
      timeout: 90_000,
    });
    expect(stdout.trim().split("\n")).toHaveLength(1);
    expect(JSON.parse(stdout)).toMatchObject({ slug, keys: { test: expect.stringMatching(/^sk_test_/) } });
  });

  it("--new-password gives the existing admin a new password, which signs in where the old one no longer does", async () => {
    const first = JSON.parse((await seed("--json", "--merchant", `${slug}-pw`)).stdout);
    const renewed = JSON.parse((await seed("--json", "--merchant", `${slug}-pw`, "--new-password")).stdout);
    expect(renewed.staff).toEqual({ email: first.staff.email, password: expect.any(String) });
    expect(renewed.staff.password).not.toBe(first.staff.password);

    // Read back from the database the seed wrote to (the embedded one once the seed has exited).
    const handle = process.env.DATABASE_URL ? { db: await getDb(), close: async () => {} } : await openPglite(dir);
    try {
      const [row] = await handle.db.select().from(staffUsers).where(eq(staffUsers.email, first.staff.email));
      expect(await verifyPassword(renewed.staff.password, row!.passwordHash)).toBe(true);
      expect(await verifyPassword(first.staff.password, row!.passwordHash)).toBe(false);
      expect(row!.sessionsRevokedAt).toBeInstanceOf(Date);
    } finally {
      await handle.close();
    }
  });

  it("refuses to open the embedded database while another process has it open, and leaves it whole", async () => {
    const lockDir = await mkdtemp(path.join(os.tmpdir(), "mari-seed-locked-"));
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
    try {
      await writeFile(path.join(lockDir, "pglite.lock"), String(holder.pid));
      const { DATABASE_URL: _pg, ...embedded } = process.env;
      await expect(
        run(path.resolve("node_modules/.bin/tsx"), ["db/seed.ts", "--json"], { env: { ...embedded, PGLITE_DIR: path.join(lockDir, "pglite"), LOG_LEVEL: "silent" }, timeout: 60_000 }),
      ).rejects.toMatchObject({ stderr: expect.stringContaining(`is open in another process (pid ${holder.pid})`) });
    } finally {
      holder.kill();
      await rm(lockDir, { recursive: true, force: true });
    }
  });

  it("refuses an unknown scope with a clear message, printing nothing on stdout", async () => {
    await expect(seed("--json", "--merchant", slug, "--restricted", "payments:read,payments:delete")).rejects.toMatchObject({
      code: 1,
      stdout: "",
      stderr: expect.stringContaining("Unknown scope(s): payments:delete"),
    });
  });

  it("refuses --restricted without a scope rather than issue no restricted key", async () => {
    await expect(seed("--json", "--merchant", slug, "--restricted", "")).rejects.toMatchObject({
      code: 1,
      stdout: "",
      stderr: expect.stringContaining("--restricted takes one or more scopes"),
    });
  });

  it("refuses a flag it does not know, and a merchant slug it cannot use, before opening the database", async () => {
    const fresh = path.join(dir, "never-opened");
    const inFresh = (...args: string[]) =>
      run(path.resolve("node_modules/.bin/tsx"), ["db/seed.ts", ...args], { env: { ...process.env, PGLITE_DIR: fresh, LOG_LEVEL: "silent" }, timeout: 60_000 });
    await expect(inFresh("--json", "--merchnat", "acme")).rejects.toMatchObject({ code: 1, stdout: "", stderr: expect.stringContaining("Unknown option '--merchnat'") });
    await expect(inFresh("--json", "--merchant", "Acme Foods")).rejects.toMatchObject({ code: 1, stdout: "", stderr: expect.stringContaining("Invalid merchant slug 'Acme Foods'") });
    await expect(access(fresh)).rejects.toMatchObject({ code: "ENOENT" });
  });
});
