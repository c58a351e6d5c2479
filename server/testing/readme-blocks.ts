import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

const README = path.resolve(import.meta.dirname, "../../README.md");

/**
 * The fenced code blocks in `lang` under the README's heading `heading` (up to the next heading of
 * its level or above), as they stand: the tests run what a merchant copies.
 */
export function readmeCodeBlocks(heading: string, lang: string): string[] {
  const lines = readFileSync(README, "utf8").split("\n");
  const level = /^(#+) /.exec(heading)?.[1]!.length ?? 0;
  const start = lines.indexOf(heading);
  if (level === 0 || start === -1) throw new Error(`README has no "${heading}" section`);
  const blocks: string[] = [];
  let fence: { lang: string; lines: string[] } | null = null;
  for (const line of lines.slice(start + 1)) {
    if (fence) {
      if (line.startsWith("```")) {
        if (fence.lang === lang) blocks.push(`${fence.lines.join("\n")}\n`);
        fence = null;
      } else fence.lines.push(line);
    } else if (line.startsWith("```")) fence = { lang: line.slice(3).trim(), lines: [] };
    // A heading of the section's level or above ends it (a `#` inside a code block is no heading).
    else if ((/^(#+) /.exec(line)?.[1]!.length ?? Infinity) <= level) break;
  }
  return blocks;
}

/** Whether `command` can be run here (php, python3). */
export function installed(command: string): boolean {
  return spawnSync(command, ["--version"], { stdio: "ignore" }).status === 0;
}
