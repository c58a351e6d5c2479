import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { merchants, staffUsers, type Merchant } from "@/db/schema";
import type { Scope } from "@/server/domain/api-keys";
import { STANDARD_FEE_PLAN, type FeeBearer } from "@/server/domain/fees";
import { newId } from "@/server/domain/ids";
import { generatePassword } from "@/server/domain/passwords";
import type { StaffRole } from "@/server/domain/staff";
import type { BaseContext } from "@/server/context";
import { createApiKey } from "../api-keys/create-api-key";
import { recordSecurityEvent, type SecurityContext } from "../security-log/record-security-event";
import { newPasswordColumns } from "../staff/new-password";

export type SeedResult = {
  merchant_id: string;
  slug: string;
  staff: { email: string; password?: string };
  keys: { test: string; live: string; restricted?: string };
};

export type SeedInput = {
  slug: string;
  restrictedScopes?: readonly Scope[];
  /** Who bears the fee of a merchant created by this seed (an existing merchant keeps its own). */
  feeBearer?: FeeBearer;
  /** The admin exists already and lost the password: give them a new one (their sessions end). */
  newPassword?: boolean;
  /**
   * Shows what the run made, before it commits: a run killed after committing but before showing
   * would leave an admin whose password no one saw. Shown first, a run killed before its commit
   * leaves nothing, and the next one makes and shows everything again. A throw undoes the run.
   */
  show?: (result: SeedResult & { created: boolean }) => void | Promise<void>;
};

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

/** Throws unless `slug` can name a merchant. */
export function checkMerchantSlug(slug: string): void {
  if (!SLUG.test(slug)) throw new Error(`Invalid merchant slug '${slug}': use up to 40 lowercase letters, digits and dashes, not starting or ending with a dash.`);
}

/**
 * Makes sure a merchant with this slug exists with an admin staff user, and issues fresh keys.
 * Safe to run again: the merchant and staff user are created once; keys are new on every run.
 * The staff password is returned only by the run that created the user (it is never stored plain),
 * or by one asked for a new one (`newPassword`).
 *
 * All of it is one transaction: a run that dies part-way (the first `npm run dev` stopped while it
 * seeds) leaves nothing, so the next start seeds again and shows the login then. Committed in
 * steps, it left a merchant without an admin, which later starts took for seeded and no one could
 * sign in to.
 */
export async function seedMerchant(ctx: BaseContext, input: SeedInput): Promise<SeedResult & { created: boolean }> {
  checkMerchantSlug(input.slug);
  const now = ctx.clock.now();
  // Hashed before the transaction, whether it is needed or not: scrypt takes a thread for 0.1–0.4 s,
  // which a transaction should not wait for (on the embedded database it holds the one connection).
  const password = generatePassword();
  const passwordColumns = await newPasswordColumns(password, now);
  return ctx.db.transaction(async (tx) => {
    // What the seed does is the system's doing, in the security log.
    const seed: SecurityContext = { db: tx, clock: ctx.clock, actor: { type: "system", job: "seed" } };
    const { merchant, created } = await findOrCreateMerchant(tx, input, now);
    const email = `admin@${merchant.slug}.mari.test`;
    const added = await addAdmin(seed, { merchantId: merchant.id, email, passwordHash: passwordColumns.passwordHash, createdAt: now });
    const reset = !added && input.newPassword === true && (await resetAdminPassword(seed, { merchantId: merchant.id, email, columns: passwordColumns }));
    const keys = await issueKeys(seed, merchant.id, input.restrictedScopes);
    const result = { created, merchant_id: merchant.id, slug: merchant.slug, staff: added || reset ? { email, password } : { email }, keys };
    await input.show?.(result);
    return result;
  });
}

