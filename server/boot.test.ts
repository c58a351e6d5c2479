import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { closeDb, migrateHandle, openPostgres } from "@/db/client";
import { env } from "./env";
import type { LocalRunner } from "./jobs/local-runner";
import { checkHealth } from "./services/health";
import { setEnv } from "./testing/env";

const runnerHolder = globalThis as unknown as { __mariRunner?: LocalRunner };

/** A TCP relay to PostgreSQL that can be off (connections refused, as a database still starting) and then on. */
function relayTo(target: URL) {
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    client.pipe(upstream).pipe(client);
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
  });
  return {
    server,
    /** A port nothing listens on yet. */
    async reserve(): Promise<number> {
      const probe = net.createServer();
      await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
      const { port } = probe.address() as net.AddressInfo;
      await new Promise((resolve) => probe.close(resolve));
      return port;
    },
    on: (port: number) => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve)),
  };
}

async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

// Needs a PostgreSQL server to stand in front of (CI); the embedded database has no network to lose.
// (The body of a skipped describe still runs to collect its tests: nothing here reads the URL before a test does.)
describe.runIf(env().DATABASE_URL)("starting while PostgreSQL does not answer yet", () => {
  const real = () => new URL(env().DATABASE_URL!);
  // A database of its own: once started, the local runner claims due work in the whole database.
  const name = `mari_boot_${process.pid}_${Date.now()}`;
  let admin: URL | undefined;
  let relay: ReturnType<typeof relayTo> | undefined;
  let restore: (() => void) | undefined;

  afterAll(async () => {
    runnerHolder.__mariRunner?.stop();
    runnerHolder.__mariRunner = undefined;
    await closeDb();
    restore?.();
    relay?.server.close();
    if (!admin) return;
    const { default: postgres } = await import("postgres");
    const sql = postgres(admin.href, { max: 1, onnotice: () => {} });
    await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await sql.end();
  });

  it("comes up answering 503 on /api/health, and finishes starting once the database answers", async () => {
    admin = real();
    relay = relayTo(real());
    const { default: postgres } = await import("postgres");
    const sql = postgres(admin.href, { max: 1, onnotice: () => {} });
    await sql.unsafe(`CREATE DATABASE ${name}`);
    await sql.end();
    const own = real();
    own.pathname = `/${name}`;
    const handle = await openPostgres(own.href);
    await migrateHandle(handle);
    await handle.close();

    const port = await relay.reserve();
    const behindRelay = new URL(own);
    behindRelay.port = String(port);
    await closeDb();
    restore = setEnv({ DATABASE_URL: behindRelay.href, BOOTSTRAP_DEMO: "false" });
    runnerHolder.__mariRunner = undefined;
    const { boot } = await import("./boot");

    // Nothing listens: boot returns instead of throwing (which would leave Next answering 500).
    await expect(boot()).resolves.toBeUndefined();
    expect(await checkHealth()).toEqual({ status: "unavailable", database: "unreachable" });
    expect(runnerHolder.__mariRunner).toBeUndefined();

    await relay.on(port);
    expect(await until(() => runnerHolder.__mariRunner !== undefined, 20_000)).toBe(true);
    expect(await checkHealth()).toMatchObject({ status: "ok", database: "ok" });
  });
});
