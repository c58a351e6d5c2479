import { TeamPage } from "@/components/dashboard/team/team-page";

export const metadata = { title: "Team" };

// /dashboard/team – who can sign in, and their roles
export default function Page() {
  return <TeamPage />;
}
