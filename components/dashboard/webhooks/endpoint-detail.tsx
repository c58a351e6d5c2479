"use client";

import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type MouseEvent } from "react";
import { isCursored, Pager, type Cursor } from "@/components/ui/pager";
import { count, plural } from "@/components/ui/plural";
import { Empty, Failed, Loading } from "@/components/ui/states";
import { ConfirmPasswordField, RoleNote, SecretOnce, StaleReading, cancelOnEscape, confirmPasswordOf, roleRefusal, useFormKey, useLeaveGuard, useRole, useSingleFlightMutation } from "../kit";
import { errorMessage, isMissing, passwordRefusalOf, serviceCodeOf, useTRPC } from "../trpc";
import { DELETED_PARAM, DeliveriesTable, EndpointStatusBadge, deliveryPollMs, failureRate, HealthBadge, SECRET_WARNING, when, type Outputs } from "./common";
import { EndpointForm, endpointChanges } from "./endpoint-form";
import "./webhooks.css";

type Detail = Outputs["webhooks"]["get"];

/** /dashboard/webhooks/[id]: health, settings and actions, and the endpoint's recent deliveries. */
export function EndpointDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const endpoint = useQuery(trpc.webhooks.get.queryOptions({ id }));
  return (
    <>
      <p>
        <Link href="/dashboard/webhooks">← Webhook endpoints</Link>
      </p>
      {endpoint.isPending ? (
        <Loading what="the endpoint" />
      ) : endpoint.isError && (!endpoint.data || isMissing(endpoint.error)) ? (
        <Failed
          message={isMissing(endpoint.error) ? `No endpoint ${id} in this environment. It may have been deleted, or belong to the other mode.` : errorMessage(endpoint.error)}
          retry={isMissing(endpoint.error) ? undefined : () => void endpoint.refetch()}
        />
      ) : (
        // Read once, a failed reading again keeps the page (a secret just rolled is shown only here), and says so.
        <>
          <StaleReading q={endpoint} what="the endpoint" />
          <Loaded e={endpoint.data} />
        </>
      )}
    </>
  );
}

