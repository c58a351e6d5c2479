import type { Scope } from "./claim";

/**
 * Completed idempotency records this process stored or read, so that a retry of one is answered
 * without the database. A completed record is final: it never changes, and it goes only when it
 * expires (the claim forgets it, or the sweep deletes it), so a copy answers exactly as the row
 * would until then. A record completed by another process, or forgotten here (a restart, the
 * bound below), is read from the database as before.
 */
export type RememberedRecord = { requestHash: string; status: number; body: string; expiresAt: Date };

/** Most records kept: retries come soon after their request, and older ones are read from the database. */
export const REMEMBERED_MAX = 10_000;
/**
 * Most characters kept, keys and answers together (8 million; 10,000 answers of REMEMBERED_MAX_BODY
 * would be 160 million): a payment's answer is under 1 KB, so this binds only when answers are large.
 */
export const REMEMBERED_MAX_CHARS = 8 * 1024 * 1024;
/** Larger answers are not kept. */
export const REMEMBERED_MAX_BODY = 16 * 1024;

const records = new Map<string, RememberedRecord>();
let chars = 0;
const id = (scope: Scope, key: string) => `${scope.merchantId}\u0000${scope.livemode ? "live" : "test"}\u0000${key}`;
const size = (k: string, record: RememberedRecord) => k.length + record.requestHash.length + record.body.length;

function forget(k: string): void {
  const record = records.get(k);
  if (!record) return;
  records.delete(k);
  chars -= size(k, record);
}

export function rememberCompleted(scope: Scope, key: string, record: RememberedRecord): void {
  if (record.body.length > REMEMBERED_MAX_BODY) return;
  const k = id(scope, key);
  forget(k);
  records.set(k, record);
  chars += size(k, record);
  // A Map iterates in insertion order, the record stored longest ago first.
  for (const oldest of records.keys()) {
    if (records.size <= REMEMBERED_MAX && chars <= REMEMBERED_MAX_CHARS) break;
    forget(oldest);
  }
}

/**
 * The stored answer to a retry of a completed request, or undefined when this process does not
 * hold the record (the database decides); "other_request" when the key was used with another
 * request (the caller answers `idempotency_key_reused`, as the claim does).
 */
export function recallCompleted(scope: Scope, key: string, fingerprint: string, now: Date): { status: number; body: string } | "other_request" | undefined {
  const k = id(scope, key);
  const record = records.get(k);
  if (!record) return undefined;
  if (record.expiresAt <= now) {
    forget(k);
    return undefined;
  }
  if (record.requestHash !== fingerprint) return "other_request";
  return { status: record.status, body: record.body };
}

/** Forgets every record, as a restart does: the next retry of each is read from the database. */
export function forgetRemembered(): void {
  records.clear();
  chars = 0;
}
