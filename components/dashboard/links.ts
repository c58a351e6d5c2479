import { httpBatchLink, httpBatchStreamLink, splitLink, TRPCClientError, type TRPCLink } from "@trpc/client";
import { MAX_BATCH_SIZE, modeName, PAGE_MODE_HEADER, STREAMED_PROCEDURES } from "@/server/domain/staff";
import type { ProgressChunk } from "@/server/trpc/progress-stream";
import type { AppRouter } from "@/server/trpc/routers/_app";

/**
 * How the dashboard's calls travel: batched, with the page's mode on each; a streamed procedure's
 * over the streaming link, which hands its progress to the page as it comes. `fetch`: another way
 * to send them than the browser's (a test's, into the handler itself).
 */
export function dashboardLinks(livemode: boolean, fetch?: typeof globalThis.fetch): TRPCLink<AppRouter>[] {
  const options = { url: "/api/trpc", maxItems: MAX_BATCH_SIZE, headers: { [PAGE_MODE_HEADER]: modeName(livemode) }, fetch };
  return [splitLink({ condition: (op) => STREAMED_PROCEDURES.has(op.path), true: httpBatchStreamLink(options), false: httpBatchLink(options) })];
}

/**
 * A streamed call's result (progressStream), each report of its progress handed to `onProgress`
 * as it comes. A stream that ends without its result was cut off on the way: no answer, as
 * isUnanswered (trpc.tsx) says.
 */
export async function untilDone<P, R>(stream: AsyncIterable<ProgressChunk<P, R>>, onProgress: (progress: P) => void): Promise<R> {
  for await (const chunk of stream) {
    if (chunk.done) return chunk.result;
    onProgress(chunk.progress);
  }
  throw new TRPCClientError("The answer ended before its result.");
}
