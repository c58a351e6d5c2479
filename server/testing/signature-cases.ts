import { signatureHeader, verifySignatureHeader } from "@/server/domain/signatures";

/**
 * The cases every verifier of a webhook's signature is held to: the TypeScript one
 * (server/domain/signatures.ts) and the README's PHP and Python, which must give the same answer
 * to each. Headers come from the server's own signer, over a body with bytes beyond ASCII.
 */
const now = 1_780_000_000;
export const SIGNING_SECRET = "whsec_4f1c0a2b9d8e7f6a5b4c3d2e1f0a9b8c";
const secret = SIGNING_SECRET;
const old = "whsec_previous_one_kept_for_a_day";
export const SIGNED_BODY = JSON.stringify({
  id: "evt_01m8sehe57r0xb82tsy78qvdyp",
  object: "event",
  type: "payment.succeeded",
  data: { object: { id: "pay_01m8seh5jnpyx3c9rvbethr98d", reference: "Chipo’s café ✓ 🇿🇼", status: "succeeded" } },
});
/** A secret that was never set: "" in TypeScript (`?? ""`), false in PHP (getenv), None in Python (os.environ.get). */
export const UNSET = { unset: true } as const;

export type SignatureCase = { name: string; header: string | null; body: string; secrets: (string | typeof UNSET)[]; now: number; verifies: boolean };
const body = SIGNED_BODY;
const signed = (secrets: string[], t = now, raw = body) => signatureHeader(secrets, t, raw);
export const SIGNATURE_CASES: SignatureCase[] = [
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
export const signatureCasesJson = (): string =>
  JSON.stringify(
    SIGNATURE_CASES.map((c) => ({ header: c.header, body: Buffer.from(c.body).toString("base64"), secrets: c.secrets.map((s) => (typeof s === "string" ? s : false)), now: c.now })),
  );

/** The cases a verifier got wrong, by name (an empty list is a pass). */
export const wrongCases = (answers: boolean[]): string[] => SIGNATURE_CASES.filter((c, i) => answers[i] !== c.verifies).map((c) => c.name);

/** The TypeScript verifier's answers, an unset secret read as "" (`process.env.X ?? ""`). */
export const typescriptVerdicts = (): boolean[] =>
  SIGNATURE_CASES.map((c) => verifySignatureHeader(c.header, c.body, c.secrets.map((s) => (typeof s === "string" ? s : "")), new Date(c.now * 1000)));
