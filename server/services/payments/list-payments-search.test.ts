import { sql } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { preparing, type Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import * as schema from "@/db/schema";
import { systemClock } from "@/server/clock";
import type { ServiceContext } from "@/server/context";
import { env } from "@/server/env";
import { inRolledBackTransaction, scratchCopy } from "@/server/testing/rolled-back";
import { listPayments } from "./list-payments";

const ROWS = 50_000;
const MERCHANT = "mer_search_probe";

type Sent = { query: string; params: readonly unknown[] };
type PlanNode = { "Node Type": string; "Index Name"?: string; "Shared Hit Blocks"?: number; "Shared Read Blocks"?: number; Plans?: PlanNode[] };

/** Pages of the trigram index a plan read (the scratch copy names its indexes after their columns). */
function trigramPages(node: PlanNode): number {
  const own = node["Node Type"] === "Bitmap Index Scan" && /reference/.test(node["Index Name"] ?? "") ? (node["Shared Hit Blocks"] ?? 0) + (node["Shared Read Blocks"] ?? 0) : 0;
  return own + (node.Plans ?? []).reduce((n, child) => n + trigramPages(child), 0);
}

const literal = (v: unknown): string => (typeof v === "string" ? `'${v.replaceAll("'", "''")}'` : String(v));

/** EXPLAIN ANALYZE of a statement as it was sent, its parameters written in. */
async function explain(tx: Db, sent: Sent): Promise<PlanNode> {
  const text = sent.query.replace(/\$(\d+)/g, (_, n: string) => literal(sent.params[Number(n) - 1]));
  const [row] = rowsOf<{ "QUERY PLAN": [{ Plan: PlanNode }] }>(await tx.execute(sql.raw(`explain (analyze, buffers, format json) ${text}`)));
  return row!["QUERY PLAN"][0].Plan;
}

// Index pages and plans exist only on PostgreSQL (CI sets DATABASE_URL).
describe.runIf(env().DATABASE_URL)("a reference search on a merchant whose references share a start", () => {
  it("finds its candidates by the part of the search that tells references apart", async () => {
    const sent: Sent[] = [];
    const client = postgres(env().DATABASE_URL!, { max: 1, onnotice: () => {}, debug: (_connection, query, params) => sent.push({ query, params }) });
    const db = drizzle(preparing(client), { schema }) as unknown as Db;
    try {
      await inRolledBackTransaction(db, async (tx) => {
        const run = (q: string) => tx.execute(sql.raw(q));
        await scratchCopy(tx, "search_probe", "payments");
        // INV-00000001 … INV-00050000: every reference has the trigrams of `INV-000`.
        await run(`insert into payments (id, merchant_id, livemode, amount, currency, method, reference, customer_msisdn, network, fee, fee_bearer, charged_amount, status, provider, expires_at, created_at, updated_at)
          select 'pay_' || lpad(i::text, 26, '0'), '${MERCHANT}', false, 100, 'USD', 'wallet', 'INV-' || lpad(i::text, 8, '0'), '263771234567', 'econet', 0, 'merchant', 100, 'succeeded', 'sandbox', now(), now(), now()
          from generate_series(1, ${ROWS}) as i`);
        // Moves the rows from GIN's list of pending insertions into the index proper, where a search
        // reads only the trigrams it asks for (autovacuum would, in time).
        await run(`select gin_clean_pending_list(indexrelid) from pg_index where indrelid = 'search_probe.payments'::regclass and indexrelid::regclass::text like '%reference%' and indisunique = false`);
        await run(`analyze payments`);
        const ctx = { db: tx, clock: systemClock, merchant: { id: MERCHANT }, livemode: false } as unknown as ServiceContext;

        const from = sent.length;
        const page = await listPayments(ctx, { search: "inv-00012345" }, { limit: 20 });
        expect(page.data.map((p) => p.reference)).toEqual(["INV-00012345"]);

        const list = sent.slice(from).find((s) => /ilike/i.test(s.query));
        expect(list, "the list statement").toBeDefined();
        const narrowed = trigramPages(await explain(tx, list!));
        // The same statement with the whole search handed to the index, as before the narrowing.
        const pattern = list!.params.find((v) => v === "%inv-00012345%");
        const whole = trigramPages(await explain(tx, { query: list!.query, params: list!.params.map((v) => (typeof v === "string" && v.startsWith("%") ? pattern : v)) }));
        expect(narrowed).toBeGreaterThan(0);
        expect(narrowed * 3, `${narrowed} index pages narrowed, ${whole} whole`).toBeLessThan(whole);
      });
    } finally {
      await client.end();
    }
  });
});
