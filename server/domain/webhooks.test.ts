import { describe, expect, it } from "vitest";
import { claimIsStale, DELIVERY_LEASE_MS, ENDPOINT_CONCURRENCY, endpointShare, endpointWants, FRESH_CLAIM_MS, GIVE_UP_AFTER_MS, healthChange, nextAttemptAt, RETRY_DELAYS_S, signingSecrets } from "./webhooks";

const t0 = new Date("2026-03-01T00:00:00Z");
const at = (s: number) => new Date(t0.getTime() + s * 1000);

describe("webhook rules", () => {
  it("retries on the schedule after each failed attempt, then gives up", () => {
    let last = t0;
    const times: number[] = [0];
    for (let n = 1; ; n++) {
      const next = nextAttemptAt(t0, n, last);
      if (!next) break;
      times.push((next.getTime() - t0.getTime()) / 1000);
      last = next;
    }
    expect(times).toEqual([0, 60, 360, 2_160, 9_360, 30_960, 74_160]);
    expect(times).toHaveLength(RETRY_DELAYS_S.length + 1);
  });

  it("never schedules an attempt more than 24 h after the first", () => {
    // Attempts that ran late (an outage of the runner) push the schedule past the day: no more.
    expect(nextAttemptAt(t0, 6, at(20 * 3600))).toBeNull();
    expect(nextAttemptAt(t0, 5, at(17 * 3600))!.getTime() - t0.getTime()).toBeLessThanOrEqual(GIVE_UP_AFTER_MS);
    expect(nextAttemptAt(t0, 5, at(18 * 3600 + 1))).toBeNull();
  });

  it("shares slots among the endpoints at work and always leaves a share for one more", () => {
    expect(endpointShare(128, 0)).toBe(ENDPOINT_CONCURRENCY);
    expect(endpointShare(128, 1)).toBe(64);
    expect(endpointShare(128, 2)).toBe(42);
    expect(endpointShare(128, 3)).toBe(32);
    expect(endpointShare(1_000, 1)).toBe(ENDPOINT_CONCURRENCY);
    expect(endpointShare(128, 500)).toBe(1);
    for (let k = 1; k <= 127; k++) {
      const share = endpointShare(128, k);
      // k endpoints each at their share leave at least as much again free.
      expect(128 - k * share).toBeGreaterThanOrEqual(share);
    }
  });

  it('matches event types, and "*" matches all', () => {
    expect(endpointWants(["*"], "payment.failed")).toBe(true);
    expect(endpointWants(["payment.succeeded"], "payment.failed")).toBe(false);
    expect(endpointWants(["payment.succeeded", "payment.failed"], "payment.failed")).toBe(true);
  });

  it("a test ping is wanted by no subscription, not even \"*\" (it goes to one endpoint by name)", () => {
    expect(endpointWants(["*"], "webhook_endpoint.test")).toBe(false);
    expect(endpointWants(["webhook_endpoint.test"], "webhook_endpoint.test")).toBe(false);
  });

  it("signs with the rolled secret too until its overlap ends", () => {
    const e = { secret: "whsec_new", previousSecret: "whsec_old", previousSecretExpiresAt: at(100) };
    expect(signingSecrets(e, at(99))).toEqual(["whsec_new", "whsec_old"]);
    expect(signingSecrets(e, at(100))).toEqual(["whsec_new"]);
    expect(signingSecrets({ secret: "whsec_new", previousSecret: null, previousSecretExpiresAt: null }, at(0))).toEqual(["whsec_new"]);
  });

  it("folds a batch of attempts into a health change, in attempt order", () => {
    expect(healthChange([])).toEqual({ reset: false, failureTimes: [] });
    expect(healthChange([{ ok: false, at: at(2) }, { ok: false, at: at(1) }])).toEqual({ reset: false, failureTimes: [at(1), at(2)] });
    // A success resets; only the failures after the last success count.
    expect(
      healthChange([
        { ok: false, at: at(3) },
        { ok: true, at: at(2) },
        { ok: false, at: at(1) },
        { ok: false, at: at(4) },
      ]),
    ).toEqual({ reset: true, failureTimes: [at(3), at(4)] });
    expect(healthChange([{ ok: false, at: at(1) }, { ok: true, at: at(2) }])).toEqual({ reset: true, failureTimes: [] });
  });
});

describe("a claimed delivery's freshness", () => {
  it("is fresh within FRESH_CLAIM_MS of its claim (its lease's end less DELIVERY_LEASE_MS), stale after, and stale with no lease", () => {
    const claimedAt = Date.parse("2026-11-30T10:00:00Z");
    const leasedUntil = new Date(claimedAt + DELIVERY_LEASE_MS);
    expect(claimIsStale(leasedUntil, new Date(claimedAt))).toBe(false);
    expect(claimIsStale(leasedUntil, new Date(claimedAt + FRESH_CLAIM_MS))).toBe(false);
    expect(claimIsStale(leasedUntil, new Date(claimedAt + FRESH_CLAIM_MS + 1))).toBe(true);
    expect(claimIsStale(null, new Date(claimedAt))).toBe(true);
  });
});
