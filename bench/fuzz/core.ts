/**
 * The fuzzer's core, shared by `npm run fuzz` and the e2e test: generate each target's requests
 * from a seed, send them over plain HTTP/1.1 (so bytes, headers and framing are ours to choose),
 * judge every answer, and tally per target.
 */
import http from "node:http";
import fc from "fast-check";
import type { ErrorCode } from "@/server/domain/errors";
import { bodyBytes, expectationFor, judge, type Answer } from "./oracle";
import { TARGETS, type FuzzRequest, type Keys, type RealIds, type Target } from "./requests";

export type Failure = { target: string; index: number; request: FuzzRequest; answer?: Answer; problems: string[] };

export type TargetResult = {
  name: string;
  requests: number;
  byCode: Partial<Record<ErrorCode | "other", number>>;
  serverErrors: number;
  envelopeViolations: number;
  /** Retried 429s (only where the run allows them, see `retryRateLimited`). */
  rateLimited: number;
  failures: Failure[];
  ms: number;
};

export type FuzzOptions = {
  baseUrl: string;
  keys: Keys;
  ids?: RealIds;
  seed: number;
  runs: number;
  concurrency?: number;
  /** Only targets whose name contains this. */
  only?: string;
  /** Only this request of each target (reproducing one failure). */
  index?: number;
  /** A shared server whose rate limit is not ours to raise: wait out 429s and send again. */
  retryRateLimited?: boolean;
  /** Every answer, e.g. to match stored idempotency records against what was answered. */
  onAnswer?(req: FuzzRequest, answer: Answer): void;
  /** Called before and after each target, e.g. to take the database snapshots. */
  around?: { before?(t: Target): Promise<void>; after?(t: Target, r: TargetResult): Promise<void> };
};

/** One seed per target, from the run's seed and the target's name: a target reproduces alone. */
export function targetSeed(seed: number, name: string): number {
  let h = seed | 0;
  for (let i = 0; i < name.length; i++) h = (Math.imul(h ^ name.charCodeAt(i), 0x5bd1e995) + 0x6b43a9b5) | 0;
  return h;
}

/** The target's `runs` requests for this seed, always the same ones. */
export function generate(target: Target, keys: Keys, ids: RealIds, seed: number, runs: number): FuzzRequest[] {
  const real = realIdSet(ids);
  // Only requests with a reason to fail are sent: a mutation that happens to leave the request
  // valid (an extra metadata key, a boundary still inside the bounds) is dropped here.
  const wrong = target
    .arbitrary(keys, ids)
    .filter((req) => expectationFor(target.op, req, keys, real).reasons.length > 0);
  return fc.sample(wrong, { seed: targetSeed(seed, target.name), numRuns: runs });
}

const realIdSet = (ids: RealIds) => new Set(Object.values(ids).filter((v): v is string => typeof v === "string"));

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/**
 * One request on the keep-alive pool; a body over the limit goes on a connection of its own,
 * because the server answers it before reading it all and then drops the connection.
 */
