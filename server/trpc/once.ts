import { createHash } from "node:crypto";
import { z } from "zod";
import { dataKey } from "@/server/data-key";
import { dashboardIdempotencyKey } from "@/server/domain/idempotency";
import { seal, unseal } from "@/server/domain/sealing";
import type { ServiceContext } from "@/server/context";
import { claimIdempotencyKey } from "@/server/services/idempotency/claim";
import type { ResponseRecord } from "@/server/services/idempotency/completion";

/**
 * The key a dashboard form makes once and sends with each try of its action, until one is
 * answered: a double click, or a try sent again after its answer was lost, is that one action.
 */
export const formKeyInput = z.string().regex(/^[0-9a-f]{32}$/, "formKey must be 32 hexadecimal characters.");

/**
 * Runs a dashboard action that makes something (a key, an endpoint, a link, a login, a secret)
 * once per form key, on the same records as /v1's Idempotency-Key (24 h, per merchant and mode,
 * the answer sealed, since it holds what is shown once): a try sent again gets the first try's
 * answer, and the secret it showed, instead of making a second one (or, for a roll, retiring the
 * secret the first roll kept). Only an answer is kept: a try that failed runs again. Whatever the
 * action asks first (the caller's password) is asked on every try, before this.
 *
 * `make` gets the form key's record to hand to its verb, so that the answer (`show` of what the verb
 * made) commits with the verb's write: a try that dies between the two would otherwise leave its
 * object made and its key free, and the try sent again would make a second one. A verb that takes
 * none has its answer stored after it.
 */
export async function once<Row, T>(
  service: ServiceContext,
  action: string,
  formKey: string | undefined,
  make: (record?: ResponseRecord<Row>) => Promise<Row>,
  show: (row: Row) => T,
): Promise<T> {
  // A caller that sends no key (a script, a test) runs it as it is.
  if (formKey === undefined) return show(await make());
  const scope = { merchantId: service.merchant.id, livemode: service.livemode };
  // One form, one action: what the form held when sent again does not matter; its first try stands.
  const fingerprint = createHash("sha256").update(`dashboard:${action}`).digest("hex");
  const claim = await claimIdempotencyKey(service, scope, dashboardIdempotencyKey(action, formKey), fingerprint);
  if (claim.kind === "replay") return JSON.parse(unseal(dataKey(), claim.body)) as T;
  // The answer the verb's write stored, which is then the one returned.
  let pending: { shown: T } | undefined;
  let stored: { shown: T } | undefined;
  const record: ResponseRecord<Row> = {
    completionFor: (row) => {
      pending = { shown: show(row) };
      const text = JSON.stringify(pending.shown);
      return claim.completion(200, seal(dataKey(), text), text);
    },
    completedWith: (completion) => {
      stored = pending;
      claim.completed(completion);
    },
  };
  let made: Row;
  try {
    made = await make(record);
  } catch (e) {
    await claim.release();
    throw e;
  }
  if (stored) return stored.shown;
  const shown = show(made);
  await claim.complete(200, seal(dataKey(), JSON.stringify(shown)));
  return shown;
}
