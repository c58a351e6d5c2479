/**
 * How the production server starts, for the scripts that run it as their own child (the bench,
 * the chaos run, Playwright's web server): the node flags of `npm start` (package.json), then
 * `next start`. One place for the flags, so that what is measured and tested is what runs.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

const START = /^node((?: --[\w-]+(?:=\S+)?)*) node_modules\/next\/dist\/bin\/next start$/;

/** The node flags in package.json's `start` script. */
export function startNodeFlags(root) {
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const match = START.exec(pkg.scripts?.start ?? "");
  if (!match) throw new Error(`package.json's start script should read "node [--flag …] node_modules/next/dist/bin/next start", not ${JSON.stringify(pkg.scripts?.start)}`);
  return match[1].split(" ").filter(Boolean);
}

/** Arguments for `process.execPath`: `npm start`'s flags, `extraNodeArgs`, then next start on host:port. */
export function nextStartArgs(root, port, host, extraNodeArgs = []) {
  return [...startNodeFlags(root), ...extraNodeArgs, path.join(root, "node_modules", "next", "dist", "bin", "next"), "start", "-p", String(port), "-H", host];
}
