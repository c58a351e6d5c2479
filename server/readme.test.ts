import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { METADATA_MAX_KEYS } from "./domain/metadata";
import { MAX_AMOUNT } from "./domain/money";
import { NETWORK_NAMES, networkOf } from "./domain/msisdn-rules";
import { UNKNOWN_CHECK_DELAYS_S } from "./domain/reconcile-schedule";
import { REFUND_CHECK_DELAYS_S } from "./domain/refund-schedule";
import { DEGRADED_AFTER_FAILURES, DELIVERY_LEASE_MS, MAX_ENDPOINTS, RETRY_DELAYS_S } from "./domain/webhooks";
import { env } from "./env";
import { SANDBOX_NUMBERS } from "./providers/sandbox/behaviour";
import { setEnv } from "./testing/env";
import { readmeCodeBlocks, readmeSection, readmeText } from "./testing/readme-blocks";

/**
 * The README is what a merchant developer follows: its tables must say what the code does.
 * These checks hold the tables that are easy to let drift (configuration, sandbox numbers,
 * schedules, limits, file paths) to the code they describe.
 */
const root = path.resolve(import.meta.dirname, "..");
const readme = readmeText();

/** The rows of the markdown table under a `## heading`, as arrays of cells. */
function tableRows(heading: string): string[][] {
  return readmeSection(`## ${heading}`)
    .filter((l) => l.startsWith("| ") && !/^\|[-| ]+\|$/.test(l))
    .slice(1) // the header row
    .map((l) => l.slice(1, -1).split(/(?<!\\)\|/).map((c) => c.trim()));
}

const ticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** Seconds as the README writes them: `10 s`, `5 min`, `2 h`, or a bare number after a unit-bearing list. */
function seconds(text: string): number[] {
  const out: number[] = [];
  let unit = 1;
  for (const m of [...text.matchAll(/(\d+)(?:\s*(s|min|h)\b)?/g)].reverse()) {
    if (m[2]) unit = m[2] === "h" ? 3600 : m[2] === "min" ? 60 : 1;
    out.unshift(Number(m[1]) * unit);
  }
  return out;
}

