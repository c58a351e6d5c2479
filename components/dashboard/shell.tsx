"use client";

import { signOut } from "next-auth/react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useState, type ReactNode } from "react";
import { MODE_COOKIE, modeName, roleAllows, type StaffRole } from "@/server/domain/staff";
import { MODE_CHANNEL, markSigningOut, reloadInChosenMode } from "./trpc";
import { useHydrated } from "@/components/ui/use-hydrated";
import { AUTH_UNREACHABLE } from "./sign-in-form";

/** Every area of the dashboard; each is a folder under app/dashboard/(shell)/. */
export const NAV = [
  { href: "/dashboard", label: "Overview" },
  { href: "/dashboard/payments", label: "Payments" },
  { href: "/dashboard/events", label: "Events" },
  { href: "/dashboard/webhooks", label: "Webhooks" },
  { href: "/dashboard/api-keys", label: "API keys" },
  { href: "/dashboard/payment-links", label: "Payment links" },
  { href: "/dashboard/checkout-sessions", label: "Checkout sessions" },
  { href: "/dashboard/settlements", label: "Settlements" },
  { href: "/dashboard/settings", label: "Settings" },
  { href: "/dashboard/team", label: "Team" },
  { href: "/dashboard/security", label: "Security log", needs: "admin" },
] as const satisfies readonly { href: string; label: string; needs?: StaffRole }[];

type Props = { merchantName: string; email: string; role: StaffRole; livemode: boolean; children: ReactNode };

export function DashboardShell({ merchantName, email, role, livemode, children }: Props) {
  const pathname = usePathname();
  // The switch works through its handler: until the page is hydrated, a click would flip the box and do nothing else.
  const ready = useHydrated();
  // Signing out, or a sign-out that got no answer (this browser may still be signed in).
  const [signingOut, setSigningOut] = useState<"pending" | "unknown" | null>(null);
  const leave = async () => {
    setSigningOut("pending");
    try {
      await signOutHere();
    } catch {
      setSigningOut("unknown");
    }
  };
  const current = (href: string) => (href === "/dashboard" ? pathname === href : pathname.startsWith(href));
  const switchMode = (live: boolean) => {
    document.cookie = `${MODE_COOKIE}=${modeName(live)}; path=/; max-age=31536000; samesite=lax`;
    // The cookie is every tab's: the others say they now show the other mode's data (trpc.tsx).
    if (typeof BroadcastChannel !== "undefined") {
      const channel = new BroadcastChannel(MODE_CHANNEL);
      channel.postMessage(modeName(live));
      channel.close();
    }
    // Every page and every query reads the mode: start them all again in the new one.
    reloadInChosenMode();
  };
  return (
    <div className={`dash${livemode ? "" : " dash-test"}`}>
      {/* The first stop of the keyboard: past the header and the navigation, straight to the page. */}
      <a href="#content" className="skip-link">
        Skip to content
      </a>
      <header className="dash-top">
        <Link href="/dashboard" className="dash-brand">
          Mari · {merchantName}
        </Link>
        <label className="dash-mode">
          <input type="checkbox" role="switch" checked={!livemode} disabled={!ready} onChange={(e) => switchMode(!e.target.checked)} />
          <span>Test mode</span>
        </label>
        <Link href="/dashboard/account" className="dash-who" aria-current={current("/dashboard/account") ? "page" : undefined} title="Your account and password">
          {email} ({role})
        </Link>
        <button type="button" className="link-button" onClick={() => void leave()} disabled={signingOut === "pending"}>
          {signingOut === "pending" ? "Signing out…" : "Sign out"}
        </button>
      </header>
      {signingOut === "unknown" ? (
        <p className="warning" role="alert">
          You may still be signed in. {AUTH_UNREACHABLE}
        </p>
      ) : null}
      {livemode ? null : (
        <p className="dash-test-banner" role="status">
          Test mode: you are looking at test data.
        </p>
      )}
      <nav className="dash-nav" aria-label="Dashboard">
        {NAV.filter((item) => !("needs" in item) || roleAllows(role, item.needs)).map((item) => (
          <Link key={item.href} href={item.href} aria-current={current(item.href) ? "page" : undefined}>
            {item.label}
          </Link>
        ))}
      </nav>
      <main className="dash-main" id="content" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

/**
 * Signs out, then goes to this site's sign-in page. next-auth would send the browser to the URL it
 * builds from NEXTAUTH_URL, which without that setting is localhost:3000 whatever this site's address.
 * Throws when next-auth's signOut does (AUTH_UNREACHABLE): the caller says so, and lets the member try again.
 */
export async function signOutHere(): Promise<void> {
  markSigningOut();
  try {
    await signOut({ redirect: false });
  } catch (e) {
    // Not reached, or no answer it could read (a 5xx page while the database is down): this page
    // may still be signed in, and its calls refused meanwhile lead to signing in again as before.
    markSigningOut(false);
    throw e;
  }
  // A full load, not the router: the signed-out staff member's cached data must not outlive the page.
  // eslint-disable-next-line @next/next/no-location-assign-relative-destination
  window.location.assign("/dashboard/sign-in");
}
