import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Secrets the service must be able to read back (webhook signing secrets: HMAC keys cannot be
 * hashed) are stored sealed: AES-256-GCM under the data key, a fresh 96-bit nonce each time,
 * written as `sealed:v1:<nonce>.<ciphertext>.<tag>` (base64url). A value without the prefix was
 * stored before sealing existed and reads as it is.
 */
const PREFIX = "sealed:v1:";
export const DATA_KEY_BYTES = 32;

export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

export function seal(key: Buffer, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `${PREFIX}${nonce.toString("base64url")}.${body.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}`;
}

/** The plaintext of a sealed value; throws when it was sealed under another key or altered. */
export function unseal(key: Buffer, stored: string): string {
  if (!isSealed(stored)) return stored;
  const [nonce, body, tag] = stored.slice(PREFIX.length).split(".");
  if (nonce === undefined || body === undefined || tag === undefined) throw new Error("sealed value is malformed");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
}

/** A data key as configured: 32 bytes written as 64 hex digits or as base64/base64url. */
export function parseDataKey(text: string): Buffer | null {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64url");
  return key.length === DATA_KEY_BYTES ? key : null;
}
