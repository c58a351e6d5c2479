"use client";

import { useQuery } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { Failed, Loading } from "@/components/ui/states";
import { PASSWORD_MIN_LENGTH } from "@/server/domain/passwords";
import { ConfirmAction, ErrorNote, Problem, useSingleFlightMutation } from "../kit";
import { signOutHere } from "../shell";
import { AUTH_UNREACHABLE } from "../sign-in-form";
import { errorMessage, useTRPC } from "../trpc";

export function AccountPage() {
  const trpc = useTRPC();
  const me = useQuery(trpc.session.me.queryOptions());
  return (
    <>
      <h1>Your account</h1>
      {me.isPending ? (
        <Loading what="your account" />
      ) : me.isError ? (
        <Failed message={errorMessage(me.error)} retry={() => void me.refetch()} />
      ) : (
        <>
          <p>
            You sign in to <strong>{me.data.merchant.slug}</strong> as <strong>{me.data.email}</strong>, {me.data.role === "admin" ? "an" : "a"} {me.data.role} of{" "}
            {me.data.merchant.name}.
          </p>
          <h2>Change your password</h2>
          <PasswordForm business={me.data.merchant.slug} email={me.data.email} />
          <h2>Sign out everywhere</h2>
          <SignOutEverywhere />
        </>
      )}
    </>
  );
}

/**
 * The current password, the new one twice. The change signs out every session that used the old
 * one, this one included, so the form signs this browser in again with the new password.
 */
function PasswordForm({ business, email }: { business: string; email: string }) {
  const trpc = useTRPC();
  const [mismatch, setMismatch] = useState(false);
  const [done, setDone] = useState(false);
  const [signingIn, setSigningIn] = useState(false);
  // Changed, but signing this browser in again with the new password got no answer.
  const [notSignedIn, setNotSignedIn] = useState(false);
  const change = useSingleFlightMutation(trpc.staff.changePassword.mutationOptions());
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = e.currentTarget;
    const data = new FormData(form);
    const password = String(data.get("password"));
    const repeated = password === String(data.get("repeat"));
    setDone(false);
    setNotSignedIn(false);
    setMismatch(!repeated);
    if (!repeated) return change.reset();
    change.mutate(
      { current: String(data.get("current")), password },
      {
        onSuccess: async () => {
          setSigningIn(true);
          let again: Awaited<ReturnType<typeof signIn>>;
          try {
            again = await signIn("credentials", { business, email, password, redirect: false });
          } catch {
            setSigningIn(false);
            form.reset();
            setNotSignedIn(true);
            return;
          }
          if (!again?.ok || again.error) {
            // The password is changed all the same: sign in by hand with it.
            // eslint-disable-next-line @next/next/no-location-assign-relative-destination
            window.location.assign(`/dashboard/sign-in?${new URLSearchParams({ business, callbackUrl: "/dashboard/account" })}`);
            return;
          }
          setSigningIn(false);
          form.reset();
          setDone(true);
        },
      },
    );
  };
  const pending = change.isPending || signingIn;
  return (
    <form className="panel form-grid" onSubmit={submit}>
      {/* For password managers: which account this password belongs to. */}
      <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
      <label>
        Current password
        <input name="current" type="password" autoComplete="current-password" required />
      </label>
      <label>
        New password
        <input name="password" type="password" autoComplete="new-password" minLength={PASSWORD_MIN_LENGTH} required aria-describedby="password-hint" />
      </label>
      <p id="password-hint" className="hint" style={{ margin: 0 }}>
        At least {PASSWORD_MIN_LENGTH} characters. Every other browser signed in as you is signed out.
      </p>
      <label>
        New password again
        <input name="repeat" type="password" autoComplete="new-password" required />
      </label>
      <button type="submit" className="primary" disabled={pending}>
        {pending ? "Changing…" : "Change password"}
      </button>
      <Problem text={mismatch ? "The two new passwords are not the same." : null} />
      <ErrorNote error={change.error} />
      {done ? (
        <p className="notice" role="status">
          Your password is changed. Anywhere else you were signed in, you are now signed out.
        </p>
      ) : null}
      {notSignedIn ? (
        <p className="attention" role="alert">
          Your password is changed, and every browser signed in as you is signed out, this one too. Signing in again here got no answer: {AUTH_UNREACHABLE}{" "}
          <a href={`/dashboard/sign-in?${new URLSearchParams({ business, callbackUrl: "/dashboard/account" })}`}>Sign in with your new password</a>
        </p>
      ) : null}
    </form>
  );
}

/** For a browser left signed in somewhere else: every session ends, this one included. */
function SignOutEverywhere() {
  const trpc = useTRPC();
  // Every session ended, but signing this browser out got no answer (signOutHere threw).
  const [notHere, setNotHere] = useState(false);
  const revoke = useSingleFlightMutation(
    trpc.staff.signOutEverywhere.mutationOptions({
      onMutate: () => setNotHere(false),
      onSuccess: async () => {
        try {
          await signOutHere();
        } catch {
          setNotHere(true);
        }
      },
    }),
  );
  return (
    <div className="panel">
      <p style={{ marginTop: 0 }}>Signed in on a computer you no longer use, or think someone else may be? This signs you out on every browser, this one too.</p>
      <ConfirmAction
        label="Sign out everywhere"
        question="Sign out on every browser, this one included?"
        confirmLabel="Sign out everywhere"
        pending={revoke.isPending || (revoke.isSuccess && !notHere)}
        onConfirm={() => revoke.mutate()}
      />
      <ErrorNote error={revoke.error} />
      {notHere ? (
        <p className="attention" role="alert">
          Every session is ended, but signing this browser out got no answer. {AUTH_UNREACHABLE}
        </p>
      ) : null}
    </div>
  );
}
