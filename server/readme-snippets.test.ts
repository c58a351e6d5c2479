import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { signatureHeader, verifySignatureHeader } from "./domain/signatures";
import { setEnv } from "./testing/env";
import { installed, readmeCodeBlocks } from "./testing/readme-blocks";

/**
 * The README's webhook verification in PHP and Python, run as it stands there, on the cases the
 * TypeScript verifier (server/domain/signatures.ts) is held to: all three must give the same
 * answer to each. Headers come from the server's own signer, over a body with bytes beyond ASCII.
 * CI installs php-cli; on a machine without PHP or Python the language's part is skipped and says so.
 */
const SECTION = "### Verifying a webhook";
const now = 1_780_000_000;
const secret = "whsec_4f1c0a2b9d8e7f6a5b4c3d2e1f0a9b8c";
const old = "whsec_previous_one_kept_for_a_day";
const body = JSON.stringify({
  id: "evt_01m8sehe57r0xb82tsy78qvdyp",
  object: "event",
  type: "payment.succeeded",
  data: { object: { id: "pay_01m8seh5jnpyx3c9rvbethr98d", reference: "Chipo’s café ✓ 🇿🇼", status: "succeeded" } },
});
/** A secret that was never set: "" in TypeScript (`?? ""`), false in PHP (getenv), None in Python (os.environ.get). */
const UNSET = { unset: true } as const;

type Case = { name: string; header: string | null; body: string; secrets: (string | typeof UNSET)[]; now: number; verifies: boolean };
const signed = (secrets: string[], t = now, raw = body) => signatureHeader(secrets, t, raw);
const CASES: Case[] = [
  { name: "the server's own header", header: signed([secret]), body, secrets: [secret], now, verifies: true },
  { name: "during a roll, with the new secret", header: signed([secret, old]), body, secrets: [secret], now, verifies: true },
  { name: "during a roll, with the old secret", header: signed([secret, old]), body, secrets: [old], now, verifies: true },
  { name: "both secrets listed, signed with the old one", header: signed([old]), body, secrets: [secret, old], now, verifies: true },
  { name: "spaces after the commas", header: signed([secret]).replaceAll(",", ", "), body, secrets: [secret], now, verifies: true },
  { name: "a malformed v1 beside a good one", header: `${signed([secret])},v1=zz`, body, secrets: [secret], now, verifies: true },
  { name: "300 s old", header: signed([secret], now - 300), body, secrets: [secret], now, verifies: true },
  { name: "300 s ahead", header: signed([secret], now + 300), body, secrets: [secret], now, verifies: true },
  { name: "301 s old", header: signed([secret], now - 301), body, secrets: [secret], now, verifies: false },
  { name: "301 s ahead", header: signed([secret], now + 301), body, secrets: [secret], now, verifies: false },
  { name: "another secret", header: signed(["whsec_someone_else"]), body, secrets: [secret], now, verifies: false },
  { name: "one byte of the body changed", header: signed([secret]), body: body.replace("succeeded", "succeedeD"), secrets: [secret], now, verifies: false },
  { name: "the body parsed and written again", header: signed([secret]), body: JSON.stringify(JSON.parse(body), null, 1), secrets: [secret], now, verifies: false },
  { name: "no header", header: null, body, secrets: [secret], now, verifies: false },
  { name: "an empty header", header: "", body, secrets: [secret], now, verifies: false },
  { name: "no v1", header: `t=${now}`, body, secrets: [secret], now, verifies: false },
  { name: "no t", header: signed([secret]).replace(/^t=\d+,/, ""), body, secrets: [secret], now, verifies: false },
  { name: "garbage", header: "nonsense", body, secrets: [secret], now, verifies: false },
  { name: "an uppercase digest", header: signed([secret]).toUpperCase(), body, secrets: [secret], now, verifies: false },
  { name: "an empty secret, on a header signed with one", header: signed([""]), body, secrets: [""], now, verifies: false },
  { name: "an unset secret, on a header signed with an empty one", header: signed([""]), body, secrets: [UNSET], now, verifies: false },
  { name: "no secrets", header: signed([secret]), body, secrets: [], now, verifies: false },
];

/** The cases as the harnesses read them: the body as base64 (its exact bytes), an unset secret as `false`. */
const wire = JSON.stringify(
  CASES.map((c) => ({ header: c.header, body: Buffer.from(c.body).toString("base64"), secrets: c.secrets.map((s) => (typeof s === "string" ? s : false)), now: c.now })),
);

