import { SLOW_POLL_MS } from "./polling";
import { RetryWhenBack } from "./retry-when-back";

/**
 * A hosted page that could not be loaded (a fault on our side, logged under `reference`): what to
 * do, and never that a payment failed, since one the customer approved goes on regardless. Drawn
 * by the server, so that it reads the same without JavaScript; it loads itself again once it can
 * (its status route answers), or every SLOW_POLL_MS without JavaScript.
 */
export function HostedUnavailable({ reference, retryPath, statusPath }: { reference: string; retryPath: string; statusPath: string }) {
  return (
    <main className="pay">
      <section className="card">
        <h1 className="title">This page can&apos;t be shown just now</h1>
        <p>Something went wrong on our side. It loads by itself once it can, or try again in a moment.</p>
        <p>If you approved a payment on your phone, it is not affected: this page shows its outcome once it loads.</p>
        <p>
          <a href={retryPath}>Try again</a>
        </p>
        <p className="muted">
          If this goes on, tell the merchant this reference: <span className="quoted-ref">{reference}</span>
        </p>
      </section>
      <RetryWhenBack statusPath={statusPath} />
      <noscript>
        <meta httpEquiv="refresh" content={String(SLOW_POLL_MS / 1000)} />
      </noscript>
    </main>
  );
}