async function findOrCreateMerchant(db: Db, input: SeedInput, now: Date): Promise<{ merchant: Merchant; created: boolean }> {
  const [inserted] = await db
    .insert(merchants)
    .values({ id: newId("merchant", now), name: merchantName(input.slug), slug: input.slug, feePlan: STANDARD_FEE_PLAN, feeBearer: input.feeBearer ?? "merchant", createdAt: now })
    .onConflictDoNothing({ target: merchants.slug })
    .returning();
  if (inserted) return { merchant: inserted, created: true };
  const [existing] = await db.select().from(merchants).where(eq(merchants.slug, input.slug));
  return { merchant: existing!, created: false };
}

/** `demo` → Demo Store, `acme-foods` → Acme Foods. */
function merchantName(slug: string): string {
  return slug === "demo" ? "Demo Store" : slug.replace(/(^|-)([a-z])/g, (_m, sep: string, c: string) => `${sep ? " " : ""}${c.toUpperCase()}`);
}

type NewAdmin = { merchantId: string; email: string; passwordHash: string; createdAt: Date };

/**
 * Adds the merchant's admin, unless the merchant already has a login with that address; true when
 * it did. A login is a business and an address (migration 0017): the same address may be a member
 * of other businesses, which are none of this seed's business.
 */
async function addAdmin(ctx: SecurityContext, admin: NewAdmin): Promise<boolean> {
  const [row] = await insertAdmin(ctx.db, { id: newId("staffUser", admin.createdAt), ...admin });
  if (!row) return false;
  await recordSecurityEvent(ctx.db, ctx, { merchantId: admin.merchantId, action: "staff.added", target: { id: row.id, label: admin.email }, detail: { role: "admin" } });
  return true;
}

/** Gives the merchant's admin a new password (their sessions end); true when there was one to give it to. */
async function resetAdminPassword(
  ctx: SecurityContext,
  admin: { merchantId: string; email: string; columns: Awaited<ReturnType<typeof newPasswordColumns>> },
): Promise<boolean> {
  const [row] = await ctx.db
    .update(staffUsers)
    .set(admin.columns)
    .where(and(eq(staffUsers.merchantId, admin.merchantId), sql`lower(${staffUsers.email}) = ${admin.email}`))
    .returning({ id: staffUsers.id });
  if (!row) return false;
  await recordSecurityEvent(ctx.db, ctx, { merchantId: admin.merchantId, action: "staff.password_reset", target: { id: row.id, label: admin.email } });
  return true;
}

async function issueKeys(ctx: SecurityContext, merchantId: string, restrictedScopes: readonly Scope[] | undefined): Promise<SeedResult["keys"]> {
  const test = await createApiKey(ctx, { merchantId, livemode: false, kind: "secret", name: "seed" });
  const live = await createApiKey(ctx, { merchantId, livemode: true, kind: "secret", name: "seed" });
  // An empty list asks for a restricted key with no scope, which createApiKey refuses: not for none.
  if (restrictedScopes === undefined) return { test: test.secret, live: live.secret };
  const restricted = await createApiKey(ctx, { merchantId, livemode: false, kind: "restricted", scopes: restrictedScopes, name: "seed (restricted)" });
  return { test: test.secret, live: live.secret, restricted: restricted.secret };
}

/**
 * The admin's row, or none when the merchant already has a login with that address (an earlier
 * seed's, or one a seed running at the same time just added). Raw SQL because the conflict target
 * is the unique index on (merchant_id, lower(email)), an expression drizzle's onConflictDoNothing
 * cannot name; without a target, any other conflict would be passed over in silence too.
 */
async function insertAdmin(db: Db, admin: NewAdmin & { id: string }): Promise<{ id: string }[]> {
  return rowsOf<{ id: string }>(
    await db.execute(sql`
      insert into ${staffUsers} (id, merchant_id, email, password_hash, role, created_at)
      values (${admin.id}, ${admin.merchantId}, ${admin.email}, ${admin.passwordHash}, ${"admin" satisfies StaffRole}, ${admin.createdAt.toISOString()}::timestamptz)
      on conflict (merchant_id, lower(email)) do nothing
      returning id`),
  );
}