function Loaded({ e }: { e: Detail }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const router = useRouter();
  const { role, allowed } = useRole("developer");
  const me = useQuery(trpc.session.me.queryOptions());
  const [editing, setEditing] = useState(false);
  const [confirm, setConfirm] = useState<"disable" | "roll" | "delete" | null>(null);
  // The button that asked the question, which the focus goes back to when it is put away.
  const asker = useRef<HTMLButtonElement | null>(null);
  const ask = (ev: MouseEvent<HTMLButtonElement>, what: NonNullable<typeof confirm>) => {
    asker.current = ev.currentTarget;
    setConfirm(what);
  };
  const putQuestionAway = () => {
    setConfirm(null);
    asker.current?.focus();
  };
  // A live endpoint's new secret is a live secret, and where it sends is worth as much: rolling it,
  // or saving its settings (its URL among them), asks for the member's password again.
  const askPassword = e.livemode;
  const [secret, setSecret] = useState<Rolled | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
  // Deleted meanwhile (another tab, a colleague, the API): the page reads it again, and says it is gone.
  const goneMeanwhile = (err: unknown) => {
    if (serviceCodeOf(err) === "resource_missing") void queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ id: e.id }) });
  };

  const update = useSingleFlightMutation(
    trpc.webhooks.update.mutationOptions({
      onError: goneMeanwhile,
      onSuccess: (_, input) => {
        setEditing(false);
        setConfirm(null);
        setNotice(input.disabled === true ? "Endpoint disabled: nothing more is sent until you enable it." : input.disabled === false ? "Endpoint enabled." : "Saved.");
        refresh();
      },
    }),
  );
  const rollKey = useFormKey();
  const roll = useSingleFlightMutation(
    trpc.webhooks.rollSecret.mutationOptions({
      onError: goneMeanwhile,
      onSuccess: (r) => {
        rollKey.renew();
        setConfirm(null);
        // The new secret is the news; an earlier "Saved." would read as if it were about it.
        setNotice(null);
        setSecret({ value: r.secret ?? "", overlapHours: r.overlapHours, oldUntil: r.previous_secret_expires_at });
        refresh();
      },
    }),
  );
  const remove = useSingleFlightMutation(
    trpc.webhooks.delete.mutationOptions({
      onError: goneMeanwhile,
      onSuccess: () => {
        // Only the lists: the deleted endpoint's own queries, asked again, would answer 404.
        void queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.pathKey() });
        router.push(`/dashboard/webhooks?${DELETED_PARAM}=${e.id}`);
      },
    }),
  );
  const test = useSingleFlightMutation(
    trpc.webhooks.sendTest.mutationOptions({
      onError: goneMeanwhile,
      onSuccess: (r) => {
        setNotice(`Test event ${r.eventId} queued to this endpoint only; its delivery shows below.`);
        refresh();
      },
    }),
  );
  const failed = [update, roll, remove, test].find((m) => m.isError);
  useLeaveGuard(roll.isPending, "Leave this page? The new signing secret is being made, and would not be shown to you.");
  const busy = update.isPending || roll.isPending || remove.isPending || test.isPending;
  const refusal = role && !allowed ? roleRefusal("developer", role, "Changing endpoints") : undefined;

  return (
    <>
      <div className="page-head">
        <h1 title={e.url}>{e.url}</h1>
        <HealthBadge endpoint={e} />
      </div>
      <DegradedAlert e={e} />

      {secret ? <RolledSecret secret={secret} e={e} onDone={() => setSecret(null)} /> : null}
      {notice ? (
        <p className="notice" role="status">
          {notice}
        </p>
      ) : null}
      {/* A refused password is said beside its field, which asks again. */}
      {failed?.error && !passwordRefusalOf(failed.error) ? (
        <p className="warning" role="alert">
          {errorMessage(failed.error)}
        </p>
      ) : null}

      <section className="panel">
        {editing ? (
          <EndpointForm
            initial={{ url: e.url, enabledEvents: e.enabled_events, description: e.description ?? "" }}
            submitLabel="Save changes"
            busy={update.isPending}
            error={update.error}
            livemode={me.data?.livemode ?? e.livemode}
            askPassword={askPassword}
            onSubmit={(v, from) => update.mutate({ id: e.id, ...endpointChanges(v, from), confirmPassword: v.confirmPassword })}
            onCancel={() => {
              setEditing(false);
              update.reset();
            }}
          />
        ) : (
          <EndpointFields e={e} />
        )}
      </section>

      {!editing ? (
        <section className="panel" aria-labelledby="actions-title">
          <h2 id="actions-title">Actions</h2>
          {allowed ? null : <RoleNote needed="developer" role={role} doing="Changing endpoints" />}
          <div className="actions">
            <button type="button" className="primary" disabled={!allowed || busy || e.status !== "enabled"} title={e.status !== "enabled" ? "Enable the endpoint first." : refusal} onClick={() => test.mutate({ id: e.id })}>
              {test.isPending ? "Sending…" : "Send test event"}
            </button>
            <button type="button" disabled={!allowed || busy} title={refusal} onClick={() => setEditing(true)}>
              Edit
            </button>
            {e.status === "enabled" ? (
              <button type="button" disabled={!allowed || busy} title={refusal} onClick={(ev) => ask(ev, "disable")}>
                Disable
              </button>
            ) : (
              <button type="button" disabled={!allowed || busy} title={refusal} onClick={() => update.mutate({ id: e.id, disabled: false })}>
                Enable
              </button>
            )}
            <button type="button" disabled={!allowed || busy} title={refusal} onClick={(ev) => ask(ev, "roll")}>
              Roll secret
            </button>
            <button type="button" className="danger" disabled={!allowed || busy} title={refusal} onClick={(ev) => ask(ev, "delete")}>
              Delete
            </button>
          </div>
          {confirm ? (
            <form
              className="endpoint-confirm"
              aria-labelledby="confirm-text"
              onKeyDown={(ev) => cancelOnEscape(ev, putQuestionAway)}
              onSubmit={(ev) => {
                ev.preventDefault();
                if (confirm === "disable") update.mutate({ id: e.id, disabled: true });
                else if (confirm === "roll") roll.mutate({ id: e.id, confirmPassword: askPassword ? confirmPasswordOf(ev.currentTarget) : undefined, formKey: rollKey.formKey });
                else remove.mutate({ id: e.id });
              }}
            >
              <p id="confirm-text">
                {confirmQuestion(confirm, e)}
              </p>
              {confirm === "roll" && askPassword ? <ConfirmPasswordField autoFocus refused={roll.error} /> : null}
              <div className="actions">
                <button type="submit" className={confirm === "delete" || confirm === "disable" ? "danger" : "primary"} disabled={busy} autoFocus={!(confirm === "roll" && askPassword)}>
                  {confirm === "disable" ? "Disable endpoint" : confirm === "roll" ? "Roll secret" : "Delete endpoint"}
                </button>
                <button type="button" onClick={putQuestionAway}>
                  Cancel
                </button>
              </div>
            </form>
          ) : null}
        </section>
      ) : null}

      <EndpointDeliveries id={e.id} />
    </>
  );
}

/** What the page says of a degraded endpoint: since when, why, and the way back. */
function DegradedAlert({ e }: { e: Detail }) {
  if (e.health !== "degraded") return null;
  return (
    <div className="warning degraded-alert" role="alert">
      <strong>Degraded since {when(e.degraded_since)}</strong>
      <span>
        {count(e.consecutive_failures)} attempts in a row failed{e.lastFailure ? `; the last got ${e.lastFailure}` : ""}. It becomes healthy with its next
        successful delivery: fix the receiver, {e.status === "enabled" ? "" : "enable the endpoint, "}send a test event to check it, then{" "}
        <Link href="/dashboard/events">replay what it missed from the event log</Link>.
      </span>
    </div>
  );
}

type Rolled = { value: string; overlapHours: number; oldUntil: string | null };

