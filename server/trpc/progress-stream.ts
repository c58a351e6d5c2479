import { dashboardError } from "./init";

/** One piece of a streamed call's answer: how far the work has come, then (last) its result. */
export type ProgressChunk<P, R> = { done: false; progress: P } | { done: true; result: R };

type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Runs `work` and answers with a stream of what it reports, the latest report each time the reader
 * asks (reports it missed in between are folded into the latest), then its result.
 *
 * Work that fails before its first report fails the call itself, as a plain call would (a refused
 * input, an endpoint not found): the work reports once it is past its checks. From then on it runs
 * to its end whether or not anyone still reads: a page closed half-way through a replay does not
 * stop it half-way. A later failure is answered as the call's own would be (dashboardError, which
 * logs an internal fault), once, when it happens, whether or not a reader is left to hear it.
 */
export async function progressStream<P, R>(path: string, work: (report: (progress: P) => void) => Promise<R>): Promise<AsyncIterable<ProgressChunk<P, R>>> {
  let latest: { progress: P } | undefined;
  let reports = 0;
  let settled: Settled<R> | undefined;
  let wake: (() => void) | undefined;
  const nudge = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  let started!: () => void;
  const first = new Promise<void>((resolve) => (started = resolve));

  void work((progress) => {
    latest = { progress };
    reports++;
    started();
    nudge();
  })
    .then(
      (value) => {
        settled = { ok: true, value };
      },
      (error: unknown) => {
        settled = { ok: false, error: reports === 0 ? error : dashboardError(error, path) };
      },
    )
    .finally(() => {
      started();
      nudge();
    });

  await first;
  // Before any report: the call's own failure, which its middleware answers.
  if (reports === 0 && settled && !settled.ok) throw settled.error;

  return (async function* read() {
    let seen = 0;
    for (;;) {
      if (reports !== seen) {
        seen = reports;
        yield { done: false, progress: latest!.progress };
      } else if (settled) {
        if (!settled.ok) throw settled.error;
        yield { done: true, result: settled.value };
        return;
      } else {
        await new Promise<void>((resolve) => (wake = resolve));
      }
    }
  })();
}