const dir = mkdtempSync(path.join(tmpdir(), "mari-readme-snippets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `command file` with the cases on stdin; it prints one JSON array of booleans. */
function verdicts(command: string, file: string, harness: string): boolean[] {
  writeFileSync(path.join(dir, file), harness);
  const run = spawnSync(command, [path.join(dir, file)], { input: wire, encoding: "utf8", cwd: dir, timeout: 30_000 });
  expect(run.stderr, `${command} wrote to stderr`).toBe("");
  expect(run.status, `${command} exited ${run.status}: ${run.stdout}`).toBe(0);
  return JSON.parse(run.stdout) as boolean[];
}

/** The cases each verifier got wrong, by name (an empty list is a pass). */
const wrong = (answers: boolean[]) => CASES.filter((c, i) => answers[i] !== c.verifies).map((c) => c.name);

describe("README: verifying a webhook", () => {
  it("the TypeScript verifier gives each case's answer", () => {
    const answers = CASES.map((c) => verifySignatureHeader(c.header, c.body, c.secrets.map((s) => (typeof s === "string" ? s : "")), new Date(c.now * 1000)));
    expect(wrong(answers)).toEqual([]);
  });

  it("the Next.js route handler, as the README gives it, answers 204 to the server's post and 400 to a forged one", async () => {
    const [route] = readmeCodeBlocks(SECTION, "ts");
    expect(route, "the README has the route handler").toContain("export async function POST");
    // Its import names the merchant's copy of server/domain/signatures.ts: here, the module itself.
    const file = path.join(dir, "route.ts");
    writeFileSync(file, route!.replace('"@/lib/signatures"', JSON.stringify(path.join(import.meta.dirname, "domain/signatures.ts"))));
    const { POST } = (await import(file)) as { POST: (request: Request) => Promise<Response> };
    const restore = setEnv({ MARI_WEBHOOK_SECRET: secret });
    try {
      const t = Math.floor(Date.now() / 1000);
      const post = (signature: string, raw = body) => POST(new Request("http://shop.test/webhooks", { method: "POST", headers: { "service-signature": signature }, body: raw }));
      expect((await post(signatureHeader([secret], t, body))).status).toBe(204);
      expect((await post(signatureHeader(["whsec_someone_else"], t, body))).status).toBe(400);
      expect((await post(signatureHeader([secret], t, body), body.replace("succeeded", "succeedeD"))).status).toBe(400);
      expect((await post(signatureHeader([secret], t - 301, body))).status).toBe(400);
    } finally {
      restore();
    }
  });

  describe.runIf(installed("php") || process.env.CI)("in PHP", () => {
    it("mari_verify_signature, as the README gives it, agrees on every case", () => {
      const [fn] = readmeCodeBlocks(SECTION, "php").filter((b) => b.includes("function mari_verify_signature"));
      expect(fn, "the README has the PHP function").toBeDefined();
      writeFileSync(path.join(dir, "mari-signature.php"), fn!);
      const answers = verdicts(
        "php",
        "harness.php",
        `<?php
require __DIR__ . '/mari-signature.php';
$out = [];
foreach (json_decode(stream_get_contents(STDIN), true) as $c) {
    $out[] = mari_verify_signature($c['header'], base64_decode($c['body']), $c['secrets'], $c['now']);
}
echo json_encode($out);
`,
      );
      expect(answers).toHaveLength(CASES.length);
      expect(wrong(answers)).toEqual([]);
    });
  });

  describe.runIf(installed("python3") || process.env.CI)("in Python", () => {
    it("verify_mari_signature, as the README gives it, agrees on every case", () => {
      const [fn] = readmeCodeBlocks(SECTION, "python");
      expect(fn, "the README has the Python function").toContain("def verify_mari_signature");
      writeFileSync(path.join(dir, "mari_signature.py"), fn!);
      const answers = verdicts(
        "python3",
        "harness.py",
        `import base64, json, sys
from mari_signature import verify_mari_signature
cases = json.load(sys.stdin)
print(json.dumps([verify_mari_signature(c["header"], base64.b64decode(c["body"]), [s if s is not False else None for s in c["secrets"]], c["now"]) for c in cases]))
`,
      );
      expect(answers).toHaveLength(CASES.length);
      expect(wrong(answers)).toEqual([]);
    });
  });
});
