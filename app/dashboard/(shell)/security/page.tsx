import { SecurityLog } from "@/components/dashboard/security/security-log";

export const metadata = { title: "Security log" };

// /dashboard/security – sign-ins, and changes to the team, keys, endpoints and settings (admins)
export default function SecurityPage() {
  return (
    <>
      <h1>Security log</h1>
      <p className="muted">
        Every sign-in and wrong password, and every change to the team, passwords, API keys, webhook endpoints and settings, by whom. Entries are kept; nothing here is sent to
        webhooks.
      </p>
      <SecurityLog />
    </>
  );
}
