import Link from "next/link";

/** A dashboard address that leads nowhere: said inside the dashboard, with the way back. */
export default function DashboardNotFound() {
  return (
    <section>
      <h1>No such page</h1>
      <p>This address is not a page of the dashboard. Use the navigation above, or go back to the overview.</p>
      <p>
        <Link href="/dashboard">← Overview</Link>
      </p>
    </section>
  );
}
