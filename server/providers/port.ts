import type { FailureCode } from "@/server/domain/payment-status";
import type { Currency } from "@/server/domain/money";

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
export class ProviderUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProviderUnavailableError";
  }
}

export interface WalletProvider {
  readonly name: string;
  push(request: PushRequest, signal: AbortSignal): Promise<PushResult>;
}

/** Chooses the provider that serves a payment. */
export type ProviderRegistry = {
  forPayment(input: { livemode: boolean; msisdn: string }): WalletProvider;
};
