import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { DashboardShell } from "@/components/dashboard/shell";
import { DashboardProviders } from "@/components/dashboard/trpc";
import { currentStaff } from "@/server/auth/current-staff";
import "@/components/dashboard/dashboard.css";

export const metadata = { title: { default: "Dashboard", template: "%s · Mari dashboard" }, robots: { index: false } };

/** Every signed-in page: who is signed in, the test/live switch, the navigation. */
export default async function ShellLayout({ children }: { children: ReactNode }) {
  const { session: me, livemode } = await currentStaff();
  if (!me) redirect("/dashboard/sign-in");
  return (
    <DashboardProviders livemode={livemode}>
      <DashboardShell merchantName={me.merchant.name} email={me.staff.email} role={me.staff.role} livemode={livemode}>
        {children}
      </DashboardShell>
    </DashboardProviders>
  );
}
