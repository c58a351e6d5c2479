import { PHASE_IS_FINAL, successRedirect, takesAnotherAttempt } from "@/server/domain/hosted";
import { formatAmount } from "@/server/domain/money";
import type { HostedPage } from "@/server/schemas/hosted";
import type { PayFormState } from "./pay-form-state";
import { PayPanel } from "./pay-panel";

type Props = {
  page: HostedPage;
  action: (previous: PayFormState, form: FormData) => Promise<PayFormState>;
  /** A fresh key per render: one attempt per rendered form, however often it is sent. */
  attemptKey: string;
  /** Shown again because the charge changed as Pay was tapped (AMOUNT_CHANGED_PARAM). */
  amountChanged?: boolean;
};

/**
 * Both hosted pages (server component): who is being paid, for what and how much, before anything
 * else; then the island, which takes the number and follows the attempt (or, on a closed page,
 * says why, and shows this browser's own attempt if it made one).
 */
export function HostedCheckout({ page, action, attemptKey, amountChanged = false }: Props) {
  const { quote } = page;
  const attempt = page.attempt;
  const followsAttempt = attempt !== null && !PHASE_IS_FINAL[attempt.phase];
  const paidCheckout = attempt?.phase === "succeeded" && page.success_url !== null;
  return (
    <main className="pay">
      {page.livemode ? null : <p className="test-mode">Test mode: no real money moves</p>}
      <header className="summary">
        <p className="merchant">{page.merchant_name}</p>
        <h1 className="title">{page.description}</h1>
        <p className="amount">{formatAmount(quote.charged_amount, quote.currency)}</p>
        {quote.fee !== null ? (
          <p className="fee">
            {formatAmount(quote.amount, quote.currency)} + {formatAmount(quote.fee, quote.currency)} transaction fee
          </p>
        ) : null}
      </header>
      {amountChanged && takesAnotherAttempt(page.state, attempt?.phase) ? (
        <p className="card changed" role="alert">
          The amount changed just as you tapped Pay, so nothing was sent to your phone. Check the amount above, then tap Pay again.
        </p>
      ) : null}
      <PayPanel key={attempt?.id ?? "new"} initial={page} action={action} attemptKey={attemptKey} />
      {/* Without JavaScript the page follows the attempt by reloading itself, and a paid checkout goes on to the merchant. */}
      {followsAttempt ? (
        <noscript>
          <meta httpEquiv="refresh" content="3" />
        </noscript>
      ) : null}
      {paidCheckout ? (
        <noscript>
          <meta httpEquiv="refresh" content={`3;url=${successRedirect(page.success_url!, page.id)}`} />
        </noscript>
      ) : null}
    </main>
  );
}
