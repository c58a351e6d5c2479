import { Settings } from "@/components/dashboard/settings/settings";

export const metadata = { title: "Settings" };

// /dashboard/settings – fee bearer and payment expiry (admins change them; others read)
export default function SettingsPage() {
  return (
    <>
      <h1>Settings</h1>
      <Settings />
    </>
  );
}
