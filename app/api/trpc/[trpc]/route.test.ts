import { describe, expect, it, vi } from "vitest";
import { MAX_BODY_BYTES } from "@/server/http/body";
import { MAX_BATCH_SIZE } from "@/server/domain/staff";

// No session cookie: the caller is signed out, as anyone on the internet is.
vi.mock("@/server/auth/current-staff", async (actual) => ({
  ...(await actual<typeof import("@/server/auth/current-staff")>()),
  currentStaff: async () => ({ base: null, session: null, livemode: false, clientAddress: null }),
}));
const { GET, POST } = await import("./route");

/** A body of `total` bytes that counts what the server pulls of it. */
function endless(total: number) {
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const seen = { bytes: 0 };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.bytes >= total) return controller.close();
      seen.bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { body, seen };
}

describe("/api/trpc", () => {
  it("reads at most a bounded body, signed in or not, where tRPC would parse any size before the session check", async () => {
    const { body, seen } = endless(64 * 1024 * 1024);
    const res = await POST(new Request("http://127.0.0.1:3000/api/trpc/staff.add", { method: "POST", body, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { message: `The request body is larger than ${MAX_BODY_BYTES / 1024} KB.` } });
    // The limit, then what is read and dropped before answering (so the client reads the answer): not the 64 MB.
    expect(seen.bytes).toBeLessThanOrEqual(5 * 1024 * 1024);
  });

  it("refuses a declared length over the limit without parsing", async () => {
    const res = await POST(
      new Request("http://127.0.0.1:3000/api/trpc/staff.add", { method: "POST", body: "{}", headers: { "content-type": "application/json", "content-length": String(MAX_BODY_BYTES + 1) } }),
    );
    expect(res.status).toBe(400);
  });

  it("answers a body within the limit as tRPC does: a signed-out caller is UNAUTHORIZED, whatever the input holds", async () => {
    const res = await POST(
      new Request("http://127.0.0.1:3000/api/trpc/staff.add", { method: "POST", body: JSON.stringify({ email: "a\u0000b" }), headers: { "content-type": "application/json" } }),
    );
    expect(res.status).toBe(401);
  });

  it(`batches at most ${MAX_BATCH_SIZE} calls in one request`, async () => {
    const batch = (n: number) => {
      const paths = Array.from({ length: n }, () => "session.me").join(",");
      const input = encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, {}]))));
      return GET(new Request(`http://127.0.0.1:3000/api/trpc/${paths}?batch=1&input=${input}`));
    };
    const within = await batch(MAX_BATCH_SIZE);
    expect(((await within.json()) as unknown[]).length).toBe(MAX_BATCH_SIZE);
    const over = await batch(MAX_BATCH_SIZE + 1);
    expect(over.status).toBe(400);
  });
});
