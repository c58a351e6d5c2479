import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./build";
import { nextStartArgs, startNextOptions, startNodeFlags } from "./next-start.mjs";

function packageWithStart(start: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "mari-start-"));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ scripts: { start } }));
  return dir;
}

describe("next start as npm start runs it", () => {
  it("takes node's flags from package.json's start script", () => {
    expect(startNodeFlags(ROOT)).toContain("--max-semi-space-size=64");
    expect(startNodeFlags(ROOT)).toContain("--no-allocation-site-pretenuring");
    const dir = packageWithStart("node --a=1 --b node_modules/next/dist/bin/next start --keepAliveTimeout 9000 --flag");
    expect(nextStartArgs(dir, 3200, "127.0.0.1", ["--cpu-prof"])).toEqual([
      "--a=1",
      "--b",
      "--cpu-prof",
      path.join(dir, "node_modules", "next", "dist", "bin", "next"),
      "start",
      "--keepAliveTimeout",
      "9000",
      "--flag",
      "-p",
      "3200",
      "-H",
      "127.0.0.1",
    ]);
  });

  it("keeps idle connections open longer than load balancers and clients keep theirs", () => {
    const options = startNextOptions(ROOT);
    const at = options.indexOf("--keepAliveTimeout");
    expect(at).toBeGreaterThanOrEqual(0);
    // 60 s is the common idle timeout of load balancers; the server must outlast it.
    expect(Number(options[at + 1])).toBeGreaterThan(60_000);
  });

  it("refuses a start script of another shape rather than run the server differently", () => {
    expect(() => startNodeFlags(packageWithStart("next start"))).toThrow(/start script should read/);
    expect(() => startNodeFlags(packageWithStart("node --x node_modules/next/dist/bin/next start && echo"))).toThrow(/start script should read/);
    expect(() => startNodeFlags(packageWithStart("node node_modules/next/dist/bin/next start -p 80"))).toThrow(/start script should read/);
  });

  it("the flags are ones node accepts", () => {
    const run = spawnSync(process.execPath, [...startNodeFlags(ROOT), "-e", "0"], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });
});
