import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { lockDataDir } from "./data-dir-lock";

const dir = () => path.join(mkdtempSync(path.join(tmpdir(), "mari-lock-")), "pglite");
const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill();
});

/** A live process that is not this one. */
function otherProcess(): number {
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], { stdio: "ignore" });
  children.push(child);
  return child.pid!;
}

/** The pid of a process that has exited. */
async function deadProcess(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

describe("the embedded database's lock", () => {
  it("is taken with this process's pid and given back", () => {
    const d = dir();
    const release = lockDataDir(d);
    expect(readFileSync(`${d}.lock`, "utf8")).toBe(String(process.pid));
    // The same process again (a reopen after close, Next's dev reloads): no conflict.
    lockDataDir(d)();
    expect(existsSync(`${d}.lock`)).toBe(true);
    release();
    expect(existsSync(`${d}.lock`)).toBe(false);
    lockDataDir(d)();
  });

  it("refuses while another live process holds it, naming the process and the way out", () => {
    const d = dir();
    const owner = otherProcess();
    writeFileSync(`${d}.lock`, String(owner));
    expect(() => lockDataDir(d)).toThrow(`is open in another process (pid ${owner}): stop that process first`);
    expect(readFileSync(`${d}.lock`, "utf8")).toBe(String(owner));
  });

  it("takes over a lock whose process has died (a crash, a SIGKILL)", async () => {
    const d = dir();
    writeFileSync(`${d}.lock`, String(await deadProcess()));
    const release = lockDataDir(d);
    expect(readFileSync(`${d}.lock`, "utf8")).toBe(String(process.pid));
    release();
  });
});
