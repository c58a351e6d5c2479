import { createHash } from "node:crypto";
import { randomSecret } from "./ids";

export const SCOPES = [
  "payments:read",
  "payments:write",
  "refunds:read",
  "refunds:write",
  "links:read",
  "links:write",
  "events:read",
  "events:replay",
  "webhooks:read",
  "webhooks:write",
  "settlements:read",
] as const;
export type Scope = (typeof SCOPES)[number];

export const KEY_KINDS = ["secret", "restricted"] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

const PREFIX = { secret: "sk", restricted: "rk" } as const satisfies Record<KeyKind, string>;
const KEY_SHAPE = /^(sk|rk)_(test|live)_[0-9a-z]{32}$/;

export type ParsedKey = { kind: KeyKind; livemode: boolean };

/** Reads a presented key's kind and environment from its shape alone; `null` if malformed. */
export function parseKey(presented: string): ParsedKey | null {
  const m = KEY_SHAPE.exec(presented);
  if (!m) return null;
  return { kind: m[1] === "sk" ? "secret" : "restricted", livemode: m[2] === "live" };
}

/**
 * The key an `Authorization` header presents: `Bearer <key>`, or HTTP Basic with the key as user
 * name (`curl -u key:`). `null` when there is no header; `""` when it presents none in either form.
 */
export function presentedKey(authorization: string | null): string | null {
  if (!authorization) return null;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (bearer) return bearer[1]!;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization);
  if (basic) return Buffer.from(basic[1]!, "base64").toString("utf8").split(":")[0] ?? "";
  return "";
}

export function generateKey(kind: KeyKind, livemode: boolean): { secret: string; hash: string; displayPrefix: string } {
  const secret = `${PREFIX[kind]}_${livemode ? "live" : "test"}_${randomSecret(32)}`;
  return { secret, hash: hashKey(secret), displayPrefix: displayPrefix(secret) };
}

/**
 * Keys carry 160 random bits, so one fast SHA-256 is enough to make a stolen database useless;
 * a slow password hash would only add latency to every request.
 */
export function hashKey(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** What staff see in lists: the environment prefix and the last four characters. */
export function displayPrefix(secret: string): string {
  return `${secret.slice(0, secret.lastIndexOf("_") + 1)}…${secret.slice(-4)}`;
}

/** A key as logs name it: its display prefix, and its name when it has one. */
export function keyLabel(key: { displayPrefix: string; name: string | null }): string {
  return key.name ? `${key.displayPrefix} (${key.name})` : key.displayPrefix;
}

/** Full secret keys hold every scope; restricted keys only those granted. */
export function keyAllows(kind: KeyKind, scopes: readonly string[], needed: Scope): boolean {
  return kind === "secret" || scopes.includes(needed);
}
