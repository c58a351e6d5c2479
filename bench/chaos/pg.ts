/**
 * A throwaway PostgreSQL instance for the chaos run: its own data directory and port, so that
 * stopping it with `-m immediate` (a crash) touches nothing else on the machine. As root, the
 * binaries run as `postgres` (initdb refuses root) and the directory belongs to that user.
 */
import { execFile, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

export type Instance = {
  url: string;
  port: number;
  dataDir: string;
  start(): Promise<void>;
  /** `pg_ctl stop -m immediate`: no shutdown checkpoint, every backend killed; recovery on the next start. */
  crash(): Promise<void>;
  /** Stops it (if running) and removes its directory. Safe to call twice. */
  remove(): void;
};

/** The newest /usr/lib/postgresql/<major>/bin, or PG_BIN. */
export function pgBin(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = "/usr/lib/postgresql";
  const majors = existsSync(root) ? readdirSync(root).filter((d) => /^\d+$/.test(d)).map(Number).sort((a, b) => b - a) : [];
  for (const m of majors) if (existsSync(path.join(root, String(m), "bin", "pg_ctl"))) return path.join(root, String(m), "bin");
  throw new Error(`no PostgreSQL binaries under ${root} (set PG_BIN)`);
}

export function createInstance(port: number): Instance {
  const bin = pgBin();
  const root = process.getuid?.() === 0;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "mari-chaos-pg-"));
  const owner = root ? userIds("postgres") : undefined;
  if (owner) chownSync(dataDir, owner.uid, owner.gid);
  const logFile = path.join(dataDir, "server.log");
  const pgdata = path.join(dataDir, "data");

  const argv = (tool: string, args: string[]) => (root ? ["runuser", "-u", "postgres", "--", path.join(bin, tool), ...args] : [path.join(bin, tool), ...args]);
  const run = (tool: string, args: string[], allowFail = false) => {
    const [cmd, ...rest] = argv(tool, args);
    const r = spawnSync(cmd!, rest, { encoding: "utf8", cwd: dataDir });
    if (r.status !== 0 && !allowFail) throw new Error(`${tool} ${args.join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
    return r;
  };
  // Asynchronous while the run goes on: the clients in this process must not stall meanwhile.
  const runAsync = (tool: string, args: string[]) =>
    new Promise<void>((resolve, reject) => {
      const [cmd, ...rest] = argv(tool, args);
      execFile(cmd!, rest, { cwd: dataDir }, (error, stdout, stderr) =>
        error ? reject(new Error(`${tool} ${args.join(" ")} failed: ${error.message}\n${stdout}\n${stderr}`)) : resolve(),
      );
    });

  try {
    run("initdb", ["-D", pgdata, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync"]);
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  // Local, throwaway and crashed on purpose: durable commits (fsync on) are what the crash tests.
  writeFileSync(
    path.join(pgdata, "postgresql.auto.conf"),
    [`port = ${port}`, "listen_addresses = '127.0.0.1'", "unix_socket_directories = ''", "max_connections = 200", "shared_buffers = 128MB", ""].join("\n"),
  );
  if (owner) chownSync(path.join(pgdata, "postgresql.auto.conf"), owner.uid, owner.gid);

  let running = false;
  let removed = false;
  const instance: Instance = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dataDir,
    async start() {
      running = true;
      await runAsync("pg_ctl", ["-D", pgdata, "-l", logFile, "-w", "-t", "60", "start"]);
    },
    async crash() {
      await runAsync("pg_ctl", ["-D", pgdata, "-m", "immediate", "-w", "stop"]);
      running = false;
    },
    remove() {
      if (removed) return;
      removed = true;
      if (running || existsSync(path.join(pgdata, "postmaster.pid"))) run("pg_ctl", ["-D", pgdata, "-m", "immediate", "-w", "stop"], true);
      running = false;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return instance;
}

function userIds(name: string): { uid: number; gid: number } {
  const r = spawnSync("id", ["-u", name], { encoding: "utf8" });
  const g = spawnSync("id", ["-g", name], { encoding: "utf8" });
  if (r.status !== 0 || g.status !== 0) throw new Error(`user ${name} not found: running as root, the instance must run as ${name}`);
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) };
}
