import { expect, test } from "@playwright/test";
import { OPERATIONS } from "../../server/openapi";
import { describeFailure, fuzz, table } from "../../bench/fuzz/core";
import { TARGETS } from "../../bench/fuzz/requests";
import { snapshot, unexpectedWrites, type Answered } from "../../bench/fuzz/rows";
import { bearer, seed } from "../support/seed";

/**
 * The quick variant of `npm run fuzz`: the same generator and oracle, ~40 wrong requests per /v1
 * endpoint against the e2e server. The seed is the day's date (printed; FUZZ_SEED overrides it),
 * so a failure reproduces with `FUZZ_SEED=<seed> npm run fuzz -- --runs 40 --endpoint "…"`.
 *
 * It fuzzes with the live key of the second seeded merchant: no other test uses that key, so its
 * rate limit (live: 100 requests a second) is the fuzzer's alone and no other test meets a 429;
 * the few 429s the fuzzer meets itself are waited out and sent again.
 *
 * "Zero rows": the e2e server may run on PGlite, which one process holds, so the check goes
 * through the API: every list of that merchant's live mode is still empty afterwards. When
 * DATABASE_URL is set (CI), the database is also fingerprinted before and after, for that
 * merchant's live mode and the tables tied to it (other tests write to the rest meanwhile).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 40);
/** Every list the API has (a GET naming no object, taking a query), from the operations themselves. */
const LISTS = OPERATIONS.filter((op) => op.method === "GET" && !op.path.includes("{") && op.query).map((op) => op.path);

test("every wrong request to /v1 gets a 4xx in the error envelope and writes nothing", async ({ request, baseURL }) => {
  test.setTimeout(90_000);
  const fuzzSeed = Number(process.env.FUZZ_SEED ?? new Date().toISOString().slice(0, 10).replace(/-/g, ""));
  const merchant = seed().customer_fee;
  const key = merchant.keys.live;
  console.log(`fuzz seed ${fuzzSeed}, ${RUNS} requests per endpoint`);

  const lists = async () => {
    const out: Record<string, number> = {};
    for (const path of LISTS) {
      let res = await request.get(path, { headers: bearer(key) });
      // Right after the fuzzer, the key's second may be spent: wait it out, as the fuzzer does.
      for (let i = 0; i < 3 && res.status() === 429; i++) {
        await new Promise((r) => setTimeout(r, 1_000 * Number(res.headers()["retry-after"] ?? 1)));
        res = await request.get(path, { headers: bearer(key) });
      }
      expect(res.status(), `${path}: ${await res.text()}`).toBe(200);
      out[path] = ((await res.json()) as { data: unknown[] }).data.length;
    }
    return out;
  };
  const emptyLists = Object.fromEntries(LISTS.map((p) => [p, 0]));
  expect(await lists()).toEqual(emptyLists);

  const sql = process.env.DATABASE_URL ? (await import("../../bench/db")).connect(process.env.DATABASE_URL, 1) : undefined;
  try {
    const take = () => snapshot(sql!, merchant.merchant_id, { livemode: true, ownedOnly: true });
    const before = sql ? await take() : undefined;
    const answered: Answered = new Map();

    const results = await fuzz({
      baseUrl: baseURL!,
      keys: { key, restricted: seed().keys.restricted },
      seed: fuzzSeed,
      runs: RUNS,
      concurrency: 4,
      retryRateLimited: true,
      onAnswer(req, answer) {
        const k = req.headers["idempotency-key"];
        if (typeof k !== "string") return;
        const id = `live:${k.trim()}`;
        if (!answered.has(id)) answered.set(id, new Set());
        answered.get(id)!.add(answer.body);
      },
    });
    console.log(table(results));
    const failures = results.flatMap((r) => r.failures);
    expect(failures.map(describeFailure).join("\n\n"), `seed ${fuzzSeed}`).toBe("");
    expect(results.map((r) => r.name)).toEqual(TARGETS.map((t) => t.name));
    for (const r of results) expect(r.requests, r.name).toBe(RUNS);

    expect(await lists()).toEqual(emptyLists);
    if (sql && before) expect(unexpectedWrites(before, await take(), answered)).toEqual([]);
  } finally {
    await sql?.end();
  }
});
