import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { DashboardShell } from "@/components/dashboard/shell";
import { DashboardProviders } from "@/components/dashboard/trpc";
import { DashboardUnavailable } from "@/components/dashboard/unavailable";
import { currentStaff } from "@/server/auth/current-staff";
import { PAGE_PATH_HEADER, signInPath } from "@/server/domain/staff";
import { loggingFaults } from "@/server/http/faults";
import "@/components/dashboard/dashboard.css";

export const metadata = { title: { default: "Dashboard", template: "%s · Mari dashboard" }, robots: { index: false } };

/** Every signed-in page: who is signed in, the test/live switch, the navigation. */
export default async function ShellLayout({ children }: { children: ReactNode }) {
  const loaded = await loggingFaults("dashboard page could not be loaded", currentStaff);
  // The page asked for (proxy.ts sets it on every page request; a client's own value is replaced).
  const pagePath = async () => (await headers()).get(PAGE_PATH_HEADER);
  if (!loaded.ok) {
    const path = await pagePath();
    return <DashboardUnavailable reference={loaded.reference} retryPath={path?.startsWith("/dashboard") ? path : "/dashboard"} />;
  }
  const { session: me, livemode } = loaded.value;
  // A session that ended (signed out elsewhere, removed, run out) with its cookie still there.
  if (!me) redirect(signInPath(await pagePath()));
  return (
    <DashboardProviders livemode={livemode}>
      <DashboardShell merchantName={me.merchant.name} email={me.staff.email} role={me.staff.role} livemode={livemode}>
        {children}
      </DashboardShell>
    </DashboardProviders>
  );
}
