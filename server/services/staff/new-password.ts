import { hashPassword } from "@/server/domain/passwords";

/**
 * The columns a staff member's new password writes, whoever sets it (they themselves, an admin's
 * reset, the seed): its hash, and the revocation that ends every session signed in before it.
 */
export async function newPasswordColumns(password: string, now: Date) {
  return { passwordHash: await hashPassword(password), sessionsRevokedAt: now };
}
