/** What the bench scripts share: the repository root, `npm run`, seeding a merchant, a current production build. */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(fileURLToPath(new URL("..", import.meta.url)));

export type Seed = { merchant_id: string; slug: string; keys: { test: string; live: string } };

export function npm(args: string[], env: NodeJS.ProcessEnv): string {
  const run = spawnSync("npm", ["run", "--silent", ...args], { cwd: ROOT, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`npm run ${args.join(" ")} failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
  return run.stdout;
}

export function seed(slug: string, env: NodeJS.ProcessEnv): Seed {
  const line = npm(["seed", "--", "--json", "--merchant", slug], env)
    .split("\n")
    .find((l) => l.startsWith("{"));
  if (!line) throw new Error(`seed printed no JSON for ${slug}`);
  return JSON.parse(line) as Seed;
}

/**
 * Newest modification time of the sources that go into the build. Directories count too: removing
 * a file (a route, say) changes only its directory's time, and the build must still be redone.
 */
export function newestSource(): number {
  let newest = 0;
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      newest = Math.max(newest, st.mtimeMs);
      for (const e of readdirSync(p)) if (e !== "node_modules" && !e.startsWith(".")) walk(path.join(p, e));
    } else if (!/\.test\.tsx?$/.test(p)) newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of ["app", "server", "db", "components", "lib", "next.config.ts", "instrumentation.ts", "proxy.ts", "package.json"]) walk(path.join(ROOT, p));
  return newest;
}

/** Builds when .next/BUILD_ID is missing or older than the sources (a stale build measures old code). */
export function ensureBuild(env: NodeJS.ProcessEnv, say: (s: string) => void): void {
  const buildId = path.join(ROOT, ".next", "BUILD_ID");
  const stale = !existsSync(buildId) || statSync(buildId).mtimeMs < newestSource() || process.env.BENCH_BUILD === "1";
  if (!stale) {
    say("production build is current");
    return;
  }
  say("building (npm run build)…");
  const started = Date.now();
  const buildEnv: NodeJS.ProcessEnv = { ...env, NODE_ENV: "production" };
  // A git worktree whose node_modules is a symlink into another checkout: Turbopack resolves only
  // inside its root, so widen the root to the common ancestor (Next's own override; build only).
  const modules = realpathSync(path.join(ROOT, "node_modules"));
  const inside = (dir: string) => modules.startsWith(dir.endsWith(path.sep) ? dir : dir + path.sep);
  if (!inside(ROOT) && !buildEnv.NEXT_PRIVATE_OUTPUT_TRACE_ROOT) {
    let common = ROOT;
    while (!inside(common)) common = path.dirname(common);
    buildEnv.NEXT_PRIVATE_OUTPUT_TRACE_ROOT = common;
  }
  npm(["build"], buildEnv);
  say(`built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
