/**
 * The sandbox's number table (README "Sandbox numbers"). The last digit of a 26377000000X
 * number picks the outcome; every other valid number succeeds after about three seconds.
 */
export const SANDBOX_NUMBERS = {
  "263770000001": "succeeds",
  "263770000002": "declines_insufficient_funds",
  "263770000003": "never_answers",
  "263770000004": "times_out_then_succeeds",
  "263770000005": "stays_unknown",
  "263770000006": "rejected_at_push",
  "263770000007": "refunds_fail",
} as const;

export type SandboxBehaviour = (typeof SANDBOX_NUMBERS)[keyof typeof SANDBOX_NUMBERS] | "succeeds_after_delay";

export function sandboxBehaviour(msisdn: string): SandboxBehaviour {
  return (SANDBOX_NUMBERS as Record<string, SandboxBehaviour>)[msisdn] ?? "succeeds_after_delay";
}
