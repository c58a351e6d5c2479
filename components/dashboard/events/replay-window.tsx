"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import type { EventType, ReplayProgress } from "@/server/domain/events";
import { untilDone } from "../links";
import { errorMessage, isOutcomeUnknown, useTRPC, useTRPCClient } from "../trpc";
import { cancelOnEscape, useSingleFlightMutation } from "../kit";
import { EventTypeSelect } from "./event-type-select";
import { count, plural } from "@/components/ui/plural";
import { harareWallTimeToIso } from "@/server/domain/harare-time";

type Form = { from: string; to: string; type: string; endpointId: string; onlyUndelivered: boolean };

/** After this long, a queueing that has not answered says it is still going, and for how long. */
const STILL_QUEUEING_AFTER_S = 2;

/** Whole seconds since `running` became true; 0 while it is false. */
function useSecondsRunning(running: boolean): number {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    if (!running) return;
    const started = Date.now();
    const tick = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 1000);
    return () => {
      clearInterval(tick);
      setSeconds(0);
    };
  }, [running]);
  return seconds;
}


/**
 * Replay every event of a window (after an outage): count first with a dry run, then queue
 * exactly that window. Changing any field throws the count away, so what is confirmed is what
 * was counted.
 */
export function ReplayWindow({ initial, onClose }: { initial: { from: string; to: string; type: string }; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [form, setForm] = useState<Form>({ ...initial, endpointId: "", onlyUndelivered: true });
  // `createdLt`: the end the count used (now, when Before is empty), so the queue takes the same window.
  const [counted, setCounted] = useState<{ for: string; events: number; deliveries: number; createdLt: string } | null>(null);
  const countButton = useRef<HTMLButtonElement>(null);
  // Cancel and Escape put the count away; the focus goes back to the button that counted.
  const putCountAway = () => {
    setCounted(null);
    countButton.current?.focus();
  };
  const [queued, setQueued] = useState<{ events: number; deliveries: number } | null>(null);
  // Found on Count: a start after now with no end would count nothing and say nothing of why.
  const [startAhead, setStartAhead] = useState(false);
  const endpoints = useQuery(trpc.webhooks.list.queryOptions({ limit: 100 }));
  const client = useTRPCClient();
  type WindowInput = Parameters<typeof client.events.replayWindow.mutate>[0];
  // The answer comes as the events are walked, 500 at a time: a count or a queueing says how far it has come.
  const [countProgress, setCountProgress] = useState<ReplayProgress | null>(null);
  const [progress, setProgress] = useState<ReplayProgress | null>(null);
  const walk = (report: (progress: ReplayProgress | null) => void) => async (input: WindowInput) => {
    report(null);
    return untilDone(await client.events.replayWindow.mutate(input), report);
  };
  const dryRun = useSingleFlightMutation({ mutationFn: walk(setCountProgress) });
  const queue = useSingleFlightMutation({ mutationFn: walk(setProgress) });
  // A large window takes a while: the wait says it is still going, how long for, and how far it has come.
  const queueingFor = useSecondsRunning(queue.isPending);

  const from = harareWallTimeToIso(form.from);
  const to = harareWallTimeToIso(form.to);
  const key = JSON.stringify(form);
  const input = {
    createdGte: from ?? "",
    createdLt: to,
    types: form.type ? [form.type as EventType] : undefined,
    endpointId: form.endpointId || undefined,
    onlyUndelivered: form.onlyUndelivered,
  };
  const set = (patch: Partial<Form>) => {
    setForm({ ...form, ...patch });
    setCounted(null);
    setQueued(null);
    setStartAhead(false);
    dryRun.reset();
    queue.reset();
  };
  const problem = !from
    ? "Choose when the window starts."
    : to && to <= from
      ? "The end must be after the start."
      : startAhead
        ? "The start is in the future: with Before empty the window ends now, so it would hold no event."
        : null;
  const current = counted && counted.for === key ? counted : null;

  return (
    <section className="panel" aria-labelledby="replay-window-title">
      <h2 id="replay-window-title">Replay a time window</h2>
      <p className="muted">
        After an outage: queue every event of the window again to your endpoints, each only the types it subscribes to. Count first; nothing is sent until you confirm.
      </p>
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          if (problem) return;
          if (!to && from && Date.parse(from) > Date.now()) return setStartAhead(true);
          dryRun.mutate({ ...input, dryRun: true }, { onSuccess: (r) => setCounted({ for: key, events: r.events, deliveries: r.deliveries, createdLt: r.createdLt }) });
        }}
      >
        <label>
          From (Harare time)
          <input type="datetime-local" step={1} required value={form.from} onChange={(e) => set({ from: e.target.value })} />
        </label>
        <label>
          Before (Harare time; empty: now)
          <input type="datetime-local" step={1} value={form.to} onChange={(e) => set({ to: e.target.value })} />
        </label>
        <label>
          Type
          <EventTypeSelect value={form.type} onChange={(type) => set({ type })} />
        </label>
        <label>
          To
          <select value={form.endpointId} onChange={(e) => set({ endpointId: e.target.value })}>
            <option value="">Every enabled endpoint subscribed</option>
            {endpoints.data?.data
              .filter((ep) => ep.status === "enabled")
              .map((ep) => (
                <option key={ep.id} value={ep.id}>
                  {ep.url}
                </option>
              ))}
          </select>
        </label>
        <label className="check">
          <input type="checkbox" checked={form.onlyUndelivered} onChange={(e) => set({ onlyUndelivered: e.target.checked })} /> Only what was not delivered
        </label>
        <button type="submit" ref={countButton} disabled={Boolean(problem) || dryRun.isPending}>
          {dryRun.isPending ? (countProgress?.events ? `Counting… ${plural(countProgress.events, "event", "events")} so far` : "Counting…") : "Count (dry run)"}
        </button>
      </form>
      {problem && form.from ? <p className="error">{problem}</p> : null}
      {dryRun.error ? (
        <p className="warning" role="alert">
          {errorMessage(dryRun.error)}
        </p>
      ) : null}
      {current ? (
        <div className="notice" role="status" onKeyDown={(e) => cancelOnEscape(e, putCountAway, queue.isPending || queued !== null)}>
          <p className="replay-counts">
            {plural(current.events, "event", "events")}, {plural(current.deliveries, "delivery", "deliveries")}
          </p>
          {current.deliveries === 0 ? (
            <p>Nothing to queue for this window.</p>
          ) : queued ? null : (
            <div className="actions">
              {/* The count asks a question: its answer takes the focus, as a Yes does elsewhere. */}
              <button
                type="button"
                className="primary"
                autoFocus
                disabled={queue.isPending}
                onClick={() =>
                  queue.mutate(
                    { ...input, createdLt: current.createdLt, dryRun: false },
                    {
                      onSuccess: (r) => {
                        setQueued({ events: r.events, deliveries: r.deliveries });
                        void queryClient.invalidateQueries({ queryKey: trpc.events.pathKey() });
                        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
                      },
                      // Cut off, it goes on: the latest replays show it being carried on.
                      onError: () => void queryClient.invalidateQueries({ queryKey: trpc.events.replays.queryKey() }),
                    },
                  )
                }
              >
                {queue.isPending ? "Queueing…" : `Queue ${plural(current.deliveries, "delivery", "deliveries")}`}
              </button>
              <button type="button" onClick={putCountAway}>
                Cancel
              </button>
            </div>
          )}
          {queue.isPending && queueingFor >= STILL_QUEUEING_AFTER_S ? (
            <>
              <p>
                Still queueing (<span aria-live="off">{queueingFor} s</span> so far
                {progress ? (
                  <>
                    ; <span aria-live="off">{count(progress.events)}</span> of {plural(current.events, "event", "events")} done
                  </>
                ) : null}
                ): a large window takes a while. It goes on if you leave this page; each event&apos;s page shows its deliveries.
              </p>
              <progress className="replay-progress" aria-label="Events queued so far" max={current.events} value={progress?.events ?? 0} />
            </>
          ) : null}
        </div>
      ) : null}
      {queue.error ? (
        <p className="warning" role="alert">
          {errorMessage(queue.error)}{" "}
          {isOutcomeUnknown(queue.error)
            ? "A replay cut off goes on by itself, carried on by the server: Latest window replays below shows when it is done."
            : "Some batches may have been queued already; once this is fixed, count again with “Only what was not delivered” to finish."}
        </p>
      ) : null}
      {queued ? (
        <p className="notice" role="status">
          Queued {plural(queued.deliveries, "delivery", "deliveries")} for {plural(queued.events, "event", "events")}. They go out within a minute (a retry already due keeps its time); each event&apos;s page shows its
          deliveries.{" "}
          <button type="button" className="link-button" onClick={onClose}>
            Close
          </button>
        </p>
      ) : null}
    </section>
  );
}
