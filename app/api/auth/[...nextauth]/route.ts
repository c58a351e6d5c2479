import NextAuth from "next-auth";
import { withKnownDevice } from "@/server/auth/known-device";
import { authOptions, signInNotConfigured } from "@/server/auth/options";
import { malformedAuthRequest } from "@/server/auth/request-guard";
import { authSecret } from "@/server/auth/secret";
import { systemClock } from "@/server/clock";

// /api/auth/* – next-auth: staff sign-in and sign-out for the dashboard; a sign-in makes its browser known
async function handler(req: Request, ctx: { params: Promise<{ nextauth: string[] }> }): Promise<Response> {
  if (authSecret() === null) return signInNotConfigured();
  return (await malformedAuthRequest(req)) ?? withKnownDevice(req, systemClock.now(), (request) => NextAuth(authOptions())(request, ctx));
}

export { handler as GET, handler as POST };
