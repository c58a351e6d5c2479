"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Empty, Failed, Loading } from "@/components/ui/states";
import { TEST_EVENT_TYPE } from "@/server/domain/events";
import { BackToList, RoleNote, StaleReading, useRole, useSingleFlightMutation } from "../kit";
import { errorMessage, isMissing, useTRPC } from "../trpc";
import { DeliveriesTable, deliveryPollMs, useEndpoints, when, type EndpointsQuery, type Outputs } from "../webhooks/common";
import { ObjectLink } from "./object-link";
import { replayNotice } from "./replay-notice";
import "../webhooks/webhooks.css";
import "./events.css";

type Detail = Outputs["events"]["get"];

/** /dashboard/events/[id]: the payload as sent, its deliveries with their attempts, and replay. */
export function EventDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const detail = useQuery({
    ...trpc.events.get.queryOptions({ id }),
    // While a delivery is on its way, watch it land.
    refetchInterval: (q) => deliveryPollMs(q.state.data?.deliveries),
  });
  return (
    <>
      <BackToList list="events">← Events</BackToList>
      {detail.isPending ? (
        <Loading what="the event" />
      ) : detail.isError && !detail.data ? (
        <Failed
          message={isMissing(detail.error) ? `No event ${id} in this environment. It may belong to the other mode.` : errorMessage(detail.error)}
          retry={isMissing(detail.error) ? undefined : () => void detail.refetch()}
        />
      ) : (
        // Once read, a failed reading again keeps the page (and an endpoint chosen for a replay), and says so.
        <>
          <StaleReading q={detail} what="the event" />
          <Loaded d={detail.data} />
        </>
      )}
    </>
  );
}

function Loaded({ d }: { d: Detail }) {
  const { event, deliveries } = d;
  const { list, urlOf } = useEndpoints();
  const object = event.data.object;
  const objectId = typeof object.id === "string" ? object.id : null;
  return (
    <>
      <div className="page-head">
        <h1>
          <code>{event.type}</code>
        </h1>
      </div>
      <section className="panel">
        <dl className="fields">
          <dt>Id</dt>
          <dd>
            <code>{event.id}</code>
          </dd>
          <dt>Created</dt>
          <dd>{when(event.created_at)}</dd>
          <dt>Mode</dt>
          <dd>{event.livemode ? "Live" : "Test"}</dd>
          <dt>Object</dt>
          <dd>
            <ObjectLink object={object} />
          </dd>
        </dl>
      </section>

      <Replay eventId={event.id} isTest={event.type === TEST_EVENT_TYPE} testEndpoint={event.type === TEST_EVENT_TYPE ? objectId : null} list={list} />

      <h2>Deliveries</h2>
      {deliveries.length === 0 ? (
        <Empty>No deliveries: no enabled endpoint was subscribed to {event.type} when it happened. Replay it to send it now.</Empty>
      ) : (
        <>
          <DeliveriesTable deliveries={deliveries} show="endpoint" endpointUrl={urlOf} />
          {d.moreDeliveries ? <p className="muted">Showing the newest {deliveries.length} deliveries.</p> : null}
        </>
      )}

      <h2>Payload</h2>
      <p className="muted">The body every delivery of this event POSTs, signed in the Service-Signature header.</p>
      <pre className="payload" tabIndex={0} aria-label="Event payload as JSON">
        {JSON.stringify(event, null, 2)}
      </pre>
    </>
  );
}

function Replay({
  eventId,
  isTest,
  testEndpoint,
  list,
}: {
  eventId: string;
  isTest: boolean;
  testEndpoint: string | null;
  /** The merchant's endpoints (useEndpoints): where it can be sent is not known until they are read. */
  list: EndpointsQuery;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { role, allowed } = useRole("developer");
  const endpoints = list.data?.data;
  const enabled = (endpoints ?? []).filter((e) => e.status === "enabled");
  const isEnabled = (id: string | null) => enabled.some((e) => e.id === id);
  // A test ping goes only to the endpoint named ("all" would queue nothing): its own while it is
  // enabled, otherwise one staff pick. The choice is only ever one the list shows ("" is "all").
  const pingHomeEnabled = isTest && isEnabled(testEndpoint);
  const [picked, setPicked] = useState<string | null>(null);
  const wanted = picked ?? (isTest ? testEndpoint : "");
  const target = wanted && isEnabled(wanted) ? wanted : "";
  const [queued, setQueued] = useState<{ deliveries: number; retries: number } | null>(null);
  const replay = useSingleFlightMutation(
    trpc.events.replay.mutationOptions({
      onSuccess: (r) => {
        setQueued({ deliveries: r.deliveries.length, retries: r.retries });
        void queryClient.invalidateQueries({ queryKey: trpc.events.get.queryKey({ id: eventId }) });
        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
      },
    }),
  );
  return (
    <section className="panel" aria-labelledby="replay-title">
      <h2 id="replay-title">Replay</h2>
      {!allowed ? (
        <RoleNote needed="developer" role={role} doing="Replaying events" />
      ) : (
        <form
          className="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            setQueued(null);
            replay.mutate({ id: eventId, endpointId: target || undefined });
          }}
        >
          {!endpoints ? (
            list.isError ? (
              <Failed message={`Could not read the endpoints it can be sent to. ${errorMessage(list.error)}`} retry={() => void list.refetch()} />
            ) : (
              <Loading what="the endpoints" />
            )
          ) : null}
          {endpoints && isTest && !pingHomeEnabled ? (
            <p className="muted">
              The endpoint this test event was sent to ({testEndpoint}) is disabled or deleted. Choose an enabled endpoint to send it to instead.
            </p>
          ) : null}
          {endpoints && enabled.length === 0 ? (
            <p className="muted">
              No endpoint is enabled, so there is nowhere to send it: <Link href="/dashboard/webhooks">add or enable an endpoint</Link> first.
            </p>
          ) : null}
          <label>
            Send to
            <select value={target} onChange={(e) => setPicked(e.target.value)}>
              {isTest ? (
                <option value="" disabled>
                  Choose an endpoint
                </option>
              ) : (
                <option value="">Every enabled endpoint subscribed to it</option>
              )}
              {enabled.map((e) => (
                <option key={e.id} value={e.id}>
                  {e.url}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="primary" disabled={replay.isPending || !endpoints || enabled.length === 0 || (isTest && !target)}>
            {replay.isPending ? "Queueing…" : "Replay event"}
          </button>
        </form>
      )}
      {replay.error ? (
        <p className="warning" role="alert">
          {errorMessage(replay.error)}
        </p>
      ) : null}
      {queued !== null ? (
        <p className="notice" role="status">
          {replayNotice(queued.deliveries, queued.retries)}
        </p>
      ) : null}
    </section>
  );
}
