/**
 * How the production server starts, for the scripts that run it as their own child (the bench,
 * the chaos run, Playwright's web server): exactly package.json's `start` script, that is node's
 * flags, then `next start` with its options, on the port and host the script chooses. One place for
 * the flags and options, so that what is measured and tested is what runs.
 */
import { readFileSync } from "node:fs";
import path from "node:path";

const NEXT = "node_modules/next/dist/bin/next";
const START = /^node((?: --[\w-]+(?:=\S+)?)*) node_modules\/next\/dist\/bin\/next start((?: --[\w-]+(?: [^-\s]\S*)?)*)$/;

function startScript(root) {
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const match = START.exec(pkg.scripts?.start ?? "");
  if (!match) {
    throw new Error(`package.json's start script should read "node [--flag …] ${NEXT} start [--option value …]", not ${JSON.stringify(pkg.scripts?.start)}`);
  }
  return { nodeFlags: match[1].split(" ").filter(Boolean), nextOptions: match[2].split(" ").filter(Boolean) };
}

/** The node flags in package.json's `start` script. */
export function startNodeFlags(root) {
  return startScript(root).nodeFlags;
}

/** The options of `next start` in package.json's `start` script (`--keepAliveTimeout 65000`, say). */
export function startNextOptions(root) {
  return startScript(root).nextOptions;
}

/** Arguments for `process.execPath`: `npm start`'s node flags, `extraNodeArgs`, then next start with `npm start`'s options on host:port. */
export function nextStartArgs(root, port, host, extraNodeArgs = []) {
  const { nodeFlags, nextOptions } = startScript(root);
  return [...nodeFlags, ...extraNodeArgs, path.join(root, ...NEXT.split("/")), "start", ...nextOptions, "-p", String(port), "-H", host];
}
