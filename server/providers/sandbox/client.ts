import { createHash, randomBytes } from "node:crypto";
import { BackgroundScope } from "@/server/background";
import { systemClock, type Clock } from "@/server/clock";
import { idTime } from "@/server/domain/ids";
import { signatureHeader, verifySignatureHeader } from "@/server/domain/signatures";
import {
  ProviderUnavailableError,
  type ParsedCallback,
  type ProviderOutcome,
  type PushRequest,
  type PushResult,
  type RefundOutcome,
  type RefundQuery,
  type RefundRequest,
  type RefundSubmission,
  type StatusQuery,
  type WalletProvider,
} from "../port";
import { sandboxBehaviour, type SandboxBehaviour } from "./behaviour";
import { isSandboxStatus, toOutcome, toRefundOutcome, type SandboxRefundStatus, type SandboxStatus } from "./transformers";

/** Misbehaviour a test can switch on, as a real provider's outages would. */
export type SandboxFaults = {
  /** `timeout`: the push hangs until the caller gives up; `error`: the connection fails. */
  push: "none" | "timeout" | "error";
  /** Added latency on every push, in ms. */
  pushLatencyMs: number;
  /** `error`: status queries fail as if the provider's API were down. */
  statusQuery: "none" | "error";
  /** How the final callback is delivered: once, three times, with a stale one after it, or never. */
  callbacks: "normal" | "duplicate" | "out_of_order" | "lost";
  /**
   * The refund API. `error`: submissions and queries fail to connect; `timeout`: a submission is
   * taken but its answer never arrives (the caller times out); `rejected`: submissions are refused;
   * `forgotten`: queries find no refund at all (a provider that lost its record).
   */
  refund: "none" | "error" | "timeout" | "rejected" | "forgotten";
};

const NO_FAULTS: SandboxFaults = { push: "none", pushLatencyMs: 0, statusQuery: "none", callbacks: "normal", refund: "none" };

/** Where the sandbox's callbacks go: the same handler real providers' callbacks reach. */
export type CallbackSink = (headers: Headers, rawBody: string) => Promise<unknown>;

const MAX_TRACKED = 100_000;
const SIGNATURE_HEADER = "sandbox-signature";

/** After how many seconds from the push each number's final answer exists (null: never). */
function answerAfter(behaviour: SandboxBehaviour): { status: SandboxStatus; seconds: number } | null {
  switch (behaviour) {
    case "succeeds":
      return { status: "SUCCESS", seconds: 1 };
    case "declines_insufficient_funds":
      return { status: "INSUFFICIENT_FUNDS", seconds: 1 };
    case "never_answers":
    case "stays_unknown":
    case "rejected_at_push":
      return null;
    case "times_out_then_succeeds":
      return { status: "SUCCESS", seconds: 10 };
    case "refunds_fail":
    case "succeeds_after_delay":
      return { status: "SUCCESS", seconds: 3 };
  }
}

/** Seconds from a refund's creation (its id carries the time) until the sandbox has settled it. */
const REFUND_SECONDS = 2;

/**
 * A wallet provider that behaves like one: it dedupes pushes on our idempotency key, answers
 * later through the signed callback path, and answers status queries. Its answers derive from
 * the number and the time since the push (our payment id carries it), so a restart of our
 * process changes nothing it would say; a callback lost in a restart is what status queries are for.
 */
export class SandboxProvider implements WalletProvider {
  readonly name = "sandbox";
  faults: SandboxFaults = { ...NO_FAULTS };
  clock: Clock = systemClock;
  /** Multiplies the answer delays; 0 answers at once. */
  delayScale = 1;
  /** What callbacks are signed with: the registry sets the process's; a sandbox made alone has one of its own. */
  secret = randomBytes(24).toString("base64url");
  private sink: CallbackSink | undefined;
  /** Callbacks are background work: their timers must not hold on to the request that pushed. */
  private readonly background = new BackgroundScope("SandboxCallbacks");
  /** Push calls received per idempotency key: the provider's own log, read by tests. */
  private readonly calls = new Map<string, number>();
  /** Refund submissions received per refund id, and the refunds taken (once each) per payment. */
  private readonly refundCallLog = new Map<string, number>();
  private readonly refundsByPayment = new Map<string, Set<string>>();
  /** Refunds it refused and never took: asked about, it says so (as a provider would say "no such refund"). */
  private readonly refusedRefunds = new Map<string, true>();

