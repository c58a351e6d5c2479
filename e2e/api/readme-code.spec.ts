import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { signatureHeader } from "../../server/domain/signatures";
import { installed, readmeCodeBlocks } from "../../server/testing/readme-blocks";
import { SIGNATURE_CASES, signatureCasesJson, wrongCases } from "../../server/testing/signature-cases";
import { freePort } from "../support/free-port";
import { bearer, seed } from "../support/seed";

/**
 * The README's PHP and Python, their blocks as they stand there: the signature verifiers on the
 * cases the TypeScript one is held to (server/testing/signature-cases.ts), and, against the
 * production server, the PHP client that charges and retries with the same Idempotency-Key and
 * the PHP webhook endpoint served by `php -S`. Like Chromium for the browser projects, PHP and
 * Python must be installed (`apt-get install php-cli python3`; .ci/run installs them).
 */
test.beforeAll(() => {
  for (const [command, pkg] of [["php", "php-cli"], ["python3", "python3"]] as const) {
    expect(installed(command), `${command} runs the README's code: install it (apt-get install ${pkg})`).toBe(true);
  }
});

/** The README's PHP blocks under `heading`, by a line each holds. */
function phpBlock(heading: string, holding: string): string {
  const block = readmeCodeBlocks(heading, "php").find((b) => b.includes(holding));
  expect(block, `the README has the PHP block with ${holding}`).toBeDefined();
  return block!;
}

const VERIFYING = "### Verifying a webhook";

