/** Starts `next start` as our own child (own process group) and stops exactly that group. */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { nextStartArgs } from "./next-start.mjs";

export type Server = { url: string; pid: number; stop(): Promise<void>; output(): string };

export async function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/**
 * BENCH_NODE: another node binary for the server, to compare Node versions under the same load;
 * the load generator stays on the one running the bench.
 */
function serverNode(): string {
  return process.env.BENCH_NODE || process.execPath;
}

/** The report's `node` line: the server's version, and the generator's when it differs. */
export function nodeVersions(): string {
  const server = serverNode() === process.execPath ? process.version : execFileSync(serverNode(), ["--version"], { encoding: "utf8" }).trim();
  return server === process.version ? server : `${server} (the server; the load generator on ${process.version})`;
}

export async function startServer(cwd: string, port: number, env: NodeJS.ProcessEnv): Promise<Server> {
  if (await portInUse(port)) throw new Error(`port ${port} is already in use: stop whatever listens there first (the bench will not touch it)`);
  // BENCH_NODE_ARGS: flags for the server's node, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to
  // see where its time goes (NODE_OPTIONS refuses --cpu-prof).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
  const child: ChildProcess = spawn(serverNode(), nextStartArgs(cwd, port, "127.0.0.1", nodeArgs), {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    // Own process group: stop() signals this group and nothing else.
    detached: true,
  });
  let out = "";
  const keep = (b: Buffer) => {
    out = (out + b.toString()).slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  let exited = false;
  const exitedPromise = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const pid = child.pid!;
  // Whatever ends this process (an exception, process.exit), the server group goes with it.
  const killOnExit = () => {
    if (exited) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
  };
  process.on("exit", killOnExit);
  const url = `http://127.0.0.1:${port}`;

  const stop = async () => {
    if (exited) return;
    const signal = (sig: NodeJS.Signals) => {
      try {
        process.kill(-pid, sig);
      } catch {
        // already gone
      }
    };
    signal("SIGTERM");
    const timer = setTimeout(() => signal("SIGKILL"), 5_000);
    await exitedPromise;
    clearTimeout(timer);
    process.off("exit", killOnExit);
  };

  const deadline = Date.now() + 90_000;
  for (;;) {
    if (exited) throw new Error(`next start exited before it was healthy:\n${out}`);
    try {
      const res = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`next start not healthy after 90 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { url, pid, stop, output: () => out };
}
