import { Overview } from "@/components/dashboard/overview/overview";

// The layout beside this page sets its title template for the pages below it, not for this one.
export const metadata = { title: { absolute: "Overview · Mari dashboard" } };

// /dashboard – today's and this week's figures, and what needs attention
export default function OverviewPage() {
  return (
    <>
      <h1>Overview</h1>
      <Overview />
    </>
  );
}
