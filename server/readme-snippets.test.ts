import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { signatureHeader } from "./domain/signatures";
import { setEnv } from "./testing/env";
import { readmeCodeBlocks } from "./testing/readme-blocks";
import { SIGNED_BODY, SIGNING_SECRET, typescriptVerdicts, wrongCases } from "./testing/signature-cases";

/**
 * The README's webhook verification in TypeScript, run as it stands there. Its PHP and Python,
 * held to the same cases, need those languages and run with the browser tests' tools, in
 * e2e/api/readme-code.spec.ts.
 */
const SECTION = "### Verifying a webhook";
const secret = SIGNING_SECRET;
const body = SIGNED_BODY;

const dir = mkdtempSync(path.join(tmpdir(), "mari-readme-snippets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("README: verifying a webhook", () => {
  it("the TypeScript verifier gives each case's answer", () => {
    expect(wrongCases(typescriptVerdicts())).toEqual([]);
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
});
