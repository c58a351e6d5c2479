import { and, eq, sql } from "drizzle-orm";
import type { Db } from "@/db/client";
import { rowsOf } from "@/db/rows";
import { merchants, staffUsers, type Merchant } from "@/db/schema";
import type { Scope } from "@/server/domain/api-keys";
import { STANDARD_FEE_PLAN, type FeeBearer } from "@/server/domain/fees";
import { newId } from "@/server/domain/ids";
import { generatePassword, hashPassword } from "@/server/domain/passwords";
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
};

const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

/**
 * Makes sure a merchant with this slug exists with an admin staff user, and issues fresh keys.
 * Safe to run again: the merchant and staff user are created once; keys are new on every run.
 * The staff password is returned only by the run that created the user (it is never stored plain),
 * or by one asked for a new one (`newPassword`).
 */
export async function seedMerchant(ctx: BaseContext, input: SeedInput): Promise<SeedResult & { created: boolean }> {
  if (!SLUG.test(input.slug)) throw new Error(`Invalid merchant slug '${input.slug}': use lowercase letters, digits and dashes.`);
  const now = ctx.clock.now();
  const name = input.slug === "demo" ? "Demo Store" : input.slug.replace(/(^|-)([a-z])/g, (_m, sep: string, c: string) => `${sep ? " " : ""}${c.toUpperCase()}`);

  const [inserted] = await ctx.db
    .insert(merchants)
    .values({ id: newId("merchant", now), name, slug: input.slug, feePlan: STANDARD_FEE_PLAN, feeBearer: input.feeBearer ?? "merchant", createdAt: now })
    .onConflictDoNothing({ target: merchants.slug })
    .returning();
  const merchant: Merchant = inserted ?? (await ctx.db.select().from(merchants).where(eq(merchants.slug, input.slug)))[0]!;

  const email = `admin@${input.slug}.mari.test`;
  let password: string | undefined;
  // A login is a business and an address (migration 0017): the same address may be a member of
  // other businesses, whose logins are none of this seed's business.
  const [existingStaff] = await ctx.db
    .select({ id: staffUsers.id })
    .from(staffUsers)
    .where(and(eq(staffUsers.merchantId, merchant.id), sql`lower(${staffUsers.email}) = ${email}`));
  // What the seed does is the system's doing, in the security log.
  const seed: SecurityContext = { ...ctx, actor: { type: "system", job: "seed" } };
  if (!existingStaff) {
    const candidate = generatePassword();
    const passwordHash = await hashPassword(candidate);
    const createdStaff = await ctx.db.transaction(async (tx) => {
      const [row] = await insertAdmin(tx, { id: newId("staffUser", now), merchantId: merchant.id, email, passwordHash, createdAt: now });
      if (row) await recordSecurityEvent(tx, seed, { merchantId: merchant.id, action: "staff.added", target: { id: row.id, label: email }, detail: { role: "admin" } });
      return row;
    });
    if (createdStaff) password = candidate;
  } else if (input.newPassword) {
    const candidate = generatePassword();
    const columns = await newPasswordColumns(candidate, now);
    await ctx.db.transaction(async (tx) => {
      await tx.update(staffUsers).set(columns).where(eq(staffUsers.id, existingStaff.id));
      await recordSecurityEvent(tx, seed, { merchantId: merchant.id, action: "staff.password_reset", target: { id: existingStaff.id, label: email } });
    });
    password = candidate;
  }

  const test = await createApiKey(seed, { merchantId: merchant.id, livemode: false, kind: "secret", name: "seed" });
  const live = await createApiKey(seed, { merchantId: merchant.id, livemode: true, kind: "secret", name: "seed" });
  const restricted =
    input.restrictedScopes && input.restrictedScopes.length > 0
      ? await createApiKey(seed, {
          merchantId: merchant.id,
          livemode: false,
          kind: "restricted",
          scopes: input.restrictedScopes,
          name: "seed (restricted)",
        })
      : undefined;

  return {
    created: inserted !== undefined,
    merchant_id: merchant.id,
    slug: merchant.slug,
    staff: password ? { email, password } : { email },
    keys: { test: test.secret, live: live.secret, ...(restricted ? { restricted: restricted.secret } : {}) },
  };
}

/**
 * Adds the merchant's admin unless the merchant already has a login with that address (a seed
 * running at the same time added it). Raw SQL because the conflict target is the unique index on
 * (merchant_id, lower(email)), an expression drizzle's onConflictDoNothing cannot name; without a
 * target, any other conflict would be passed over in silence too.
 */
async function insertAdmin(db: Db, admin: { id: string; merchantId: string; email: string; passwordHash: string; createdAt: Date }): Promise<{ id: string }[]> {
  return rowsOf<{ id: string }>(
    await db.execute(sql`
      insert into ${staffUsers} (id, merchant_id, email, password_hash, role, created_at)
      values (${admin.id}, ${admin.merchantId}, ${admin.email}, ${admin.passwordHash}, ${"admin" satisfies StaffRole}, ${admin.createdAt.toISOString()}::timestamptz)
      on conflict (merchant_id, lower(email)) do nothing
      returning id`),
  );
}
