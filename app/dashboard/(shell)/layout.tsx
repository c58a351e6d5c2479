import { headers } from "next/headers";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { DashboardShell } from "@/components/dashboard/shell";
import { DashboardProviders } from "@/components/dashboard/trpc";
import { currentStaff } from "@/server/auth/current-staff";
import { PAGE_PATH_HEADER, signInPath } from "@/server/domain/staff";
import "@/components/dashboard/dashboard.css";

export const metadata = { title: { default: "Dashboard", template: "%s · Mari dashboard" }, robots: { index: false } };

/** Every signed-in page: who is signed in, the test/live switch, the navigation. */
export default async function ShellLayout({ children }: { children: ReactNode }) {
  const { session: me, livemode } = await currentStaff();
  // A session that ended (signed out elsewhere, removed, run out) with its cookie still there.
  if (!me) redirect(signInPath((await headers()).get(PAGE_PATH_HEADER)));
  return (
    <DashboardProviders livemode={livemode}>
      <DashboardShell merchantName={me.merchant.name} email={me.staff.email} role={me.staff.role} livemode={livemode}>
        {children}
      </DashboardShell>
    </DashboardProviders>
  );
}
