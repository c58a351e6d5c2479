/**
 * The dashboard's frame when who is signed in could not be loaded (a fault on our side, logged
 * under `reference`): what to do, with the page asked for one link away.
 */
export function DashboardUnavailable({ reference, retryPath }: { reference: string; retryPath: string }) {
  return (
    <main className="unavailable">
      <h1>The dashboard can&apos;t be shown just now</h1>
      <p>Something went wrong on our side. Try again in a moment.</p>
      <p>
        <a href={retryPath}>Try again</a>
      </p>
      <p className="reference">If this goes on, report it with this reference: {reference}</p>
    </main>
  );
}
