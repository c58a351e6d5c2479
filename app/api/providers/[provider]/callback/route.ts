import { getDb } from "@/db/client";
import { systemClock } from "@/server/clock";
import { readLimited } from "@/server/http/body";
import { log } from "@/server/log";
import { providers } from "@/server/providers/registry";
import { receiveProviderCallback } from "@/server/services/providers/receive-callback";

// POST /api/providers/{provider}/callback – a wallet provider's signed notification
export async function POST(request: Request, { params }: { params: Promise<{ provider: string }> }): Promise<Response> {
  let rawBody: string;
  try {
    rawBody = await readLimited(request);
  } catch {
    return Response.json({ received: false, reason: "body too large or not UTF-8" }, { status: 400 });
  }
  try {
    const receipt = await receiveProviderCallback(
      { db: await getDb(), clock: systemClock, providers },
      { providerName: (await params).provider, headers: request.headers, rawBody },
    );
    return Response.json({ received: receipt.status === 200, ...receipt }, { status: receipt.status });
  } catch (error) {
    // Nothing was recorded (the transaction rolled back): the provider sends it again.
    log.error("provider callback not received", { error });
    return Response.json({ received: false, reason: "internal" }, { status: 500 });
  }
}
