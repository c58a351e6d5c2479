"use client";

import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { useEffect, useState } from "react";
import { DataTable } from "@/components/ui/data-table";
import { isCursored, Pager, type Cursor } from "@/components/ui/pager";
import { dropQueryParam } from "@/components/ui/drop-query-param";
import { count } from "@/components/ui/plural";
import { Empty, Failed, Loading } from "@/components/ui/states";
import { isId } from "@/server/domain/id-shape";
import { errorMessage, useTRPC } from "../trpc";
import { RoleNote, SecretOnce, StaleReading, useFormKey, useLeaveGuard, useRole, useSingleFlightMutation } from "../kit";
import { DELETED_PARAM, EndpointStatusBadge, failureRate, HealthBadge, SECRET_WARNING, when, type Endpoint } from "./common";
import { EndpointForm } from "./endpoint-form";
import "./webhooks.css";

const PAGE = 25;

/** /dashboard/webhooks: every endpoint with its health, degraded ones first in sight. */
export function EndpointList() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [cursor, setCursor] = useState<Cursor>({});
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ id: string; secret: string } | null>(null);
  // Come from an endpoint just deleted: said once (the address drops it, so a reload does not say it again).
  const params = useSearchParams();
  const [deleted] = useState(() => {
    const id = params.get(DELETED_PARAM);
    return id && isId("webhookEndpoint", id) ? id : null;
  });
  useEffect(() => dropQueryParam(DELETED_PARAM), []);
  const { role, allowed } = useRole("developer");
  const me = useQuery(trpc.session.me.queryOptions());
  const list = useQuery({ ...trpc.webhooks.list.queryOptions({ limit: PAGE, ...cursor }), placeholderData: keepPreviousData });
  const { formKey, renew } = useFormKey();
  const create = useSingleFlightMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: (e) => {
        renew();
        setCreating(false);
        setCreated({ id: e.id, secret: e.secret ?? "" });
        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
      },
    }),
  );
  useLeaveGuard(create.isPending, "Leave this page? The endpoint is being made: its signing secret, shown only once, would not be shown to you.");

  // As the overview counts them: a disabled endpoint is sent nothing, whatever its health says.
  const degraded = list.data?.data.filter((e) => e.health === "degraded" && e.status === "enabled") ?? [];
  return (
    <>
      <div className="page-head">
        <h1>Webhook endpoints</h1>
        {allowed ? (
          <button type="button" className="primary" onClick={() => setCreating(true)} disabled={creating}>
            Add endpoint
          </button>
        ) : (
          <RoleNote needed="developer" role={role} doing="Adding endpoints" inline />
        )}
      </div>

      {deleted ? (
        <p className="notice" role="status">
          Endpoint {deleted} deleted: nothing more is sent to it.
        </p>
      ) : null}

      {created ? (
        <SecretOnce title="Endpoint created: its signing secret" secret={created.secret} warning={SECRET_WARNING} copyLabel="Copy secret" onDone={() => setCreated(null)}>
          <p>
            Verify each delivery&apos;s <code>Service-Signature</code> header with it.{" "}
            <Link href={`/dashboard/webhooks/${created.id}`}>Open the endpoint</Link> to send a test event.
          </p>
        </SecretOnce>
      ) : null}

      {creating ? (
        <section className="panel" aria-labelledby="new-endpoint">
          <h2 id="new-endpoint">New endpoint</h2>
          <EndpointForm
            initial={{ url: "", enabledEvents: ["*"], description: "" }}
            submitLabel="Create endpoint"
            busy={create.isPending}
            error={create.error}
            livemode={me.data?.livemode ?? false}
            askPassword={me.data?.livemode ?? false}
            onSubmit={(v) => create.mutate({ url: v.url, enabledEvents: v.enabledEvents, description: v.description || undefined, confirmPassword: v.confirmPassword, formKey })}
            onCancel={() => {
              setCreating(false);
              create.reset();
            }}
          />
        </section>
      ) : null}

      {degraded.length ? (
        <div className="warning degraded-alert" role="alert">
          <strong>{degraded.length === 1 ? "1 endpoint is degraded" : `${degraded.length} endpoints are degraded`}</strong>
          <ul>
            {degraded.map((e) => (
              <li key={e.id}>
                <Link href={`/dashboard/webhooks/${e.id}`}>{e.url}</Link>: {count(e.consecutive_failures)} attempts in a row failed, degraded since {when(e.degraded_since)}
                  {e.lastFailure ? <>; the last got {e.lastFailure}</> : null}
              </li>
            ))}
          </ul>
          <span>Deliveries keep retrying on the schedule. Fix the receiver, then replay what it missed from the event log.</span>
        </div>
      ) : null}

      {list.isPending ? (
        <Loading what="endpoints" />
      ) : list.isError && !list.data ? (
        <Failed message={errorMessage(list.error)} retry={() => void list.refetch()} />
      ) : list.data.data.length === 0 && !isCursored(cursor) ? (
        <Empty>No webhook endpoints yet{me.data ? ` in ${me.data.livemode ? "live" : "test"} mode` : ""}. Add one to receive events as they happen.</Empty>
      ) : (
        <>
          <StaleReading q={list} what="the endpoints" />
          <EndpointTable endpoints={list.data.data} hours={list.data.statsWindowHours} />
          <Pager ids={list.data.data.map((e) => e.id)} hasMore={list.data.hasMore} cursor={cursor} onChange={setCursor} disabled={list.isPlaceholderData} />
        </>
      )}
    </>
  );
}

function EndpointTable({ endpoints, hours }: { endpoints: Endpoint[]; hours: number }) {
  return (
    <DataTable
      columns={["URL", "Health", "Status", "Events", { label: `Failed attempts (${hours} h)`, num: true }, "Last attempt"]}
      rows={endpoints}
      row={(e) => (
        <tr key={e.id} className={e.health === "degraded" ? "degraded" : undefined}>
          <td className="url-cell">
            <Link href={`/dashboard/webhooks/${e.id}`} title={e.url}>
              {e.url}
            </Link>
            {e.description ? <div className="muted">{e.description}</div> : null}
          </td>
          <td className="cell-wrap">
            <HealthBadge endpoint={e} />
            {e.health === "degraded" ? <div className="muted">since {when(e.degraded_since)}</div> : null}
            {e.consecutive_failures > 0 ? <div className="muted">{count(e.consecutive_failures)} failed in a row</div> : null}
          </td>
          <td>
            <EndpointStatusBadge status={e.status} />
          </td>
          <td>{e.enabled_events.includes("*") ? "All" : e.enabled_events.length === 1 ? <code>{e.enabled_events[0]}</code> : `${e.enabled_events.length} types`}</td>
          <td className={`num${e.failures24h ? " error" : ""}`}>{failureRate(e.failures24h, e.attempts24h)}</td>
          <td className="cell-wrap">{when(e.lastAttemptAt)}</td>
        </tr>
      )}
    />
  );
}
