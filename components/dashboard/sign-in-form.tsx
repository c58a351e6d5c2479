"use client";

import { signIn } from "next-auth/react";
import { useState } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";
import { BUSINESS_INPUT_MAX } from "@/server/domain/staff";

type Props = { callbackUrl: string; messages: Record<string, string>; business: string };

/**
 * next-auth's signIn or signOut threw: Mari was not reached (the network), or answered with no
 * answer it could read (a 5xx page while the database is down).
 */
export const AUTH_UNREACHABLE = "Could not reach Mari, or its answer did not come through. Check your connection, then try again.";

export function SignInForm({ callbackUrl, messages, business }: Props) {
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  // Until this script runs, the button stays off: a browser submitting the form by itself would
  // put the password in the address (and it could not sign in without the script anyway).
  const ready = useHydrated();
  return (
    <form
      className="sign-in-form"
      method="post"
      onSubmit={async (e) => {
        e.preventDefault();
        const form = new FormData(e.currentTarget);
        setPending(true);
        setError(null);
        let result: Awaited<ReturnType<typeof signIn>>;
        try {
          result = await signIn("credentials", {
            business: form.get("business"),
            email: form.get("email"),
            password: form.get("password"),
            redirect: false,
            callbackUrl,
          });
        } catch {
          setPending(false);
          setError(AUTH_UNREACHABLE);
          return;
        }
        if (result?.ok && !result.error) {
          window.location.assign(callbackUrl);
          return;
        }
        setPending(false);
        setError(messages[result?.error ?? "CredentialsSignin"] ?? messages.CredentialsSignin ?? "Sign-in failed.");
      }}
    >
      <label htmlFor="business">Business</label>
      <input
        id="business"
        name="business"
        type="text"
        defaultValue={business}
        autoComplete="organization"
        autoCapitalize="none"
        spellCheck={false}
        maxLength={BUSINESS_INPUT_MAX}
        aria-describedby="business-help"
        required
        autoFocus={business === ""}
      />
      <p id="business-help" className="hint sign-in-hint">
        Your business&apos;s short name on Mari, as your admin gave it with your password.
      </p>
      <label htmlFor="email">E-mail</label>
      <input id="email" name="email" type="email" autoComplete="username" required autoFocus={business !== ""} />
      <label htmlFor="password">Password</label>
      <input id="password" name="password" type="password" autoComplete="current-password" required />
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" disabled={pending || !ready}>
        {pending ? "Signing in…" : "Sign in"}
      </button>
      <noscript>
        <p className="error">The dashboard needs JavaScript: turn it on to sign in.</p>
      </noscript>
    </form>
  );
}
