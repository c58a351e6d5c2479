/**
 * CPU accounting from /proc (Linux): this machine is shared, so every phase reports how much CPU
 * went to processes that are not part of the benchmark, and phases wait for the machine to be quiet.
 */
import { readdirSync, readFileSync } from "node:fs";
import os from "node:os";

const TICK_MS = 10; // USER_HZ is 100 on Linux

function machineTicks(): { busy: number; total: number } | null {
  try {
    const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
    const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** CPU ticks of a process (all its threads), or of one thread with `tid` (the main thread: tid = pid). */
function processTicks(pid: number, tid?: number): number {
  try {
    const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return 0;
  }
}

/** The pid and all its descendants (next start may fork workers). */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  try {
    for (const e of readdirSync("/proc")) {
      if (!/^\d+$/.test(e)) continue;
      try {
        const stat = readFileSync(`/proc/${e}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        const list = children.get(ppid) ?? [];
        list.push(Number(e));
        children.set(ppid, list);
      } catch {
        // gone
      }
    }
  } catch {
    return [root];
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const p = stack.pop()!;
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}

/**
 * `loop`: the share of one core the server's main thread used, when a window was given the
 * server's pid. Node runs every request and every background job on that one thread, so this is
 * how close the server is to its limit, whatever the other cores do.
 */
export type CpuUse = { seconds: number; coresBusy: number; coresOurs: number; coresOther: number; loop?: number };
export type CpuWindow = { end(ours: () => number[]): CpuUse };

/**
 * Starts a measurement window; `ours` lists the pids that belong to the benchmark at the end;
 * `server`, when given, is the pid of the node process whose main thread `loop` measures.
 */
export function cpuWindow(ours: () => number[], server?: number): CpuWindow {
  const m0 = machineTicks();
  const loop0 = server === undefined ? 0 : processTicks(server, server);
  const pids0 = new Map(ours().map((p) => [p, processTicks(p)]));
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  return {
    end(oursAtEnd) {
      const m1 = machineTicks();
      const seconds = (performance.now() - t0) / 1000;
      let ticks = 0;
      for (const p of new Set([...pids0.keys(), ...oursAtEnd()])) ticks += processTicks(p) - (pids0.get(p) ?? 0);
      const self = process.cpuUsage(self0);
      const oursMs = ticks * TICK_MS + (self.user + self.system) / 1000;
      const busyMs = m0 && m1 ? (m1.busy - m0.busy) * TICK_MS : Number.NaN;
      const coresBusy = busyMs / 1000 / seconds;
      const coresOurs = oursMs / 1000 / seconds;
      const use: CpuUse = { seconds, coresBusy, coresOurs, coresOther: Math.max(0, coresBusy - coresOurs) };
      if (server !== undefined) use.loop = ((processTicks(server, server) - loop0) * TICK_MS) / 1000 / seconds;
      return use;
    },
  };
}

/** Busy fraction of all cores over `ms`. */
export async function machineBusy(ms = 1000): Promise<number> {
  const a = machineTicks();
  await new Promise((r) => setTimeout(r, ms));
  const b = machineTicks();
  if (!a || !b || b.total === a.total) return 0;
  return (b.busy - a.busy) / (b.total - a.total);
}

/** Waits (up to `maxSeconds`) until other work leaves the cores mostly idle. */
export async function waitForQuiet(say: (s: string) => void, threshold = 0.25, maxSeconds = 180): Promise<number> {
  const started = Date.now();
  let busy = await machineBusy();
  let told = 0;
  while (busy > threshold && Date.now() - started < maxSeconds * 1000) {
    if (Date.now() - told > 15_000) {
      say(`machine busy with other work (${(busy * 100).toFixed(0)}% of ${os.cpus().length} cores); waiting for it to go quiet…`);
      told = Date.now();
    }
    busy = await machineBusy(2000);
  }
  return busy;
}

/** Time-weighted average of several windows. */
export function mergeCpu(windows: CpuUse[]): CpuUse {
  const seconds = windows.reduce((s, w) => s + w.seconds, 0);
  const avg = (k: "coresBusy" | "coresOurs" | "coresOther" | "loop") => windows.reduce((s, w) => s + (w[k] ?? Number.NaN) * w.seconds, 0) / seconds;
  const merged: CpuUse = { seconds, coresBusy: avg("coresBusy"), coresOurs: avg("coresOurs"), coresOther: avg("coresOther") };
  if (windows.every((w) => w.loop !== undefined)) merged.loop = avg("loop");
  return merged;
}
