"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { Fragment, useState, useTransition } from "react";
import { DataTable } from "@/components/ui/data-table";
import { isCursored, Pager, type Cursor } from "@/components/ui/pager";
import { Empty, Failed, Loading } from "@/components/ui/states";
import { EVENT_TYPES, type EventType } from "@/server/domain/events";
import { FilterControls, NothingThisWay, PageFailed, RoleNote, StaleReading, useRememberListView, useRole } from "../kit";
import { useTRPC } from "../trpc";
import { when } from "../webhooks/common";
import { RecentReplays } from "./recent-replays";
import { ReplayWindow } from "./replay-window";
import { EventTypeSelect } from "./event-type-select";
import { ObjectLink } from "./object-link";
import { harareWallTimeToIso } from "@/server/domain/harare-time";
import "../webhooks/webhooks.css";
import "./events.css";

const PAGE = 25;

const isType = (t: string): t is EventType => (EVENT_TYPES as readonly string[]).includes(t);

/**
 * /dashboard/events: the event log, newest first. Filters and the page cursor live in the query
 * string (`type`, `from`, `to`, `after`, `before`), so a filtered view can be bookmarked and shared
 * and the back button walks pages.
 */
export function EventLog() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const { role, allowed: canReplay } = useRole("developer");
  useRememberListView("events", params.toString());
  const typeParam = params.get("type") ?? "";
  const type = isType(typeParam) ? typeParam : undefined;
  const from = params.get("from") ?? "";
  const to = params.get("to") ?? "";
  const cursor: Cursor = { startingAfter: params.get("after") ?? undefined, endingBefore: params.get("before") ?? undefined };
  const [draft, setDraft] = useState({ type: typeParam, from, to });
  // The controls show what the log is filtered by: an address this form did not make (the nav's
  // Events link, Back) sets them again.
  const applied = `${typeParam}|${from}|${to}`;
  const [shown, setShown] = useState(applied);
  if (shown !== applied) {
    setShown(applied);
    setDraft({ type: typeParam, from, to });
  }
  const [showReplay, setShowReplay] = useState(false);

  // A filter replaces the address; a page is a step of its own, which the browser's Back undoes.
  // Until the address commits, the rows in sight are the old address's: `navigating` says so.
  const [navigating, startNavigation] = useTransition();
  const go = (next: { type?: string; from?: string; to?: string; after?: string; before?: string }, step = false) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(next)) if (v) q.set(k, v);
    const s = q.toString();
    startNavigation(() => router[step ? "push" : "replace"](s ? `${pathname}?${s}` : pathname, { scroll: false }));
  };
  const filters = { type: typeParam, from, to };
  const createdGte = harareWallTimeToIso(from);
  const createdLt = harareWallTimeToIso(to);
  const badRange = createdGte !== undefined && createdLt !== undefined && createdLt <= createdGte;

  const list = useQuery({
    ...trpc.events.list.queryOptions({
      limit: PAGE,
      types: type ? [type] : undefined,
      createdGte,
      createdLt,
      ...cursor,
    }),
    placeholderData: keepPreviousData,
    enabled: !badRange,
  });
  const filtered = Boolean(type || from || to);

  return (
    <>
      <div className="page-head">
        <h1>Events</h1>
        {canReplay ? (
          <button type="button" onClick={() => setShowReplay(!showReplay)} aria-expanded={showReplay}>
            {showReplay ? "Close replay" : "Replay a time window…"}
          </button>
        ) : (
          <RoleNote needed="developer" role={role} doing="Replaying events" inline />
        )}
      </div>
      {showReplay && canReplay ? <ReplayWindow initial={{ from, to, type: typeParam }} onClose={() => setShowReplay(false)} /> : null}
      <RecentReplays />

      <form
        className="toolbar"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          go(draft);
        }}
      >
        <FilterControls>
          <label>
            Type
            <EventTypeSelect value={draft.type} onChange={(type) => setDraft({ ...draft, type })} />
          </label>
          <label>
            From (Harare time)
            <input type="datetime-local" step={1} value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
          </label>
          <label>
            Before (Harare time)
            <input type="datetime-local" step={1} value={draft.to} onChange={(e) => setDraft({ ...draft, to: e.target.value })} />
          </label>
          <button type="submit" className="primary">
            Apply
          </button>
          {filtered ? (
            <button
              type="button"
              onClick={() => {
                setDraft({ type: "", from: "", to: "" });
                go({});
              }}
            >
              Clear
            </button>
          ) : null}
        </FilterControls>
      </form>

      {badRange ? (
        <Failed message="The end of the range must be after its start." />
      ) : list.isPending || (list.isPlaceholderData && list.data.data.length === 0) ? (
        // An empty page shown while the next one loads would say the next one is empty too.
        <Loading what="events" />
      ) : list.isError && !list.data ? (
        <PageFailed error={list.error} cursor={cursor} what="events" onNewest={() => go(filters)} retry={() => void list.refetch()} />
      ) : list.data.data.length === 0 && !isCursored(cursor) ? (
        <Empty>{filtered ? "No events match these filters." : "No events yet. They appear here as payments, refunds and settlements change state."}</Empty>
      ) : (
        <>
          {/* Read once, a failed reading again keeps the page shown, and says so. */}
          <StaleReading q={list} what="events" />
          {list.data.data.length === 0 ? (
            <NothingThisWay cursor={cursor} what="events" filtered={filtered} onNewest={() => go(filters)} />
          ) : (
            <DataTable
              className="cards ev-table"
              busy={list.isPlaceholderData}
              columns={["Created", "Type", "Object", "Event"]}
              rows={list.data.data}
              row={(e) => (
                <tr key={e.id}>
                  <td className="ev-when">{when(e.created_at)}</td>
                  <td className="ev-type">
                    <Link href={`/dashboard/events/${e.id}`}>
                      {/* On a phone's card a long type wraps at its dot (refund.|succeeded), never inside a word. */}
                      <code>
                        {e.type.split(".").map((part, i, all) =>
                          i === all.length - 1 ? (
                            part
                          ) : (
                            <Fragment key={i}>
                              {part}.<wbr />
                            </Fragment>
                          ),
                        )}
                      </code>
                    </Link>
                  </td>
                  <td className="ev-object">
                    <ObjectLink object={e.data.object} />
                  </td>
                  <td className="ev-id">
                    <Link href={`/dashboard/events/${e.id}`} className="muted">
                      {e.id}
                    </Link>
                  </td>
                </tr>
              )}
            />
          )}
          {/* Only on the rows of the filters applied: not while another filter's page is on its way. */}
          <Pager
            ids={list.data.data.map((e) => e.id)}
            hasMore={list.data.hasMore}
            cursor={cursor}
            disabled={navigating || list.isPlaceholderData}
            onChange={(c) => go({ ...filters, after: c.startingAfter, before: c.endingBefore }, true)}
          />
        </>
      )}
    </>
  );
}
