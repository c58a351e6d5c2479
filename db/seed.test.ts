import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

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

  it("refuses an unknown scope with a clear message", async () => {
    await expect(seed("--json", "--merchant", slug, "--restricted", "payments:delete")).rejects.toMatchObject({
      stderr: expect.stringContaining("Unknown scope(s): payments:delete"),
    });
  });
});