  pushCalls(idempotencyKey: string): number {
    return this.calls.get(idempotencyKey) ?? 0;
  }

  refundCalls(refundId: string): number {
    return this.refundCallLog.get(refundId) ?? 0;
  }

  /** The distinct refunds the sandbox took for a payment: a resubmission adds nothing here. */
  refundsTaken(paymentId: string): string[] {
    return [...(this.refundsByPayment.get(paymentId) ?? [])];
  }

  resetFaults(): void {
    this.faults = { ...NO_FAULTS };
  }

  /** Where callbacks are delivered; without a sink the sandbox only answers status queries. */
  deliverCallbacksTo(sink: CallbackSink | undefined): void {
    this.sink = sink;
  }

  async push(request: PushRequest, signal: AbortSignal): Promise<PushResult> {
    record(this.calls, request.idempotencyKey);
    if (this.faults.pushLatencyMs > 0) await delay(this.faults.pushLatencyMs, signal);
    const behaviour = sandboxBehaviour(request.msisdn);
    // …04 takes the prompt but answers too late: the caller times out.
    if (this.faults.push === "timeout" || behaviour === "times_out_then_succeeds") {
      if (behaviour === "times_out_then_succeeds" && this.calls.get(request.idempotencyKey) === 1) this.scheduleCallbacks(request);
      await delay(Number.POSITIVE_INFINITY, signal);
    }
    if (this.faults.push === "error") throw new ProviderUnavailableError("sandbox: connection reset");

    const providerReference = sandboxReference(request.idempotencyKey);
    if (behaviour === "rejected_at_push") {
      return {
        outcome: "rejected",
        providerReference,
        failureCode: "push_rejected",
        message: "The wallet provider refused the payment prompt for this number.",
      };
    }
    if (this.calls.get(request.idempotencyKey) === 1) this.scheduleCallbacks(request);
    return { outcome: "accepted", providerReference };
  }

  async queryStatus(query: StatusQuery, signal: AbortSignal): Promise<ProviderOutcome> {
    if (signal.aborted || this.faults.statusQuery === "error") throw new ProviderUnavailableError("sandbox: status API unavailable");
    return toOutcome(this.statusAt(query.idempotencyKey, query.msisdn));
  }

  async refund(request: RefundRequest, signal: AbortSignal): Promise<RefundSubmission> {
    if (this.faults.refund === "error") throw new ProviderUnavailableError("sandbox: refund API unavailable");
    record(this.refundCallLog, request.idempotencyKey);
    if (this.faults.refund === "rejected") {
      // Refuses even a refund it took before (a provider that does not dedupe its refusals).
      if (!this.refundsByPayment.get(request.paymentId)?.has(request.idempotencyKey)) {
        this.refusedRefunds.set(request.idempotencyKey, true);
        trim(this.refusedRefunds);
      }
      return { outcome: "rejected", failureCode: "refund_rejected", message: "The wallet provider refused the refund request." };
    }
    // Deduped on our refund id: however often it is submitted, it is one refund.
    const taken = this.refundsByPayment.get(request.paymentId) ?? new Set<string>();
    taken.add(request.idempotencyKey);
    this.refundsByPayment.set(request.paymentId, taken);
    trim(this.refundsByPayment);
    if (this.faults.refund === "timeout") await delay(Number.POSITIVE_INFINITY, signal, "refund");
    return { outcome: "accepted", providerReference: sandboxReference(request.idempotencyKey) };
  }

  async queryRefund(query: RefundQuery, signal: AbortSignal): Promise<RefundOutcome> {
    if (signal.aborted || this.faults.refund === "error") throw new ProviderUnavailableError("sandbox: refund API unavailable");
    // A refund it refused and never took is one it does not have.
    if (this.refusedRefunds.has(query.idempotencyKey) || this.faults.refund === "forgotten") return { kind: "not_found" };
    return toRefundOutcome(this.refundStatusAt(query.idempotencyKey, query.msisdn));
  }

  verifyCallback(headers: Headers, rawBody: string, now: Date): boolean {
    return verifySignatureHeader(headers.get(SIGNATURE_HEADER), rawBody, [this.secret], now);
  }

