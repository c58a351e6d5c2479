import type { Clock } from "@/server/clock";
import type { Db } from "@/db/client";
import { log } from "@/server/log";
import type { ProviderRegistry } from "@/server/providers/port";
import { expireClaimed } from "@/server/services/payments/expire-payment";
import { reconcileClaimed } from "@/server/services/payments/reconcile-payment";
import { advanceRefund } from "@/server/services/refunds/advance-refund";
import { resumeReplays } from "@/server/services/events/replay-event-window";
import { claimDuePayments, claimDueRefunds, claimStalledReplays } from "./due-work";

/** What due work needs; `merchantId` confines a worker to one merchant (tests share one database). */
export type DueDeps = { db: Db; clock: Clock; providers: ProviderRegistry; merchantId?: string };

/** The kinds of due work that are claimed in batches and run by the verbs. */
export const DUE_KINDS = ["expiry", "reconcile", "refunds"] as const;
export type DueKind = (typeof DUE_KINDS)[number];

/**
 * How many of a kind one claim takes. Expiries come in bursts (a campaign's payments fall due
 * within a minute of each other), and a batch of them costs the same round trips whatever its size
 * (the claim, which returns the rows, then one transaction). While the API keeps node's thread busy
 * each round trip waits its turn on it: under a closed loop of creates, batches of 100 took
 * 470–670 ms, about 170 expiries a second, so 167 a second falling due left the runner 2–3 s
 * behind (bench/HISTORY.md).
 * A claim takes only what is due, so the batches are larger only when work has piled up.
 */
export const CLAIM_SIZE: Record<DueKind, number> = { expiry: 250, reconcile: 100, refunds: 100 };

/** Status queries and refund calls of one batch in flight at once: a slow provider costs a timeout per wave, not per item. */
const CONCURRENCY = 32;

/**
 * Claims one batch of a kind of due work (SKIP LOCKED, leased) and runs the verbs on it. The
 * failure of an item, or of the batch's move, is logged and leaves that work due again when its
 * lease ends, and the rest of the batch goes on; only the claim's own failure (the database)
 * propagates. `refundGraceMs` leaves refunds due less than that long ago to the Inngest function
 * that scheduled them. Returns the ids it claimed.
 */
export async function runDueBatch(deps: DueDeps, kind: DueKind, opts: { refundGraceMs?: number } = {}): Promise<string[]> {
  const { db, clock, merchantId } = deps;
  switch (kind) {
    case "expiry": {
      const claimed = await claimDuePayments(db, kind, clock.now(), CLAIM_SIZE.expiry, merchantId);
      // Expiries move in batches: one transaction per claim instead of one per payment.
      await expireClaimed(deps, claimed).catch((e: unknown) =>
        log.error("expiries failed; they will be due again when their lease ends", { claimed: claimed.length, error: e }),
      );
      return claimed.map((p) => p.id);
    }
    case "reconcile": {
      const claimed = await claimDuePayments(db, kind, clock.now(), CLAIM_SIZE.reconcile, merchantId);
      await mapLimit(claimed, CONCURRENCY, (payment) =>
        reconcileClaimed(deps, payment).catch((e: unknown) =>
          log.error("due work failed; it will be due again when its lease ends", { kind, payment: payment.id, error: e }),
        ),
      );
      return claimed.map((p) => p.id);
    }
    case "refunds": {
      const ids = await claimDueRefunds(db, clock.now(), CLAIM_SIZE.refunds, { merchantId, overdueMs: opts.refundGraceMs });
      await mapLimit(ids, CONCURRENCY, (id) =>
        advanceRefund(deps, id).catch((e: unknown) => log.error("refund work failed; it will be due again when its lease ends", { refund: id, error: e })),
      );
      return ids;
    }
  }
}

/**
 * Claims up to `limit` window replays whose lease ran out and carries them on, side by side, from
 * their cursors (`budgetMs`: handing the rest back after that long). Each replay's failure is
 * logged and leaves it due when its lease ends; only the claim's own failure (the database)
 * propagates. Returns how many finished.
 */
export async function carryOnStalledReplays(deps: DueDeps, limit: number, opts: { budgetMs?: number } = {}): Promise<number> {
  return resumeReplays(deps, await claimStalledReplays(deps.db, deps.clock.now(), limit, deps.merchantId), opts);
}

/**
 * Batches of one kind, claimed and run until fewer are due than a batch or `budgetMs` has passed:
 * a backlog (every expiry overdue after an outage) is cleared batch after batch rather than one
 * batch a minute. Returns how many it claimed.
 */
export function drainDue(deps: DueDeps, kind: DueKind, opts: { budgetMs: number; refundGraceMs?: number }): Promise<number> {
  return drainBatches(async () => (await runDueBatch(deps, kind, opts)).length, CLAIM_SIZE[kind], opts.budgetMs);
}

/**
 * Runs `batch` (which claims up to `size` and runs them, returning how many it claimed) again
 * while it claims a full batch and `budgetMs` has not passed. Returns how many were claimed.
 */
export async function drainBatches(batch: () => Promise<number>, size: number, budgetMs: number): Promise<number> {
  const started = performance.now();
  let claimed = 0;
  for (;;) {
    const n = await batch();
    claimed += n;
    if (n < size || performance.now() - started >= budgetMs) return claimed;
  }
}

async function mapLimit<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]!);
  });
  await Promise.all(workers);
}
