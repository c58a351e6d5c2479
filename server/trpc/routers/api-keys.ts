import { z } from "zod";
import { KEY_KINDS, SCOPES } from "@/server/domain/api-keys";
import { createApiKey, type CreatedApiKey } from "@/server/services/api-keys/create-api-key";
import { listApiKeys, type ApiKeySummary } from "@/server/services/api-keys/list-api-keys";
import { revokeApiKey } from "@/server/services/api-keys/revoke-api-key";
import { confirmCallerPassword, confirmPasswordInput, developerProcedure, objectId, pageInput, router, viewerProcedure } from "../init";
import { formKeyInput, once } from "../once";

/** What the key list shows; the hash is never selected, let alone sent. */
function toApiKeyView(k: ApiKeySummary) {
  return {
    id: k.id,
    object: "api_key" as const,
    livemode: k.livemode,
    kind: k.kind,
    name: k.name,
    scopes: k.scopes,
    display_prefix: k.displayPrefix,
    created_at: k.createdAt.toISOString(),
    last_used_at: k.lastUsedAt ? k.lastUsedAt.toISOString() : null,
    revoked_at: k.revokedAt ? k.revokedAt.toISOString() : null,
  };
}

export const apiKeysRouter = router({
  /** The scopes a restricted key can hold (the domain module is server-only: it hashes keys). */
  scopes: viewerProcedure.query(() => [...SCOPES]),

  list: viewerProcedure
    .input(z.object(pageInput))
    .query(async ({ ctx, input }) => {
      const page = await listApiKeys(ctx.service, input);
      return { data: page.data.map(toApiKeyView), hasMore: page.hasMore };
    }),

  /** A key in the dashboard's environment; the answer is the only time its secret is seen. A live one needs the caller's password. */
  create: developerProcedure
    .input(
      z.object({
        kind: z.enum(KEY_KINDS),
        scopes: z.array(z.enum(SCOPES)).max(SCOPES.length).default([]),
        name: z.string().trim().max(100).optional(),
        confirmPassword: confirmPasswordInput,
        formKey: formKeyInput.optional(),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      if (ctx.service.livemode) await confirmCallerPassword(ctx, input.confirmPassword);
      const shown = ({ key: { hash: _hash, ...summary }, secret }: CreatedApiKey) => ({ key: toApiKeyView(summary), secret });
      return once(
        ctx.service,
        "apiKeys.create",
        input.formKey,
        (record) =>
          createApiKey(
            ctx.service,
            {
              merchantId: ctx.service.merchant.id,
              livemode: ctx.service.livemode,
              kind: input.kind,
              scopes: input.kind === "restricted" ? input.scopes : [],
              name: input.name || undefined,
            },
            record,
          ),
        shown,
      );
    }),

  revoke: developerProcedure.input(z.object({ id: objectId })).mutation(async ({ ctx, input }) => {
    const { hash: _hash, ...summary } = await revokeApiKey(ctx.service, input.id);
    return toApiKeyView(summary);
  }),
});
