import type { FailureCode } from "@/server/domain/payment-status";
import type { Currency } from "@/server/domain/money";
import type { RefundFailureCode } from "@/server/domain/refunds";

/** What we ask a wallet provider to do: put a PIN prompt on the customer's phone. */
export type PushRequest = {
  /** Our payment id: the provider dedupes on it, so a retried push never prompts twice. */
  idempotencyKey: string;
  msisdn: string;
  /** The amount the customer is charged (fee included when they bear it). */
  amount: number;
  currency: Currency;
  reference: string;
  expiresAt: Date;
};

/** A push either reached the provider and got a definitive answer, or it throws. */
export type PushResult =
  | { outcome: "accepted"; providerReference: string }
  | { outcome: "rejected"; providerReference: string | null; failureCode: FailureCode; message: string };

/**
 * The provider could not be reached or did not answer in time. The prompt may or may not have
 * gone out, so the payment becomes `unknown`, never `failed`.
 */
const UNAVAILABLE = Symbol.for("mari.ProviderUnavailableError");

export class ProviderUnavailableError extends Error {
  readonly [UNAVAILABLE] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProviderUnavailableError";
  }

  /**
   * By brand, not by constructor: a production build can hold two copies of this module (the
   * server actions' layer and the route handlers'), and the sandbox, kept on globalThis, throws
   * the copy of whichever layer made it.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[UNAVAILABLE] === true;
  }
}

/**
 * What a provider says about a payment, in our terms. Every provider maps its own statuses onto
 * these with one exhaustive function (see sandbox/transformers.ts).
 * - `pending`: no money moved and nothing definitive yet (prompt open, or never acted on). With
 *   `record: "none"`, the provider holds no push with our key at all; most callers wait on it as
 *   on any pending (a push may reach its records late), but a create whose own retried push the
 *   provider refused learns from it that no prompt went out.
 * - `succeeded`: the money moved.
 * - `failed`: a definitive decline; the only way a payment becomes `failed`.
 * - `unknown`: the provider itself does not know.
 */
export type ProviderOutcome =
  | { kind: "pending"; record?: "none" }
  | { kind: "succeeded" }
  | { kind: "failed"; failureCode: FailureCode; message: string }
  | { kind: "unknown" };

export type StatusQuery = { idempotencyKey: string; providerReference: string | null; msisdn: string };

/** A verified, parsed provider notification. */
export type ParsedCallback = {
  /** The provider's id for this notification, when it sends one. */
  providerEventId: string | null;
  /** Our payment id, echoed back as the idempotency key we pushed with. */
  paymentId: string;
  providerReference: string;
  amount: number;
  currency: string;
  /** The provider's own status word, kept for audit. */
  reportedStatus: string;
  outcome: ProviderOutcome;
};

/** What we ask a wallet provider to send back to the customer's wallet. */
export type RefundRequest = {
  /** Our refund id: the provider dedupes on it, so a resubmitted refund never moves money twice. */
  idempotencyKey: string;
  /** Our payment id (the push's idempotency key) and the provider's reference for it. */
  paymentId: string;
  paymentProviderReference: string | null;
  msisdn: string;
  amount: number;
  currency: Currency;
};

/** A refund submission either reached the provider and got an answer, or it throws. */
export type RefundSubmission =
  | { outcome: "accepted"; providerReference: string }
  | { outcome: "rejected"; failureCode: RefundFailureCode; message: string };

export type RefundQuery = { idempotencyKey: string; providerReference: string | null; msisdn: string };

/**
 * What a provider says about a refund, in our terms (see sandbox/transformers.ts). `not_found`: it
 * holds no refund with our key, so it never took one (an adapter maps its "no such transaction"
 * here, not to `pending`, which would be asked about for ever).
 */
export type RefundOutcome =
  | { kind: "pending" }
  | { kind: "succeeded" }
  | { kind: "failed"; failureCode: RefundFailureCode; message: string }
  | { kind: "not_found" };

export interface WalletProvider {
  readonly name: string;
  push(request: PushRequest, signal: AbortSignal): Promise<PushResult>;
  /** Asks where a payment stands; throws ProviderUnavailableError when it cannot answer. */
  queryStatus(query: StatusQuery, signal: AbortSignal): Promise<ProviderOutcome>;
  /** Submits a refund; throws ProviderUnavailableError when the provider cannot be reached. */
  refund(request: RefundRequest, signal: AbortSignal): Promise<RefundSubmission>;
  /** Asks where a submitted refund stands; throws ProviderUnavailableError when it cannot answer. */
  queryRefund(query: RefundQuery, signal: AbortSignal): Promise<RefundOutcome>;
  /** True when the callback carries the provider's valid, fresh signature. */
  verifyCallback(headers: Headers, rawBody: string, now: Date): boolean;
  /** Reads a verified callback; null when it is not one we understand. */
  parseCallback(rawBody: string): ParsedCallback | null;
}

/** Chooses the provider that serves a payment. */
export type ProviderRegistry = {
  forPayment(input: { livemode: boolean; msisdn: string }): WalletProvider;
  /** By the name stored on a payment or in a callback URL; undefined when there is none. */
  byName(name: string): WalletProvider | undefined;
};
