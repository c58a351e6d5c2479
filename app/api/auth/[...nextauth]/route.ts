import NextAuth from "next-auth";
import { authOptions } from "@/server/auth/options";

// /api/auth/* – next-auth: staff sign-in and sign-out for the dashboard
const handler = (req: Request, ctx: { params: Promise<{ nextauth: string[] }> }) => NextAuth(authOptions())(req, ctx);

export { handler as GET, handler as POST };