describe("README", () => {
  describe("Configuration table", () => {
    const rows = tableRows("Configuration").map(([names, def]) => ({ names: ticked(names!), defaults: def! }));
    const documented = rows.flatMap((r) => r.names);
    // Every variable the schema in server/env.ts reads, but Node's and Next's own.
    const source = readFileSync(path.join(root, "server/env.ts"), "utf8");
    const schema = source.slice(source.indexOf("const schema = z.object({"), source.indexOf("}).superRefine("));
    const read = [...schema.matchAll(/^ {2}([A-Z][A-Z0-9_]+): /gm)]
      .map((m) => m[1]!)
      .filter((n) => n !== "NODE_ENV" && n !== "NEXT_RUNTIME");

    it("names every variable server/env.ts reads, and no other", () => {
      expect(read.length).toBeGreaterThan(20);
      expect([...documented].sort()).toEqual([...read].sort());
    });

    let restore: (() => void) | undefined;
    afterEach(() => restore?.());

    it("gives the defaults server/env.ts applies when a variable is unset", () => {
      restore = setEnv(Object.fromEntries(read.map((n) => [n, undefined])));
      const parsed = env() as unknown as Record<string, unknown>;
      let checked = 0;
      for (const { names, defaults } of rows) {
        // `25` / `100` for two variables; a default in words (`made once…`, `unset`) is checked elsewhere.
        const values = defaults.split(" / ").map((d) => /^`([^`]+)`$/.exec(d.trim())?.[1]);
        if (values.length !== names.length || values.some((v) => v === undefined)) continue;
        names.forEach((name, i) => {
          if (name === "PORT") return; // Next's own default; env.ts builds PUBLIC_BASE_URL from it
          expect(String(parsed[name]), name).toBe(values[i]);
          checked++;
        });
      }
      expect(checked).toBeGreaterThanOrEqual(15);
      expect(parsed.PUBLIC_BASE_URL).toBe("http://localhost:3000");
      expect(parsed.BOOTSTRAP_DEMO).toBe(true);
      expect(parsed.WEBHOOK_ALLOW_PRIVATE_NETWORKS).toBe(true);
    });
  });

  it("lists the sandbox's special numbers exactly", () => {
    const numbers = tableRows("Sandbox numbers")
      .map(([n]) => ticked(n!)[0])
      .filter((n): n is string => n !== undefined);
    expect(numbers).toEqual(Object.keys(SANDBOX_NUMBERS));
  });

  it("names each wallet with the prefixes the code routes to it", () => {
    const intro = readme.slice(0, readme.indexOf("\n## "));
    const prefixes = new Map<string, string[]>();
    for (let d = 0; d <= 9; d++) {
      const network = networkOf(`2637${d}1234567`);
      if (network) prefixes.set(NETWORK_NAMES[network], [...(prefixes.get(NETWORK_NAMES[network]) ?? []), `07${d}`]);
    }
    const named = [...intro.matchAll(/(\w+)\s+\((?:numbers\s+)?(07\d(?:\s+and\s+07\d)*)\)/g)].map(([, wallet, list]) => [wallet, list!.split(/\s+and\s+/)]);
    expect(Object.fromEntries(named)).toEqual(Object.fromEntries(prefixes));
  });

  it("states the schedules and limits the code uses", () => {
    const retries = /Retries after ([^;]+);/.exec(readme)?.[1];
    expect(seconds(retries ?? "")).toEqual([...RETRY_DELAYS_S]);
    expect(readme).toContain(`${DEGRADED_AFTER_FAILURES} failed attempts in a row make the endpoint \`degraded\``);
    const unknown = /asks about `unknown` payments after ([^(]+)\(then hourly\)/.exec(readme)?.[1];
    expect(seconds(unknown ?? "")).toEqual([...UNKNOWN_CHECK_DELAYS_S]);
    const refunds = /the provider is asked after ([\s\S]+?), then hourly/.exec(readme)?.[1];
    expect(seconds(refunds ?? "")).toEqual([...REFUND_CHECK_DELAYS_S]);
    expect(readme).toContain(`\`metadata\` holds at most ${METADATA_MAX_KEYS} string values`);
    expect(readme).toContain(`(1 – ${MAX_AMOUNT.toLocaleString("en-US")})`);
    expect(readme).toContain(`At most ${MAX_ENDPOINTS} endpoints per environment`);
    expect(readme).toContain(`should that one never finish: ${DELIVERY_LEASE_MS / 1000} s on`);
  });

  it("draws every directory of the repository's code and every one under server/ in the layer diagram", () => {
    const [diagram = ""] = readmeCodeBlocks("## Layers", "");
    const drawn = (indent: string) => [...diagram.matchAll(new RegExp(`^${indent}([\\w.-]+/)`, "gm"))].map((m) => m[1]!);
    const dirs = (dir: string) =>
      readdirSync(path.join(root, dir), { withFileTypes: true })
        .filter((d) => d.isDirectory() && !d.name.startsWith(".") && d.name !== "node_modules" && d.name !== "test-results" && d.name !== "playwright-report")
        .map((d) => `${d.name}/`);
    expect([...dirs(".")].sort()).toEqual([...drawn("")].sort());
    expect([...dirs("server")].sort()).toEqual([...drawn("  ")].filter((d) => d !== "v1/").sort());
  });

  it("names only files that exist", () => {
    const linked = [...readme.matchAll(/\]\(([^)#:]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!);
    const named = [...readme.matchAll(/`((?:app|server|components|db|e2e|bench)\/[\w./[\]-]*|[\w-]+\.(?:ts|mjs|md))`/g)].map((m) => m[1]!);
    // The contract and the design brief live beside the repository (`../shared/`), not in it.
    const paths = [...new Set([...linked, ...named])].filter((p) => p !== "interface-spec.md" && p !== "DESIGN.md");
    expect(paths.length).toBeGreaterThanOrEqual(8);
    for (const p of paths) expect(existsSync(path.join(root, p)), p).toBe(true);
  });
});
