import { PHASE_IS_FINAL, successRedirect } from "@/server/domain/hosted";
import type { HostedPage } from "@/server/schemas/hosted";
import type { PayFormState } from "./pay-form-state";
import { holdBackScript } from "./hold-back-script";
import { POLL_MS, SLOW_POLL_MS } from "./polling";
import { PayPanel } from "./pay-panel";

type Props = {
  page: HostedPage;
  action: (previous: PayFormState, form: FormData) => Promise<PayFormState>;
  /** A fresh key per render: one attempt per rendered form, however often it is sent (a form given back with an answer sends the answer's). */
  attemptKey: string;
  /** Shown again because the charge changed as Pay was tapped (AMOUNT_CHANGED_PARAM). */
  amountChanged?: boolean;
  /** Shown again because Pay was refused: another attempt at the order was under way (IN_PROGRESS_PARAM). */
  refusedInProgress?: boolean;
  /** This response's script nonce (proxy.ts), for the page's one inline script. */
  nonce: string | undefined;
};

/**
 * Both hosted pages (server component): the island, which heads with who is being paid, for what
 * and how much, before anything else (as the page's latest answer has it), then takes the number
 * and follows the attempt (or, on a closed page, says why, and shows this browser's own attempt if
 * it made one).
 */
export function HostedCheckout({ page, action, attemptKey, amountChanged = false, refusedInProgress = false, nonce }: Props) {
  const attempt = page.attempt;
  const followsAttempt = attempt !== null && !PHASE_IS_FINAL[attempt.phase];
  // Without JavaScript the page looks again by reloading itself: at an attempt under way, and at a
  // single-use link someone else is paying, until that payment ends (slowly, as for unresolved).
  const reloadMs = followsAttempt && attempt.status !== "unresolved" ? POLL_MS : followsAttempt || page.link_in_use ? SLOW_POLL_MS : null;
  // Not while another attempt's prompt is out: the page warns of it first (SecondChargeWarning).
  const paidCheckout = attempt?.phase === "succeeded" && page.success_url !== null && page.other_attempt === null;
  return (
    <main className="pay">
      {page.livemode ? null : <p className="test-mode">Test mode: no real money moves</p>}
      {/* Before the island (which heads with the merchant, what is paid for and the amount): read as
          the HTML arrives, so that a browser which sent an attempt from here never sees a form or
          "Link already used" while the island's script is on its way. */}
      <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: holdBackScript(page.id, page.state !== "open") }} />
      {/* A new island for each state the server shows (an attempt, a link used since): none of the last one's is carried over. */}
      <PayPanel
        key={`${page.state}:${attempt?.id ?? "new"}`}
        initial={page}
        action={action}
        attemptKey={attemptKey}
        amountChanged={amountChanged}
        refusedInProgress={refusedInProgress}
      />
      {/* Without JavaScript the page follows the attempt (or the link in use) by reloading itself, and a paid checkout goes on to the merchant. */}
      {reloadMs !== null ? (
        <noscript>
          <meta httpEquiv="refresh" content={String(Math.ceil(reloadMs / 1000))} />
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
