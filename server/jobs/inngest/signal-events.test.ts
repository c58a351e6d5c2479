import { describe, expect, it } from "vitest";
import type { JobSignal } from "@/server/services/job-signals";
import { functions } from "./functions";
import { signalEvents } from "./signal-events";

const at = new Date("2026-06-01T10:00:00Z");

/** One signal of each type: a type added without a sample here fails to compile. */
const SAMPLES: { [T in JobSignal["type"]]: Extract<JobSignal, { type: T }> } = {
  "payment.created": { type: "payment.created", paymentId: "pay_a", expiresAt: at },
  "payment.unknown": { type: "payment.unknown", paymentId: "pay_a", unknownSince: at },
  "refund.created": { type: "refund.created", refundId: "re_a", dueAt: at },
  "events.recorded": { type: "events.recorded", eventIds: ["evt_a", "evt_b"] },
  "webhooks.queued": { type: "webhooks.queued", deliveries: [{ id: "whd_a", endpointId: "we_a" }, { id: "whd_b", endpointId: "we_a" }], at },
  "replay.handed-back": { type: "replay.handed-back", replayId: "evr_a", afterEventId: "evt_b" },
  "settlements.created": { type: "settlements.created", settlements: [{ id: "st_a", payAfter: at }, { id: "st_live", payAfter: null }] },
};

/** The event names the registered functions are triggered by. */
const triggered = new Set(functions.flatMap((f) => (f as unknown as { opts: { triggers: { event?: string }[] } }).opts.triggers.flatMap((t) => (t.event ? [t.event] : []))));

describe("the Inngest events each job signal sends", () => {
  it.each(Object.values(SAMPLES).map((s) => [s.type, s] as const))("%s: each event starts a registered function", (_type, signal) => {
    const events = signalEvents(signal);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(triggered, e.name).toContain(e.name);
  });

  it("deduplicate as the work does: one run per object, per delivery and due time, per replay and cursor", () => {
    const ids = (s: JobSignal) => signalEvents(s).map((e) => e.id);
    expect(ids(SAMPLES["payment.created"])).toEqual(["pay_a"]);
    expect(ids(SAMPLES["payment.unknown"])).toEqual([`pay_a:unknown:${at.getTime()}`]);
    expect(ids(SAMPLES["webhooks.queued"])).toEqual([`whd_a:${at.getTime()}`, `whd_b:${at.getTime()}`]);
    // A live batch waits for an operator: it sends nothing.
    expect(ids(SAMPLES["settlements.created"])).toEqual(["st_a"]);
    // A replay handed back again further on starts another run; the same hand-back sent twice, one.
    const handBack = (afterEventId: string | null) => ids({ type: "replay.handed-back", replayId: "evr_a", afterEventId });
    expect(handBack("evt_b")).toEqual(handBack("evt_b"));
    expect(new Set([...handBack(null), ...handBack("evt_b"), ...handBack("evt_c")]).size).toBe(3);
  });
});
