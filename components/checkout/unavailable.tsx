/**
 * A hosted page that could not be loaded (a fault on our side, logged under `reference`): what to
 * do, and never that a payment failed, since one the customer approved goes on regardless. Drawn
 * by the server, so that it reads the same without JavaScript.
 */
export function HostedUnavailable({ reference, retryPath }: { reference: string; retryPath: string }) {
  return (
    <main className="pay">
      <section className="card">
        <h1 className="title">This page can&apos;t be shown just now</h1>
        <p>Something went wrong on our side. Try again in a moment.</p>
        <p>If you approved a payment on your phone, it is not affected: this page shows its outcome once it loads.</p>
        <p>
          <a href={retryPath}>Try again</a>
        </p>
        <p className="muted">
          If this goes on, tell the merchant this reference: <span className="quoted-ref">{reference}</span>
        </p>
      </section>
    </main>
  );
}
