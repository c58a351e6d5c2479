import type { FeeBearer } from "@/server/domain/fees";

/** The settings form's fields, as typed. */
export type SettingsFields = { bearer: FeeBearer; seconds: string };

/**
 * What a save sends: only the fields changed from what the form started with, so that a form
 * opened before another admin saved does not put back what they changed and this one did not.
 */
export function settingsChanges(from: SettingsFields, now: SettingsFields): { feeBearer?: FeeBearer; paymentExpirySeconds?: number } {
  return {
    ...(now.bearer !== from.bearer ? { feeBearer: now.bearer } : {}),
    ...(now.seconds.trim() !== from.seconds.trim() ? { paymentExpirySeconds: Number(now.seconds.trim()) } : {}),
  };
}
