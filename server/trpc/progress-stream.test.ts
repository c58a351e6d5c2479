import { TRPCError } from "@trpc/server";
import { describe, expect, it } from "vitest";
import { invalidParam } from "@/server/domain/errors";
import { logOf } from "@/server/testing/log";
import { progressStream, type ProgressChunk } from "./progress-stream";

/** A step the test lets the work take when it says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

async function next<P, R>(it: AsyncIterator<ProgressChunk<P, R>>) {
  return (await it.next()).value as ProgressChunk<P, R> | undefined;
}

describe("progressStream", () => {
  it("hands each report to the reader as it comes, then the result, last", async () => {
    const steps = [gate(), gate()];
    const stream = await progressStream("test.work", async (report: (n: number) => void) => {
      report(0);
      await steps[0]!.opened;
      report(500);
      await steps[1]!.opened;
      report(1000);
      return "done";
    });
    const it = stream[Symbol.asyncIterator]();
    expect(await next(it)).toEqual({ done: false, progress: 0 });
    steps[0]!.open();
    expect(await next(it)).toEqual({ done: false, progress: 500 });
    steps[1]!.open();
    expect(await next(it)).toEqual({ done: false, progress: 1000 });
    expect(await next(it)).toEqual({ done: true, result: "done" });
    expect((await it.next()).done).toBe(true);
  });

  it("folds the reports a slow reader missed into the latest", async () => {
    const step = gate();
    let finished = false;
    const stream = await progressStream("test.work", async (report: (n: number) => void) => {
      report(0);
      await step.opened;
      for (let n = 1; n <= 5; n++) report(n * 100);
      finished = true;
      return 5;
    });
    const it = stream[Symbol.asyncIterator]();
    expect(await next(it)).toEqual({ done: false, progress: 0 });
    step.open();
    await expect.poll(() => finished).toBe(true);
    expect(await next(it)).toEqual({ done: false, progress: 500 });
    expect(await next(it)).toEqual({ done: true, result: 5 });
  });

  it("fails the call itself when the work fails before its first report (a refused input)", async () => {
    const refused = invalidParam("created_gte", "created_gte is in the future.");
    await expect(
      progressStream("test.work", async () => {
        throw refused;
      }),
    ).rejects.toBe(refused);
  });

  it("answers a later failure in the stream as the call's own error would be answered", async () => {
    const stream = await progressStream("test.work", async (report: (n: number) => void) => {
      report(0);
      throw invalidParam("endpoint", "Webhook endpoint 'we_1' is disabled.");
    });
    const it = stream[Symbol.asyncIterator]();
    const seen: unknown[] = [];
    await expect(
      (async () => {
        for (let chunk = await it.next(); !chunk.done; chunk = await it.next()) seen.push(chunk.value);
      })(),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: "Webhook endpoint 'we_1' is disabled." });
    expect(seen).toEqual([{ done: false, progress: 0 }]);
    // An internal fault keeps its cause for the log; the formatter hides it from the page.
    const fault = new Error("connection reset");
    const failing = await progressStream("test.work", async (report: (n: number) => void) => {
      report(0);
      throw fault;
    });
    const reader = failing[Symbol.asyncIterator]();
    await reader.next();
    const error = await reader.next().then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TRPCError);
    expect(error).toMatchObject({ code: "INTERNAL_SERVER_ERROR", cause: fault });
  });

  it("logs a later internal fault once, with the procedure, whether a reader hears it or not", async () => {
    const failAfterReport = (step: { opened: Promise<void> }) => async (report: (n: number) => void) => {
      report(0);
      await step.opened;
      throw new Error("connection reset");
    };
    const faults = (lines: { msg?: string; path?: string }[]) => lines.filter((l) => l.msg === "dashboard call failed");

    const heard = gate();
    const { lines: heardLines } = await logOf(async () => {
      const reader = (await progressStream("events.replayWindow", failAfterReport(heard)))[Symbol.asyncIterator]();
      await reader.next();
      heard.open();
      await reader.next().catch(() => {});
    });
    expect(faults(heardLines)).toMatchObject([{ path: "events.replayWindow", error: { message: "connection reset" } }]);

    const unheard = gate();
    const { lines: unheardLines } = await logOf(async () => {
      for await (const chunk of await progressStream("events.replayWindow", failAfterReport(unheard))) {
        expect(chunk).toEqual({ done: false, progress: 0 });
        break; // the page was closed
      }
      unheard.open();
      await new Promise((resolve) => setTimeout(resolve, 10));
    });
    expect(faults(unheardLines)).toMatchObject([{ path: "events.replayWindow", error: { message: "connection reset" } }]);
  });

  it("goes on to its end when the reader leaves half-way", async () => {
    const step = gate();
    let reached = 0;
    let ended!: () => void;
    const end = new Promise<void>((resolve) => (ended = resolve));
    const stream = await progressStream("test.work", async (report: (n: number) => void) => {
      report(0);
      await step.opened;
      for (let n = 1; n <= 3; n++) {
        reached = n;
        report(n);
        await Promise.resolve();
      }
      ended();
      return reached;
    });
    for await (const chunk of stream) {
      expect(chunk).toEqual({ done: false, progress: 0 });
      break; // the page was closed
    }
    step.open();
    await end;
    expect(reached).toBe(3);
  });
});
