import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { payments, type Payment } from "@/db/schema";
import { seedPayment, seedSucceededPayment, seedTestMerchant, type TestMerchant } from "@/server/testing/fixtures";
import { EXPORT_COLUMNS, exportFileName, exportPayments } from "./export-payments";
import type { PaymentFilters } from "./list-payments";

/** A small RFC 4180 reader, enough to read back what the export wrote. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  const endCell = () => {
    row.push(cell);
    cell = "";
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") endCell();
    else if (c === "\r" && text[i + 1] === "\n") {
      endCell();
      rows.push(row);
      row = [];
      i++;
    } else cell += c;
  }
  expect(cell).toBe("");
  return rows;
}

async function collect(m: TestMerchant, filters: PaymentFilters, livemode = false, pageSize = 3) {
  const chunks: string[] = [];
  for await (const chunk of exportPayments(await m.ctx(livemode), filters, { pageSize })) chunks.push(chunk);
  return { chunks, rows: parseCsv(chunks.join("")) };
}

async function withReference(p: Payment, reference: string, metadata: Record<string, string> = {}) {
  const db = await getDb();
  const [row] = await db.update(payments).set({ reference, metadata }).where(eq(payments.id, p.id)).returning();
  return row!;
}

let a: TestMerchant;
let b: TestMerchant;
let mine: Payment[];
const start = Date.parse("2026-02-01T10:00:00Z");
beforeAll(async () => {
  a = await seedTestMerchant();
  b = await seedTestMerchant();
  mine = [];
  for (let i = 0; i < 7; i++) {
    const status = i % 3 === 0 ? "failed" : i % 3 === 1 ? "unknown" : "succeeded";
    mine.push(await seedPayment(a, status, { at: new Date(start + i * 60_000) }));
  }
  mine[2] = await withReference(mine[2]!, '=HYPERLINK("http://evil.example","click")', { note: 'says "hi", twice' });
  mine[4] = await withReference(mine[4]!, "order, with comma\nand a line");
  // Never in a's test export: a's live payment and b's payment.
  await seedSucceededPayment(a, { livemode: true, at: new Date(start + 30_000) });
  await seedSucceededPayment(b, { at: new Date(start + 30_000) });
});

describe("exportFileName", () => {
  it("stamps the download in Harare time, as the dashboard shows times", () => {
    expect(exportFileName(false, new Date("2026-11-26T23:40:59.123Z"))).toBe("payments-test-2026-11-27-01-40-59.csv");
    expect(exportFileName(true, new Date("2026-11-27T08:00:00Z"))).toBe("payments-live-2026-11-27-10-00-00.csv");
  });
});

describe("exportPayments", () => {
  it("writes the header and every payment once, newest first, a keyset page per chunk", async () => {
    const { chunks, rows } = await collect(a, {});
    expect(rows[0]).toEqual(EXPORT_COLUMNS);
    const ids = rows.slice(1).map((r) => r[0]);
    expect(ids).toEqual(mine.map((p) => p.id).reverse());
    // The header, then pages of 3, 3 and 1.
    expect(chunks).toHaveLength(4);
    for (const r of rows) expect(r).toHaveLength(EXPORT_COLUMNS.length);
  });

  it("quotes what needs it and neutralises cells that start like a formula", async () => {
    const { rows } = await collect(a, {});
    const byId = new Map(rows.slice(1).map((r) => [r[0], Object.fromEntries(EXPORT_COLUMNS.map((c, i) => [c, r[i]]))]));
    const evil = byId.get(mine[2]!.id)!;
    expect(evil.reference).toBe(`'=HYPERLINK("http://evil.example","click")`);
    expect(JSON.parse(evil.metadata!)).toEqual({ note: 'says "hi", twice' });
    expect(byId.get(mine[4]!.id)!.reference).toBe("order, with comma\nand a line");
    const plain = byId.get(mine[0]!.id)!;
    expect(plain).toMatchObject({ status: "failed", amount: "10.00", currency: "USD", fee: "0.15", charged_amount: "10.00", amount_refunded: "0.00", customer_msisdn_masked: expect.stringMatching(/\*/), failure_code: "declined" });
    expect(plain.created_at).toBe(mine[0]!.createdAt.toISOString());
  });

  it("exports only what the filters select", async () => {
    const unknown = await collect(a, { status: "unknown" });
    expect(unknown.rows.slice(1).map((r) => r[0])).toEqual(mine.filter((p) => p.status === "unknown").map((p) => p.id).reverse());
    const search = await collect(a, { search: "hyperlink" });
    expect(search.rows.slice(1).map((r) => r[0])).toEqual([mine[2]!.id]);
    const window = await collect(a, { createdGte: mine[1]!.createdAt, createdLt: mine[4]!.createdAt });
    expect(window.rows.slice(1).map((r) => r[0])).toEqual([mine[3]!.id, mine[2]!.id, mine[1]!.id]);
    const none = await collect(a, { currency: "ZWG" });
    expect(none.rows).toEqual([EXPORT_COLUMNS]);
  });

  it("never exports another environment's or another merchant's payments", async () => {
    const live = await collect(a, {}, true);
    expect(live.rows).toHaveLength(2);
    expect(live.rows[1]![0]).not.toBe(mine[0]!.id);
    const theirs = await collect(b, {});
    expect(theirs.rows.slice(1).map((r) => r[0])).not.toContain(mine[0]!.id);
    expect(theirs.rows).toHaveLength(2);
  });

  it("reads no further than the consumer asks", async () => {
    const gen = exportPayments(await a.ctx(), {}, { pageSize: 2 });
    expect((await gen.next()).value).toContain("id,created_at");
    const first = (await gen.next()).value as string;
    expect(parseCsv(first).map((r) => r[0])).toEqual([mine[6]!.id, mine[5]!.id]);
    // Stopping early (a cancelled download) ends the walk.
    await gen.return(undefined);
    expect((await gen.next()).done).toBe(true);
  });
});