/** A secret just rolled, shown once, with how long the previous one keeps signing. */
function RolledSecret({ secret, e, onDone }: { secret: Rolled; e: Detail; onDone: () => void }) {
  return (
    <SecretOnce title="New signing secret" secret={secret.value} warning={SECRET_WARNING} copyLabel="Copy secret" onDone={onDone}>
      <p>
        The previous secret keeps signing alongside this one for {secret.overlapHours} h{secret.oldUntil ? ` (until ${when(secret.oldUntil)})` : ""}: each
        delivery carries two <code>v1=</code> signatures meanwhile, so deploy the new secret before then.
      </p>
      {/* Rolled again since (another tab, a colleague): this one is now the kept one, on its way out. */}
      {secret.oldUntil && e.previous_secret_expires_at && Date.parse(e.previous_secret_expires_at) > Date.parse(secret.oldUntil) ? (
        <p className="attention" role="alert">
          The secret was rolled again since, elsewhere: this one is no longer the newest. It signs only until {when(e.previous_secret_expires_at)}, beside the
          newer one shown where it was rolled.
        </p>
      ) : null}
    </SecretOnce>
  );
}

/** The endpoint's settings and health, read-only. */
function EndpointFields({ e }: { e: Detail }) {
  return (
    <dl className="fields">
      <dt>Id</dt>
      <dd>
        <code>{e.id}</code>
      </dd>
      <dt>Status</dt>
      <dd>
        <EndpointStatusBadge status={e.status} />
      </dd>
      <dt>Health</dt>
      <dd>
        {e.health === "degraded" ? "Degraded" : "Healthy"} · {count(e.consecutive_failures)} failed in a row
      </dd>
      <dt>Last 24 h</dt>
      <dd>
        {plural(e.attempts24h, "attempt")}, failed: {failureRate(e.failures24h, e.attempts24h)}
        {e.lastAttemptAt ? ` · last ${when(e.lastAttemptAt)}` : ""}
      </dd>
      <dt>Events</dt>
      <dd>{e.enabled_events.includes("*") ? "All events" : e.enabled_events.map((t) => <code key={t}>{t} </code>)}</dd>
      <dt>Description</dt>
      <dd>{e.description ?? <span className="muted">None</span>}</dd>
      <dt>Secret</dt>
      <dd>
        Shown only when created or rolled.
        {e.previous_secret_expires_at ? ` The previous secret also signs until ${when(e.previous_secret_expires_at)}.` : ""}
      </dd>
      <dt>Created</dt>
      <dd>{when(e.created_at)}</dd>
    </dl>
  );
}

/** The question each action asks before it is done. */
function confirmQuestion(action: "disable" | "roll" | "delete", e: Detail): string {
  if (action === "disable") return "Disable this endpoint? Nothing more is sent to it; deliveries due meanwhile fail, saying so. Replay them from the event log after enabling it.";
  if (action === "delete") return "Delete this endpoint? Nothing more is sent to it and it cannot be restored; its past deliveries stay on their events' pages.";
  const kept = e.previous_secret_expires_at
    ? ` The secret kept from the last roll stops signing at once, not at ${when(e.previous_secret_expires_at)}: roll only once your receivers use the current one.`
    : "";
  return `Roll the signing secret? You get a new secret, shown once; the current one keeps signing alongside it for 24 h.${kept}`;
}

function EndpointDeliveries({ id }: { id: string }) {
  const trpc = useTRPC();
  const [cursor, setCursor] = useState<Cursor>({});
  const list = useQuery({
    ...trpc.webhooks.deliveries.queryOptions({ endpointId: id, limit: 20, ...cursor }),
    placeholderData: keepPreviousData,
    // While something is on its way, watch it land.
    refetchInterval: (q) => deliveryPollMs(q.state.data?.data),
  });
  // What lands changes the endpoint's health (a success after failures ends "degraded"): the
  // banner above is read again with each refresh of the deliveries, not left as the page opened.
  const queryClient = useQueryClient();
  const updatedAt = list.dataUpdatedAt;
  useEffect(() => {
    if (updatedAt) void queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ id }) });
  }, [updatedAt, queryClient, trpc, id]);
  return (
    <section aria-labelledby="recent-title">
      <h2 id="recent-title">Recent deliveries and their attempts</h2>
      {list.isPending ? (
        <Loading what="deliveries" />
      ) : list.isError && !list.data ? (
        <Failed message={errorMessage(list.error)} retry={() => void list.refetch()} />
      ) : list.data.data.length === 0 && !isCursored(cursor) ? (
        <Empty>Nothing has been sent to this endpoint yet. Send a test event to try it.</Empty>
      ) : (
        <>
          <StaleReading q={list} what="the deliveries" />
          <DeliveriesTable deliveries={list.data.data} show="event" />
          <Pager ids={list.data.data.map((d) => d.id)} hasMore={list.data.hasMore} cursor={cursor} onChange={setCursor} disabled={list.isPlaceholderData} />
        </>
      )}
    </section>
  );
}
