import { AccountPage } from "@/components/dashboard/account/account-page";

export const metadata = { title: "Your account" };

// /dashboard/account – who you are signed in as, and your password
export default function Account() {
  return <AccountPage />;
}
