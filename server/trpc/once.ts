import { createHash } from "node:crypto";
import { z } from "zod";
import { dataKey } from "@/server/data-key";
import { dashboardIdempotencyKey } from "@/server/domain/idempotency";
import { seal, unseal } from "@/server/domain/sealing";
import type { ServiceContext } from "@/server/context";
import { claimIdempotencyKey, heldRecord } from "@/server/services/idempotency/claim";
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
  const sealed = (text: string) => seal(dataKey(), text);
  // Whether the verb's write stored the answer with it.
  let stored = false;
  const record = heldRecord(() => claim, 200, show, sealed, () => {
    stored = true;
  });
  let made: Row;
  try {
    made = await make(record);
  } catch (e) {
    await claim.release();
    throw e;
  }
  const shown = show(made);
  if (!stored) await claim.complete(200, sealed(JSON.stringify(shown)));
  return shown;
}
