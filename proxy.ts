import { getToken } from "next-auth/jwt";
import { NextResponse, type NextRequest } from "next/server";
import { authSecret } from "@/server/auth/secret";
import { env } from "@/server/env";
import { contentSecurityPolicy } from "@/server/http/security-headers";

/**
 * The pages people use (hosted checkout and the dashboard):
 * - each response gets a Content Security Policy with a nonce of its own, which Next puts on the
 *   scripts it renders (it reads the policy from the request headers set here);
 * - the dashboard is for signed-in staff: without a valid session cookie a /dashboard page sends
 *   the browser to sign in, and back after. (tRPC checks the session again, and the staff
 *   member's role and merchant, on every call.)
 */
export async function proxy(request: NextRequest): Promise<NextResponse> {
  const { pathname, search } = request.nextUrl;
  if (pathname.startsWith("/dashboard") && pathname !== "/dashboard/sign-in") {
    const secret = authSecret();
    const token = secret ? await getToken({ req: request, secret }) : null;
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
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", policy);
  return response;
}

export const config = { matcher: ["/dashboard", "/dashboard/:path*", "/pay/:path*", "/checkout/:path*"] };
