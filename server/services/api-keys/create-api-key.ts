import { apiKeys, type ApiKey } from "@/db/schema";
import { generateKey, type KeyKind, type Scope } from "@/server/domain/api-keys";
import { invalidParam } from "@/server/domain/errors";
import { newId } from "@/server/domain/ids";
import type { BaseContext } from "@/server/context";

export type CreateApiKeyInput = {
  merchantId: string;
  livemode: boolean;
  kind: KeyKind;
  scopes?: readonly Scope[];
  name?: string;
};

/** Returns the secret once; only its hash and a display prefix are stored. */
export async function createApiKey(ctx: BaseContext, input: CreateApiKeyInput): Promise<{ key: ApiKey; secret: string }> {
  const scopes = [...new Set(input.scopes ?? [])];
  if (input.kind === "restricted" && scopes.length === 0) throw invalidParam("scopes", "A restricted key needs at least one scope.");
  if (input.kind === "secret" && scopes.length > 0) throw invalidParam("scopes", "A full secret key holds every scope; leave scopes empty.");
  const generated = generateKey(input.kind, input.livemode);
  const now = ctx.clock.now();
  const [key] = await ctx.db
    .insert(apiKeys)
    .values({
      id: newId("apiKey", now),
      merchantId: input.merchantId,
      livemode: input.livemode,
      kind: input.kind,
      scopes,
      name: input.name ?? null,
      hash: generated.hash,
      displayPrefix: generated.displayPrefix,
      createdAt: now,
    })
    .returning();
  return { key: key!, secret: generated.secret };
}