export function send(baseUrl: string, req: FuzzRequest, timeoutMs = 30_000): Promise<Answer> {
  const url = new URL(baseUrl);
  const body = bodyBytes(req.body);
  const chunked = req.body.kind === "huge" && req.body.chunked;
  const headers: Record<string, string | string[]> = { ...req.headers };
  if (req.body.kind !== "none" && !chunked) headers["content-length"] = String(body.length);
  return new Promise((resolve, reject) => {
    let answered = false;
    const r = http.request(
      {
        agent: req.body.kind === "huge" ? false : agent,
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.query ? `${req.path}?${req.query}` : req.path,
        headers,
        timeout: timeoutMs,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    r.on("timeout", () => r.destroy(new Error(`no answer in ${timeoutMs} ms`)));
    // After the answer, a reset while the rest of a refused body is still being written is the
    // server closing a connection it will not read further: not a failure.
    r.on("error", (e) => {
      if (!answered) reject(e);
    });
    if (chunked) {
      const write = (i: number): void => {
        if (i >= body.length || r.destroyed) return void r.end();
        if (r.write(body.subarray(i, i + 16 * 1024))) write(i + 16 * 1024);
        else r.once("drain", () => write(i + 16 * 1024));
      };
      write(0);
    } else r.end(body);
  });
}

/** Sends one target's requests, `concurrency` at a time, and judges every answer. */
export async function fuzzTarget(target: Target, opts: FuzzOptions, realIds: Set<string>): Promise<TargetResult> {
  const started = Date.now();
  const all = generate(target, opts.keys, opts.ids ?? {}, opts.seed, opts.runs);
  const indexes = opts.index !== undefined ? [opts.index] : all.map((_, i) => i);
  const result: TargetResult = { name: target.name, requests: 0, byCode: {}, serverErrors: 0, envelopeViolations: 0, rateLimited: 0, failures: [], ms: 0 };
  let next = 0;
  const worker = async () => {
    while (next < indexes.length) {
      const index = indexes[next++]!;
      const request = all[index]!;
      const expect = expectationFor(target.op, request, opts.keys, realIds);
      if (expect.reasons.length === 0) {
        result.failures.push({ target: target.name, index, request, problems: ["generated a request the oracle cannot tell is wrong (generator bug)"] });
        continue;
      }
      let answer: Answer | undefined;
      try {
        for (let resets = 0; ; ) {
          try {
            answer = await send(opts.baseUrl, request);
          } catch (e) {
            // A server may answer an oversized body early and close; when its close overtakes
            // the answer while the client is still writing, the client loses the answer (EPIPE,
            // ECONNRESET). That race is TCP's, not the server's: such a request is sent again,
            // twice at most, and a third loss is a failure.
            const code = (e as NodeJS.ErrnoException).code;
            if (request.body.kind === "huge" && (code === "EPIPE" || code === "ECONNRESET") && resets++ < 2) continue;
            throw e;
          }
          if (answer.status !== 429 || !opts.retryRateLimited) break;
          result.rateLimited++;
          const wait = Number(answer.headers["retry-after"] ?? 1);
          await new Promise((r) => setTimeout(r, Math.min(5, Math.max(1, wait)) * 1000));
        }
      } catch (e) {
        result.requests++;
        result.failures.push({ target: target.name, index, request, problems: [`no answer: ${e instanceof Error ? e.message : String(e)}`] });
        continue;
      }
      result.requests++;
      opts.onAnswer?.(request, answer);
      const problems = judge(expect, answer, target.op);
      if (answer.status >= 500) result.serverErrors++;
      else if (answer.status >= 400) {
        let code: ErrorCode | "other" = "other";
        try {
          code = (JSON.parse(answer.body) as { error: { code: ErrorCode } }).error.code ?? "other";
        } catch {
          // counted as "other"; the envelope check reports it
        }
        result.byCode[code] = (result.byCode[code] ?? 0) + 1;
      }
      if (problems.some((p) => !/^5\d\d: a server error$/.test(p))) result.envelopeViolations++;
      if (problems.length > 0) result.failures.push({ target: target.name, index, request, answer, problems });
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 8, indexes.length) }, worker));
  result.ms = Date.now() - started;
  return result;
}

export async function fuzz(opts: FuzzOptions): Promise<TargetResult[]> {
  const realIds = realIdSet(opts.ids ?? {});
  const results: TargetResult[] = [];
  for (const target of TARGETS) {
    if (opts.only && !target.name.includes(opts.only)) continue;
    await opts.around?.before?.(target);
    const r = await fuzzTarget(target, opts, realIds);
    await opts.around?.after?.(target, r);
    results.push(r);
  }
  return results;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}… (${s.length.toLocaleString("en")} characters)` : s);

/** A failure as a person reproducing it needs it: the request, the answer, what is wrong. */
export function describeFailure(f: Failure): string {
  const r = f.request;
  const body = r.body.kind === "none" ? "(none)" : r.body.kind === "text" ? clip(JSON.stringify(r.body.text), 400) : r.body.kind === "bytes" ? `bytes ${r.body.hex}` : `${r.body.bytes} bytes of ${JSON.stringify(r.body.fill)}${r.body.chunked ? ", chunked" : ""}`;
  const headers = Object.entries(r.headers).map(([k, v]) => `    ${k}: ${clip(JSON.stringify(v), 120)}`);
  return [
    `  ✗ ${f.target} #${f.index}: ${f.problems.join("; ")}`,
    `    ${r.method} ${clip(r.path + (r.query ? `?${r.query}` : ""), 300)}`,
    ...headers,
    `    body: ${body}${r.body.kind !== "none" && r.body.contentType !== undefined ? ` (Content-Type ${JSON.stringify(r.body.contentType)})` : ""}`,
    `    how: ${r.notes.join("; ")}`,
    f.answer ? `    → ${f.answer.status} request-id=${String(f.answer.headers["request-id"])} ${clip(f.answer.body, 400)}` : "    → no answer",
  ].join("\n");
}

/** The per-target table: requests, 4xx by code, 5xx, envelope violations, rows written. */
export function table(results: TargetResult[], rowsWritten?: Map<string, string>): string {
  const head = ["endpoint", "requests", "5xx", "envelope", "rows written", "ms", "4xx by code"];
  const rows = results.map((r) => [
    r.name,
    String(r.requests),
    String(r.serverErrors),
    String(r.envelopeViolations),
    rowsWritten?.get(r.name) ?? "n/a",
    String(r.ms),
    Object.entries(r.byCode)
      .sort((a, b) => b[1] - a[1])
      .map(([c, n]) => `${c} ${n}`)
      .join(", "),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ").trimEnd();
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}
