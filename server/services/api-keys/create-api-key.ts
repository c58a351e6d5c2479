import { apiKeys, type ApiKey } from "@/db/schema";
import { generateKey, keyLabel, type KeyKind, type Scope } from "@/server/domain/api-keys";
import { invalidParam } from "@/server/domain/errors";
import { newId } from "@/server/domain/ids";
import type { ResponseRecord } from "@/server/services/idempotency/completion";
import { writeWithResponse } from "@/server/services/idempotency/with-response";
import { recordSecurityEvent, type SecurityContext } from "@/server/services/security-log/record-security-event";

export type CreateApiKeyInput = {
  merchantId: string;
  livemode: boolean;
  kind: KeyKind;
  scopes?: readonly Scope[];
  name?: string;
};

export type CreatedApiKey = { key: ApiKey; secret: string };

/**
 * Returns the secret once; only its hash and a display prefix are stored. Recorded in the security
 * log. With `response` (a dashboard form's record), the answer showing the secret commits with the key.
 */
export async function createApiKey(ctx: SecurityContext, input: CreateApiKeyInput, response?: ResponseRecord<CreatedApiKey>): Promise<CreatedApiKey> {
  const scopes = [...new Set(input.scopes ?? [])];
  if (input.kind === "restricted" && scopes.length === 0) throw invalidParam("scopes", "A restricted key needs at least one scope.");
  if (input.kind === "secret" && scopes.length > 0) throw invalidParam("scopes", "A full secret key holds every scope; leave scopes empty.");
  const generated = generateKey(input.kind, input.livemode);
  const now = ctx.clock.now();
  return writeWithResponse(ctx.db, response, async (tx) => {
    const [row] = await tx
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
    await recordSecurityEvent(tx, ctx, {
      merchantId: input.merchantId,
      action: "api_key.created",
      livemode: input.livemode,
      target: { id: row!.id, label: keyLabel(row!) },
      detail: { kind: input.kind, ...(scopes.length > 0 ? { scopes } : {}) },
    });
    return { key: row!, secret: generated.secret };
  });
}
