/** The one table `npm run bench` prints (Markdown, so it pastes into BENCHMARKS.md as is). */
import type { CpuUse } from "./cpu";
import type { PhaseResult } from "./load";

export type Measured = PhaseResult & { cpu: CpuUse };
export type Row = { phase: string; connections: number; r: Measured; ratio: string; target: string; pass: boolean | null };

export function fmtMs(ms: number): string {
  if (!Number.isFinite(ms)) return "–";
  return `${ms < 10 ? ms.toFixed(1) : ms.toFixed(0)} ms`;
}

export function table(rows: Row[]): string {
  const head = ["phase", "connections", "req/s", "p50", "p99", "ratio", "target", "pass"];
  const body = rows.map((x) => [
    x.phase,
    String(x.connections),
    x.r.rps.toFixed(0),
    fmtMs(x.r.p50),
    fmtMs(x.r.p99),
    x.ratio,
    x.target,
    x.pass === null ? "info" : x.pass ? "PASS" : "FAIL",
  ]);
  const numeric = (i: number) => i >= 1 && i <= 4;
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (numeric(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(" | ")} |`;
  const rule = `|${widths.map((w, i) => (numeric(i) ? `${"-".repeat(w + 1)}:` : "-".repeat(w + 2))).join("|")}|`;
  return [line(head), rule, ...body.map(line)].join("\n");
}

export function cpuLines(rows: Row[], cores: number): string[] {
  const width = Math.max(...rows.map((r) => r.phase.length));
  return [
    `CPU while measuring, in cores of ${cores} (bench = load generator + next start + this database's backends; other = the rest of the machine; ` +
      `the server's main thread, where given, in % of one core: node's one event loop, which serves every request and runs every background job):`,
    ...rows.map(
      (r) =>
        `  ${r.phase.padEnd(width)}  busy ${r.r.cpu.coresBusy.toFixed(2)}  bench ${r.r.cpu.coresOurs.toFixed(2)}  other ${r.r.cpu.coresOther.toFixed(2)}` +
          (r.r.cpu.loop === undefined ? "" : `  server's main thread ${(r.r.cpu.loop * 100).toFixed(0)} %`),
    ),
  ];
}