  parseCallback(rawBody: string): ParsedCallback | null {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(rawBody) as Record<string, unknown>;
    } catch {
      return null;
    }
    const { event_id, merchant_tx_id, transaction_ref, amount, currency, status } = body;
    if (typeof merchant_tx_id !== "string" || typeof transaction_ref !== "string") return null;
    if (typeof amount !== "number" || !Number.isInteger(amount) || typeof currency !== "string" || !isSandboxStatus(status)) return null;
    return {
      providerEventId: typeof event_id === "string" ? event_id : null,
      paymentId: merchant_tx_id,
      providerReference: transaction_ref,
      amount,
      currency,
      reportedStatus: status,
      outcome: toOutcome(status),
    };
  }

  /** Builds a signed callback exactly as the sandbox sends it (tests forge and replay with it). */
  signedCallback(body: Record<string, unknown>, at: Date = this.clock.now(), secret = this.secret): { headers: Headers; rawBody: string } {
    const rawBody = JSON.stringify(body);
    const headers = new Headers({ "content-type": "application/json" });
    headers.set(SIGNATURE_HEADER, signatureHeader([secret], Math.floor(at.getTime() / 1000), rawBody));
    return { headers, rawBody };
  }

  /** The provider's view of a payment at this moment. */
  private statusAt(paymentId: string, msisdn: string): SandboxStatus {
    const behaviour = sandboxBehaviour(msisdn);
    if (behaviour === "stays_unknown") throw new ProviderUnavailableError("sandbox: no status for this transaction");
    if (behaviour === "rejected_at_push") return "NOT_FOUND";
    const answer = answerAfter(behaviour);
    if (!answer) return "PENDING";
    const elapsed = (this.clock.now().getTime() - idTime(paymentId).getTime()) / 1000;
    return elapsed >= answer.seconds * this.delayScale ? answer.status : "PENDING";
  }

  /** The provider's view of a refund: settled REFUND_SECONDS after it was created, as its payment's number decides. */
  private refundStatusAt(refundId: string, msisdn: string): SandboxRefundStatus {
    const elapsed = (this.clock.now().getTime() - idTime(refundId).getTime()) / 1000;
    if (elapsed < REFUND_SECONDS * this.delayScale) return "PROCESSING";
    return sandboxBehaviour(msisdn) === "refunds_fail" ? "REFUND_FAILED" : "REFUNDED";
  }

  private scheduleCallbacks(request: PushRequest): void {
    const answer = answerAfter(sandboxBehaviour(request.msisdn));
    if (!answer || !this.sink || this.faults.callbacks === "lost") return;
    const body = {
      event_id: `sbx_evt_${sandboxReference(`${request.idempotencyKey}:${answer.status}`)}`,
      merchant_tx_id: request.idempotencyKey,
      transaction_ref: sandboxReference(request.idempotencyKey),
      amount: request.amount,
      currency: request.currency,
      status: answer.status,
    };
    const sends: Record<string, unknown>[] =
      this.faults.callbacks === "duplicate"
        ? [body, body, body]
        : this.faults.callbacks === "out_of_order"
          ? [body, { ...body, event_id: `${body.event_id}_stale`, status: answer.status === "SUCCESS" ? "DECLINED" : "SUCCESS" }]
          : [body];
    const sink = this.sink;
    const timer = this.background.setTimeout(() => {
      void (async () => {
        for (const b of sends) {
          const { headers, rawBody } = this.signedCallback(b);
          await sink(headers, rawBody).catch(() => {});
        }
      })();
    }, answer.seconds * 1000 * this.delayScale);
    timer.unref();
  }
}

function record(log: Map<string, number>, key: string): void {
  log.set(key, (log.get(key) ?? 0) + 1);
  trim(log);
}

/** The logs are for tests and bounded: the oldest entry goes first. */
function trim(log: Map<string, unknown>): void {
  if (log.size > MAX_TRACKED) {
    const oldest = log.keys().next().value;
    if (oldest !== undefined) log.delete(oldest);
  }
}

export function sandboxReference(idempotencyKey: string): string {
  return `SBX${createHash("sha256").update(idempotencyKey).digest("hex").slice(0, 20).toUpperCase()}`;
}

function delay(ms: number, signal: AbortSignal, what = "push"): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ProviderUnavailableError(`sandbox: ${what} timed out`));
    const timer = Number.isFinite(ms) ? setTimeout(resolve, ms) : undefined;
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(new ProviderUnavailableError(`sandbox: ${what} timed out`));
      },
      { once: true },
    );
  });
}
