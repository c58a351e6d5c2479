import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { nodeVersions } from "./server";

describe("bench/server.ts nodeVersions", () => {
  const saved = process.env.BENCH_NODE;
  afterEach(() => {
    if (saved === undefined) delete process.env.BENCH_NODE;
    else process.env.BENCH_NODE = saved;
  });

  it("names this node when the server runs on it", () => {
    delete process.env.BENCH_NODE;
    expect(nodeVersions()).toBe(process.version);
    process.env.BENCH_NODE = process.execPath;
    expect(nodeVersions()).toBe(process.version);
  });

  it("names the server's node and the generator's when BENCH_NODE is another binary", () => {
    const bin = path.join(mkdtempSync(path.join(os.tmpdir(), "mari-node-")), "node");
    writeFileSync(bin, "#!/bin/sh\necho v99.1.0\n");
    chmodSync(bin, 0o755);
    process.env.BENCH_NODE = bin;
    expect(nodeVersions()).toBe(`v99.1.0 (the server; the load generator on ${process.version})`);
  });
});
