import { cookies } from "next/headers";
import { secureCookies } from "@/server/auth/secret";
import { formatOwnAttemptKeys, OWN_ATTEMPTS_COOKIE, OWN_ATTEMPTS_MAX_AGE_S, parseOwnAttemptKeys, withOwnAttemptKey } from "@/server/domain/hosted";
import { isId } from "@/server/domain/ids";

/** The attempt keys this browser made payments with on the link whose page or status route this request is for (OWN_ATTEMPTS_COOKIE). */
export async function ownAttemptKeys(): Promise<string[]> {
  return parseOwnAttemptKeys((await cookies()).get(OWN_ATTEMPTS_COOKIE)?.value);
}

/**
 * Keeps `key`, which made a payment through the link, among this browser's own (the link's page
 * path only; httpOnly, as nothing in the page reads it). The path is built from the id, so only
 * an id is taken.
 */
export async function keepOwnAttemptKey(linkId: string, key: string): Promise<void> {
  if (!isId("paymentLink", linkId)) return;
  const jar = await cookies();
  const kept = jar.get(OWN_ATTEMPTS_COOKIE)?.value;
  const value = formatOwnAttemptKeys(withOwnAttemptKey(parseOwnAttemptKeys(kept), key));
  if (value === kept || value === "") return;
  jar.set(OWN_ATTEMPTS_COOKIE, value, { path: `/pay/${linkId}`, maxAge: OWN_ATTEMPTS_MAX_AGE_S, httpOnly: true, sameSite: "lax", secure: secureCookies() });
}
