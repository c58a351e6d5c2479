"use client";

import { useQuery } from "@tanstack/react-query";
import { DataTable } from "@/components/ui/data-table";
import { plural } from "@/components/ui/plural";
import { Badge } from "@/components/ui/status-badge";
import { Failed } from "@/components/ui/states";
import { formatWhenRange } from "../kit";
import { useTRPC } from "../trpc";
import { useEndpoints, when, type Outputs } from "../webhooks/common";

type Replay = Outputs["events"]["replays"][number];

/** How often the panel asks again while a replay is being queued. */
const RUNNING_POLL_MS = 2_000;

/**
 * The latest window replays of the last day, from the API or this page: how far each has come and whether it is
 * still being queued, done, or stopped and why. A replay whose request was cut off (a closed page,
 * a server that died) goes on, carried on by the server; this is where staff see it finish.
 * Shown once there is one.
 */
export function RecentReplays() {
  const trpc = useTRPC();
  const replays = useQuery({
    ...trpc.events.replays.queryOptions(),
    refetchInterval: (q) => (q.state.data?.some((r) => r.status === "running") ? RUNNING_POLL_MS : false),
  });
  const { urlOf } = useEndpoints();
  if (replays.isError && !replays.data) return <Failed message="The latest window replays could not be read." retry={() => void replays.refetch()} />;
  if (!replays.data?.length) return null;
  return (
    <section className="panel" aria-labelledby="recent-replays-title">
      <h2 id="recent-replays-title">Latest window replays</h2>
      <DataTable
        className="cards replay-table"
        columns={["Status", { label: "Queued", num: true }, "Window", "To", "Started"]}
        rows={replays.data}
        row={(r) => (
          <tr key={r.id}>
            <td className="cell-wrap rp-status">
              <ReplayStatus replay={r} />
            </td>
            <td className="rp-queued">
              {plural(r.deliveries, "delivery", "deliveries")} for {plural(r.events, "event", "events")}
            </td>
            <td className="cell-wrap rp-window">
              {formatWhenRange(r.createdGte, r.createdLt)}
              {r.types ? <span className="muted"> · {r.types.join(", ")}</span> : null}
            </td>
            <td className="cell-wrap rp-to">
              {r.endpointId ? (urlOf(r.endpointId) ?? r.endpointId) : "Every subscribed endpoint"}
              {r.onlyUndelivered ? <span className="muted"> · only what was not delivered</span> : null}
            </td>
            <td className="rp-started">{when(r.createdAt)}</td>
          </tr>
        )}
      />
    </section>
  );
}

function ReplayStatus({ replay }: { replay: Replay }) {
  switch (replay.status) {
    case "running":
      return <Badge tone="wait">Queueing</Badge>;
    case "done":
      return (
        <span title={`Done ${when(replay.finishedAt)}`}>
          <Badge tone="good">Done</Badge>
        </span>
      );
    case "stopped":
      return (
        <>
          <Badge tone="bad">Stopped</Badge> <span className="rp-error">{replay.error}</span>
        </>
      );
  }
}
