import { router, viewerProcedure } from "../init";

export const sessionRouter = router({
  /** Who is signed in, for which merchant, in which environment: the shell's header. */
  me: viewerProcedure.query(({ ctx }) => ({
    email: ctx.staff.email,
    role: ctx.staff.role,
    // `slug` is the business that staff name when they sign in.
    merchant: { id: ctx.service.merchant.id, name: ctx.service.merchant.name, slug: ctx.service.merchant.slug },
    livemode: ctx.livemode,
  })),
});
