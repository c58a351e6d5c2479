import { getToken } from "next-auth/jwt";
import { NextResponse, type NextRequest } from "next/server";
import { authSecret, secureCookies } from "@/server/auth/secret";
import { env } from "@/server/env";
import { newId } from "@/server/domain/ids";
import { isMalformedPath, malformedPathResponse, otherVersionOf, unrecognizedPathResponse } from "@/server/http/errors";
import { originMatchesHost } from "@/server/http/same-origin";
import { contentSecurityPolicy } from "@/server/http/security-headers";
import { PAGE_PATH_HEADER } from "@/server/domain/staff";

/**
 * The pages people use (hosted checkout and the dashboard):
 * - each response gets a Content Security Policy with a nonce of its own, which Next puts on the
 *   scripts it renders (it reads the policy from the request headers set here);
 * - the dashboard is for signed-in staff: without a valid session cookie a /dashboard page sends
 *   the browser to sign in, and back after. (tRPC checks the session again, and the staff
 *   member's role and merchant, on every call.)
 * And paths whose percent-encoding is not UTF-8 (`/v1/payments/%ff`), which Next cannot route and
 * would answer with a bare 500: a 400 here instead, in the error envelope on /v1. Only such /v1
 * and /api paths come here (the matcher wants a `%`), so the API's other requests never pay for a
 * proxy.
 * And a path naming another version of the API (`/v2/…`, `/V1/…`): 404 in the error envelope,
 * naming the /v1 path, not the site's HTML page. The matcher leaves /v1 itself out.
 * And a page path with a trailing slash is sent to the path without it (Next's own redirect is off:
 * on /v1 it answered without a Request-Id; apiRoute answers those).
 * And a hosted page's form posted from another site is refused with a 403 that says why. Next
 * refuses it too (its Server Actions compare Origin with the host the same way), but with a bare
 * 500, which reads as an outage to whoever watches the service.
 */
export async function proxy(request: NextRequest): Promise<Response> {
  const { pathname, search } = request.nextUrl;
  if (isMalformedPath(pathname)) {
    if (pathname.startsWith("/v1/")) return malformedPathResponse(newId("request"));
    return new Response("This address is not valid.", { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  if (pathname.startsWith("/v1/") || pathname.startsWith("/api/")) return NextResponse.next();
  if (otherVersionOf(pathname) !== null) return unrecognizedPathResponse(request.method, pathname, newId("request"));
  if (request.method === "POST" && postedFromAnotherSite(request)) {
    return new Response("This form can only be sent from its own page.", { status: 403, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  }
  if (pathname.length > 1 && pathname.endsWith("/")) return NextResponse.redirect(new URL(`${pathname.replace(/\/+$/, "")}${search}`, request.url), 308);
  if (pathname.startsWith("/dashboard") && pathname !== "/dashboard/sign-in") {
    const secret = authSecret();
    const token = secret ? await getToken({ req: request, secret, secureCookie: secureCookies() }) : null;
    if (!token?.sub) {
      const signIn = new URL("/dashboard/sign-in", request.url);
      signIn.searchParams.set("callbackUrl", `${pathname}${search}`);
      return NextResponse.redirect(signIn);
    }
  }
  const nonce = btoa(crypto.randomUUID());
  const policy = contentSecurityPolicy(nonce, env().NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("x-nonce", nonce);
  // For the dashboard's layout: where to come back to after signing in again (an ended session).
  headers.set(PAGE_PATH_HEADER, `${pathname}${search}`);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", policy);
  // Served over https: browsers keep to it for a year (the session cookie never travels in clear).
  if (secureCookies()) response.headers.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  return response;
}

/** A hosted page's form posted from another site. No Origin, or "null", is left to Next. */
function postedFromAnotherSite(request: NextRequest): boolean {
  const origin = request.headers.get("origin");
  return origin !== null && origin !== "null" && !originMatchesHost(origin, request.headers);
}

export const config = {
  matcher: [
    "/dashboard",
    "/dashboard/:path*",
    "/pay/:path*",
    "/checkout/:path*",
    "/v1/:path(.*%.*)",
    "/api/:path(.*%.*)",
    "/:version((?!v1(?![^/]))[vV]\\d[^/]*)",
    "/:version((?!v1(?![^/]))[vV]\\d[^/]*)/:path*",
  ],
};
