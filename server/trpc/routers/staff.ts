import { z } from "zod";
import { STAFF_ROLES } from "@/server/domain/staff";
import { addStaffMember, type AddedStaff } from "@/server/services/staff/add-staff-member";
import { PASSWORD_MAX_LENGTH } from "@/server/domain/passwords";
import { changeOwnPassword } from "@/server/services/staff/change-own-password";
import { changeStaffRole } from "@/server/services/staff/change-staff-role";
import { listStaff } from "@/server/services/staff/list-staff";
import { removeStaffMember } from "@/server/services/staff/remove-staff-member";
import { resetStaffPassword, type ResetPassword } from "@/server/services/staff/reset-staff-password";
import { revokeStaffSessions } from "@/server/services/staff/revoke-staff-sessions";
import { adminProcedure, confirmCallerPassword, confirmPasswordInput, objectId, router, viewerProcedure } from "../init";
import { formKeyInput, once } from "../once";

export const staffRouter = router({
  /** Who can sign in for this merchant (everyone may see the team; only admins change it). */
  list: viewerProcedure.query(async ({ ctx }) =>
    (await listStaff(ctx.service)).map((s) => ({ id: s.id, email: s.email, role: s.role, createdAt: s.createdAt.toISOString(), you: s.id === ctx.staff.id })),
  ),
  /** Gives someone a login: the admin's own password first. */
  add: adminProcedure
    .input(z.object({ email: z.string().max(320), role: z.enum(STAFF_ROLES), confirmPassword: confirmPasswordInput, formKey: formKeyInput.optional() }))
    .mutation(async ({ ctx, input }) => {
      await confirmCallerPassword(ctx, input.confirmPassword);
      const shown = ({ staff, password }: AddedStaff) => ({ id: staff.id, email: staff.email, role: staff.role, password, business: ctx.service.merchant.slug });
      return once(ctx.service, "staff.add", input.formKey, (record) => addStaffMember(ctx.service, { email: input.email, role: input.role }, record), shown);
    }),
  /**
   * Changes what someone may do: the admin's own password first. Making someone admin hands them
   * the team, and taking it from another admin (or removing them) is what a stolen session would
   * do to lock the others out.
   */
  changeRole: adminProcedure
    .input(z.object({ id: objectId, role: z.enum(STAFF_ROLES), confirmPassword: confirmPasswordInput }))
    .mutation(async ({ ctx, input }) => {
      await confirmCallerPassword(ctx, input.confirmPassword);
      const s = await changeStaffRole(ctx.service, { staffId: input.id, role: input.role });
      return { id: s.id, email: s.email, role: s.role };
    }),
  /** Anyone's own password, with their current one; their other sessions end (this one signs in again). */
  changePassword: viewerProcedure
    .input(z.object({ current: z.string().max(PASSWORD_MAX_LENGTH), password: z.string().max(PASSWORD_MAX_LENGTH) }))
    .mutation(async ({ ctx, input }) => changeOwnPassword(ctx.service, { staffId: ctx.staff.id, ...input })),
  /** Ends every session of the caller's, this one included. */
  signOutEverywhere: viewerProcedure.mutation(async ({ ctx }) => {
    await revokeStaffSessions(ctx.service, ctx.staff.id);
    return { signedOut: true };
  }),
  /** A new one-time password for someone else on the team, who is signed out everywhere; the admin's own password first. */
  resetPassword: adminProcedure.input(z.object({ id: objectId, confirmPassword: confirmPasswordInput, formKey: formKeyInput.optional() })).mutation(async ({ ctx, input }) => {
    await confirmCallerPassword(ctx, input.confirmPassword);
    const shown = ({ staff, password }: ResetPassword) => ({ id: staff.id, email: staff.email, password, business: ctx.service.merchant.slug });
    return once(ctx.service, `staff.resetPassword:${input.id}`, input.formKey, (record) => resetStaffPassword(ctx.service, { staffId: input.id, by: ctx.staff.id }, record), shown);
  }),
  /** Takes someone's login away, and signs them out: the admin's own password first (see changeRole). */
  remove: adminProcedure.input(z.object({ id: objectId, confirmPassword: confirmPasswordInput })).mutation(async ({ ctx, input }) => {
    await confirmCallerPassword(ctx, input.confirmPassword);
    await removeStaffMember(ctx.service, input.id);
    return { id: input.id, removed: true };
  }),
});
