import { cookies } from "next/headers";
import { SignInForm } from "@/components/dashboard/sign-in-form";
import { LAST_BUSINESS_COOKIE } from "@/server/auth/known-device";
import { SIGN_IN_ERRORS } from "@/server/auth/options";
import { authSecret } from "@/server/auth/secret";
import { BUSINESS_INPUT_MAX } from "@/server/domain/staff";
import "@/components/dashboard/dashboard.css";

export const metadata = { title: { absolute: "Sign in · Mari dashboard" }, robots: { index: false } };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

// /dashboard/sign-in – staff sign-in
export default async function SignInPage({ searchParams }: Props) {
  const query = await searchParams;
  const callbackUrl = typeof query.callbackUrl === "string" && query.callbackUrl.startsWith("/dashboard") ? query.callbackUrl : "/dashboard";
  const configured = authSecret() !== null;
  // The business: from a sign-in link an admin handed over, else the one this browser last signed in to.
  const remembered = (await cookies()).get(LAST_BUSINESS_COOKIE)?.value;
  const business = (typeof query.business === "string" ? query.business : (remembered ?? "")).slice(0, BUSINESS_INPUT_MAX);
  return (
    <main className="sign-in">
      <h1>Sign in to Mari</h1>
      {configured ? <SignInForm callbackUrl={callbackUrl} messages={SIGN_IN_ERRORS} business={business} /> : <p role="alert">{SIGN_IN_ERRORS.not_configured}</p>}
      <p className="sign-in-help">Forgot your password? An admin of your team can give you a new one from the dashboard&apos;s Team page.</p>
    </main>
  );
}
