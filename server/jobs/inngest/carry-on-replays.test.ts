import { InngestTestEngine } from "@inngest/test";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { getDb } from "@/db/client";
import { eventReplays } from "@/db/schema";
import { replayEventWindow } from "@/server/services/events/replay-event-window";
import { createEndpoint } from "@/server/services/webhooks/create-endpoint";
import { seedEvents, seedTestMerchant } from "@/server/testing/fixtures";
import { carryOnReplaysFn } from "./carry-on-replays";

// The function claims stalled replays in the whole database; tests share one, so this one confines
// its claim to its own merchant, as the local runner's tests do.
const scope = vi.hoisted(() => ({ merchantId: undefined as string | undefined }));
vi.mock("./deps", async (real) => {
  const mod = await real<typeof import("./deps")>();
  return { jobDeps: async () => ({ ...(await mod.jobDeps()), merchantId: scope.merchantId }) };
});

describe("carry-on-replays", () => {
  it("carries a window replay handed back by the request that answered it running on to its end", async () => {
    const m = await seedTestMerchant();
    scope.merchantId = m.merchant.id;
    const ctx = await m.ctx();
    const endpoint = await createEndpoint(ctx, { url: "https://127.0.0.1:9/window", enabledEvents: ["*"] });
    const handedBack = await replayEventWindow(ctx, { createdGte: await seedEvents(m, 1_300), endpointId: endpoint.id }, { answerWithinMs: 0 });
    expect(handedBack).toMatchObject({ status: "running", events: 500 });

    const { result } = await new InngestTestEngine({ function: carryOnReplaysFn }).execute({
      events: [{ name: "webhook/replay.handed-back", data: { replay_id: handedBack.id! } }],
    });
    expect(result).toEqual({ finished: 1 });
    const [row] = await (await getDb()).select().from(eventReplays).where(eq(eventReplays.id, handedBack.id!));
    expect(row).toMatchObject({ status: "done", events: 1_300, deliveries: 1_300, leaseUntil: null });
  });
});
