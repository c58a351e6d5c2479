import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

const README = path.resolve(import.meta.dirname, "../../README.md");

/** The README's text, as a merchant reads it. */
export const readmeText = (): string => readFileSync(README, "utf8");

/**
 * The lines under the README's heading `heading` (`## Configuration`), up to the next heading of
 * its level or above; a `#` line inside a fenced code block is no heading.
 */
export function readmeSection(heading: string): string[] {
  const lines = readmeText().split("\n");
  const level = /^(#+) /.exec(heading)?.[1]!.length ?? 0;
  const start = lines.indexOf(heading);
  if (level === 0 || start === -1) throw new Error(`README has no "${heading}" section`);
  const section: string[] = [];
  let fenced = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("```")) fenced = !fenced;
    else if (!fenced && (/^(#+) /.exec(line)?.[1]!.length ?? Infinity) <= level) break;
    section.push(line);
  }
  return section;
}

/** The fenced code blocks in `lang` ("" for a bare fence) of a README section, as they stand: the tests run what a merchant copies. */
export function readmeCodeBlocks(heading: string, lang: string): string[] {
  const blocks: string[] = [];
  let fence: { lang: string; lines: string[] } | null = null;
  for (const line of readmeSection(heading)) {
    if (!line.startsWith("```")) fence?.lines.push(line);
    else if (!fence) fence = { lang: line.slice(3).trim(), lines: [] };
    else {
      if (fence.lang === lang) blocks.push(`${fence.lines.join("\n")}\n`);
      fence = null;
    }
  }
  return blocks;
}

/** Whether `command` can be run here (php, python3). */
export function installed(command: string): boolean {
  return spawnSync(command, ["--version"], { stdio: "ignore" }).status === 0;
}
