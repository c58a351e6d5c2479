import { cookieLine, cookieValue } from "./known-device";
import { secureCookies } from "./secret";

/**
 * What next-auth (v4) would answer with a 500 of its own, refused first with a 400 that says why:
 * - a `callbackUrl` (in the query, the body or its cookie) that is neither a path nor an http(s)
 *   URL: next-auth's check of its configuration fails on it ("a problem with the server
 *   configuration"), or its redirect throws on `new URL`;
 * - a JSON body that does not parse, which its body reader throws on.
 * The cookie's refusal also clears it: kept, every sign-in from that browser would be refused.
 */
export async function malformedAuthRequest(req: Request): Promise<Response | null> {
  const url = new URL(req.url);
  for (const value of url.searchParams.getAll("callbackUrl")) if (!isCallbackUrl(value)) return refusal("callbackUrl");
  // next-auth's own cookie (its name as next-auth makes it, `__Secure-` over https).
  const secure = secureCookies();
  const cookieName = `${secure ? "__Secure-" : ""}next-auth.callback-url`;
  const cookie = cookieValue(req.headers.get("cookie"), cookieName);
  if (cookie !== undefined && !isCallbackUrl(decoded(cookie))) return refusal("callbackUrl", cookieLine(cookieName, "", "/", 0, secure));
  if (req.method !== "POST") return null;
  const type = req.headers.get("content-type") ?? "";
  let body: unknown;
  if (/^application\/json\b/i.test(type)) {
    try {
      body = await req.clone().json();
    } catch {
      return refusal(null, undefined, "The body is not valid JSON.");
    }
  } else if (/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) {
    body = Object.fromEntries((await req.clone().formData().catch(() => new FormData())).entries());
  }
  const callbackUrl = body && typeof body === "object" ? (body as Record<string, unknown>).callbackUrl : undefined;
  return callbackUrl === undefined || isCallbackUrl(callbackUrl) ? null : refusal("callbackUrl");
}

/** As next-auth checks a callback URL: a path of this site, or an absolute http(s) URL. */
export function isCallbackUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    return /^https?:$/.test(new URL(value, value.startsWith("/") ? "http://localhost" : undefined).protocol);
  } catch {
    return false;
  }
}

/**
 * Where a sign-in or sign-out sends the browser: a path of this site, or a URL on its origin;
 * anything else (another site, no URL, no string) the site's root. next-auth's own redirect does
 * the same but throws on what is no URL.
 */
export function sameSiteRedirect(url: unknown, baseUrl: string): string {
  if (typeof url !== "string") return baseUrl;
  if (url.startsWith("/")) return `${baseUrl}${url}`;
  try {
    return new URL(url).origin === new URL(baseUrl).origin ? url : baseUrl;
  } catch {
    return baseUrl;
  }
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function refusal(param: string | null, clearCookie?: string, message = "callbackUrl must be a path of this site or an http(s) URL."): Response {
  const headers = new Headers({ "Cache-Control": "no-store" });
  if (clearCookie) headers.append("Set-Cookie", clearCookie);
  return Response.json({ message, param }, { status: 400, headers });
}