/** Runs `harness` (beside `files`, each a README block) with the signature cases on stdin; it prints one JSON array of booleans. */
function verdicts(command: string, files: Record<string, string>, harness: string): boolean[] {
  const dir = mkdtempSync(path.join(tmpdir(), "mari-readme-verify-"));
  const script = path.join(dir, command === "php" ? "harness.php" : "harness.py");
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
    writeFileSync(script, harness);
    const run = spawnSync(command, [script], { input: signatureCasesJson(), encoding: "utf8", cwd: dir, timeout: 30_000 });
    expect(run.stderr, `${command} wrote to stderr`).toBe("");
    expect(run.status, `${command} exited ${run.status}: ${run.stdout}`).toBe(0);
    return JSON.parse(run.stdout) as boolean[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("the README's PHP mari_verify_signature agrees with the TypeScript verifier on every case", () => {
  const answers = verdicts(
    "php",
    { "mari-signature.php": phpBlock(VERIFYING, "function mari_verify_signature") },
    `<?php
require __DIR__ . '/mari-signature.php';
$out = [];
foreach (json_decode(stream_get_contents(STDIN), true) as $c) {
    $out[] = mari_verify_signature($c['header'], base64_decode($c['body']), $c['secrets'], $c['now']);
}
echo json_encode($out);
`,
  );
  expect(answers).toHaveLength(SIGNATURE_CASES.length);
  expect(wrongCases(answers)).toEqual([]);
});

test("the README's Python verify_mari_signature agrees with the TypeScript verifier on every case", () => {
  const [fn] = readmeCodeBlocks(VERIFYING, "python");
  expect(fn, "the README has the Python function").toContain("def verify_mari_signature");
  const answers = verdicts(
    "python3",
    { "mari_signature.py": fn! },
    `import base64, json, sys
from mari_signature import verify_mari_signature
cases = json.load(sys.stdin)
print(json.dumps([verify_mari_signature(c["header"], base64.b64decode(c["body"]), [s if s is not False else None for s in c["secrets"]], c["now"]) for c in cases]))
`,
  );
  expect(answers).toHaveLength(SIGNATURE_CASES.length);
  expect(wrongCases(answers)).toEqual([]);
});

const CHARGING = "### Charging from PHP, retrying safely";

type Seen = { key: string; status: number | "dropped"; replayed: string | null };

/**
 * A proxy between a PHP client and the server that records what passes and misbehaves once, on
 * the first request: `drop` passes it on and drops the connection instead of the answer (the
 * payment is made, the answer lost); `429` answers it itself with a rate limit of one second.
 * Later requests, and all with `pass`, go through.
 */
async function lossyProxy(first: "drop" | "429" | "pass") {
  const seen: Seen[] = [];
  const proxy = createHttpServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => ["authorization", "content-type", "idempotency-key"].includes(k))) as Record<string, string>;
    const key = headers["idempotency-key"]!;
    if (seen.length === 0 && first === "429") {
      seen.push({ key, status: 429, replayed: null });
      res.writeHead(429, { "content-type": "application/json", "retry-after": "1" }).end(JSON.stringify({ error: { type: "rate_limit_error", code: "rate_limited", message: "Too many requests." } }));
      return;
    }
    const answer = await fetch(`${seed().base_url}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) });
    const body = Buffer.from(await answer.arrayBuffer());
    if (seen.length === 0 && first === "drop") {
      seen.push({ key, status: "dropped", replayed: null });
      req.socket.destroy();
      return;
    }
    seen.push({ key, status: answer.status, replayed: answer.headers.get("idempotent-replayed") });
    const pass: Record<string, string> = { "content-type": answer.headers.get("content-type") ?? "application/json" };
    if (answer.headers.get("retry-after")) pass["retry-after"] = answer.headers.get("retry-after")!;
    res.writeHead(answer.status, pass).end(body);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, seen, close: () => proxy.close() };
}

/** Runs `script` (PHP, beside the README's mari-client.php) with the API at `base`; what it printed, as JSON. */
async function runPhp<T>(script: string, base: string, key: string): Promise<{ out: T; seconds: number }> {
  const dir = mkdtempSync(path.join(tmpdir(), "mari-php-client-"));
  try {
    writeFileSync(path.join(dir, "mari-client.php"), phpBlock(CHARGING, "function mari_post"));
    writeFileSync(path.join(dir, "charge.php"), phpBlock(CHARGING, "require __DIR__ . '/mari-client.php'"));
    writeFileSync(path.join(dir, "run.php"), script);
    const started = Date.now();
    // Not spawnSync: the proxy runs on this process's event loop.
    const php = spawn("php", [path.join(dir, "run.php")], { env: { ...process.env, MARI_API_BASE: base, MARI_SECRET_KEY: key } });
    let stdout = "";
    let stderr = "";
    php.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    php.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const status = await new Promise<number | null>((resolve) => php.on("close", resolve));
    expect(status, stderr).toBe(0);
    expect(stderr).toBe("");
    return { out: JSON.parse(stdout) as T, seconds: (Date.now() - started) / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

type Answer = [number, { id: string; reference: string; status: string; customer: { msisdn: string }; error?: { code: string; param: string; message: string } }];

test("the README's PHP client, its first answer lost after the payment was made, gets it back by retrying: one payment", async ({ request }) => {
  const proxy = await lossyProxy("drop");
  try {
    const { out } = await runPhp<Answer>("<?php\nrequire __DIR__ . '/charge.php';\necho json_encode([$status, $payment]);\n", proxy.url, seed().keys.test);
    const [status, payment] = out;
    expect(status).toBe(201);
    expect(payment).toMatchObject({ reference: "order-1002", status: expect.stringMatching(/^(awaiting_customer|succeeded)$/), customer: { msisdn: "263771234567" } });
    // The answer dropped, then the same request again, answered with the first answer replayed.
    expect(proxy.seen).toEqual([
      { key: "order-1002", status: "dropped", replayed: null },
      { key: "order-1002", status: 201, replayed: "true" },
    ]);
    const listed = await request.get("/v1/payments?search=order-1002", { headers: bearer(seed().keys.test) });
    expect(((await listed.json()) as { data: { id: string; reference: string }[] }).data.filter((p) => p.reference === "order-1002").map((p) => p.id)).toEqual([payment.id]);
  } finally {
    proxy.close();
  }
});

test("the README's PHP client waits out a short rate limit and sends again, and gives back a number's limit at once", async ({ request }) => {
  const charge = (reference: string, msisdn: string) =>
    `<?php\nrequire __DIR__ . '/mari-client.php';\necho json_encode(mari_post('/v1/payments', ['amount' => 500, 'currency' => 'USD', 'method' => 'wallet', 'reference' => '${reference}', 'customer' => ['msisdn' => '${msisdn}']], '${reference}'));\n`;
  const run = randomUUID().slice(0, 8);

  // A 429 of one second: waited out, then the same request again.
  const proxy = await lossyProxy("429");
  try {
    const { out, seconds } = await runPhp<Answer>(charge(`php-429-${run}`, "0771234567"), proxy.url, seed().keys.test);
    expect(out[0]).toBe(201);
    expect(proxy.seen.map((s) => [s.key, s.status])).toEqual([
      [`php-429-${run}`, 429],
      [`php-429-${run}`, 201],
    ]);
    expect(seconds).toBeGreaterThanOrEqual(1);
  } finally {
    proxy.close();
  }

  // Live mode allows three prompts a minute to one number: the fourth is the client's answer at once, not retried.
  const live = seed().keys.live;
  const msisdn = `0779${String(Date.now() % 1_000_000).padStart(6, "0")}`;
  for (let i = 0; i < 3; i++) {
    const res = await request.post("/v1/payments", {
      headers: { ...bearer(live), "Idempotency-Key": `php-limit-${run}-${i}` },
      data: { amount: 500, currency: "USD", method: "wallet", reference: `php-limit-${run}-${i}`, customer: { msisdn } },
    });
    expect(res.status(), await res.text()).toBe(201);
  }
  const watch = await lossyProxy("pass");
  try {
    const { out } = await runPhp<Answer>(charge(`php-limit-${run}-3`, msisdn), watch.url, live);
    expect(out[0]).toBe(429);
    expect(out[1].error).toMatchObject({ code: "rate_limited", param: "customer.msisdn" });
    expect(watch.seen).toEqual([{ key: `php-limit-${run}-3`, status: 429, replayed: null }]);
  } finally {
    watch.close();
  }
});

test("the README's PHP endpoint takes a delivered webhook and refuses a forged one", async ({ request }) => {
  const dir = mkdtempSync(path.join(tmpdir(), "mari-php-endpoint-"));
  writeFileSync(path.join(dir, "mari-signature.php"), phpBlock(VERIFYING, "function mari_verify_signature"));
  writeFileSync(path.join(dir, "webhook.php"), phpBlock(VERIFYING, "require __DIR__ . '/mari-signature.php'"));

  const key = seed().keys.test;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/webhook.php`;
  const created = await request.post("/v1/webhook_endpoints", { headers: bearer(key), data: { url, enabled_events: ["payment.succeeded"] } });
  expect(created.status(), await created.text()).toBe(201);
  const { id: endpointId, secret } = (await created.json()) as { id: string; secret: string };

  const php = spawn("php", ["-S", `127.0.0.1:${port}`, "-t", dir], { env: { ...process.env, MARI_WEBHOOK_SECRET: secret }, stdio: "ignore" });
  try {
    // Up once it answers: a GET carries no signature, so the endpoint refuses it.
    await expect
      .poll(async () => (await fetch(url).catch(() => null))?.status ?? 0, { timeout: 15_000 })
      .toBe(400);

    const payment = await request.post("/v1/payments", {
      headers: { ...bearer(key), "Idempotency-Key": randomUUID() },
      data: { amount: 4_200, currency: "USD", method: "wallet", reference: `e2e-php-${randomUUID()}`, customer: { msisdn: "0771234567" }, metadata: { shop: "Chipo’s café" } },
    });
    expect(payment.status()).toBe(201);
    const paymentId = ((await payment.json()) as { id: string }).id;

    // The outcome's delivery to this endpoint: delivered, its one attempt answered 204 by the README's code.
    type Delivery = { status: string; attempts: { status_code: number | null }[] };
    const delivery = async () => {
      const events = (await (await request.get(`/v1/events?type=payment.succeeded&limit=100`, { headers: bearer(key) })).json()) as {
        data: { id: string; data: { object: { id: string } } }[];
      };
      const event = events.data.find((e) => e.data.object.id === paymentId);
      if (!event) return undefined;
      const log = await request.get(`/v1/webhook_deliveries?event=${event.id}&endpoint=${endpointId}`, { headers: bearer(key) });
      return ((await log.json()) as { data: Delivery[] }).data[0];
    };
    await expect.poll(async () => (await delivery())?.status, { timeout: 30_000 }).toBe("delivered");
    expect((await delivery())!.attempts.map((a) => a.status_code)).toEqual([204]);

    // Posts the server did not sign as they stand: another secret, a changed body, a stale timestamp.
    const body = JSON.stringify({ id: "evt_forged", type: "payment.succeeded", data: { object: { id: paymentId, status: "succeeded" } } });
    const now = Math.floor(Date.now() / 1000);
    const post = (signature: string, raw = body) => fetch(url, { method: "POST", headers: { "content-type": "application/json", "service-signature": signature }, body: raw });
    expect((await post(signatureHeader(["whsec_not_the_endpoints"], now, body))).status).toBe(400);
    expect((await post(signatureHeader([secret], now, body), body.replace("evt_forged", "evt_forgee"))).status).toBe(400);
    expect((await post(signatureHeader([secret], now - 301, body))).status).toBe(400);
    // The same post signed with the endpoint's secret passes: what was refused was the signature.
    expect((await post(signatureHeader([secret], now, body))).status).toBe(204);
  } finally {
    php.kill();
    await request.delete(`/v1/webhook_endpoints/${endpointId}`, { headers: bearer(key) });
    rmSync(dir, { recursive: true, force: true });
  }
});
