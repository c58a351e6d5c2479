import { Overview } from "@/components/dashboard/overview/overview";

export const metadata = { title: "Overview" };

// /dashboard – today's and this week's figures, and what needs attention
export default function OverviewPage() {
  return (
    <>
      <h1>Overview</h1>
      <Overview />
    </>
  );
}
