"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { DataTable } from "@/components/ui/data-table";
import { Pager, type Cursor } from "@/components/ui/pager";
import { Badge } from "@/components/ui/status-badge";
import { SECURITY_ACTION_TEXT, type SecurityAction } from "@/server/domain/security-log";
import { formatWhen, ListView, RoleNote, useRole } from "../kit";
import { useTRPC } from "../trpc";
import "./security.css";

/** One value of an entry's detail as words: a list joined, a change as "from → to". */
function shown(value: unknown): string {
  if (Array.isArray(value)) return value.map(shown).join(", ");
  if (value !== null && typeof value === "object" && "from" in value && "to" in value) return `${shown(value.from)} → ${shown(value.to)}`;
  if (value === "*") return "all events";
  return value === null || value === undefined ? "none" : String(value);
}

/** An entry's detail, one line per field ("enabled events: all events → payment.succeeded"). */
export function detailLines(detail: Record<string, unknown>): string[] {
  return Object.entries(detail).map(([field, value]) => `${field.replaceAll("_", " ")}: ${shown(value)}`);
}

/** /dashboard/security: who signed in, and who changed the team, keys, endpoints and settings. */
export function SecurityLog() {
  const { role, allowed } = useRole("admin");
  // Nothing while the role loads; if it could not be read, RoleNote says so.
  if (!allowed) return <RoleNote needed="admin" role={role} />;
  return <Entries />;
}

function Entries() {
  const trpc = useTRPC();
  const [cursor, setCursor] = useState<Cursor>({});
  const q = useQuery(trpc.security.list.queryOptions({ limit: 25, ...cursor }));
  return (
    <ListView q={q} what="security log entries" empty="Nothing recorded yet." paging={{ cursor, onNewest: () => setCursor({}) }}>
      {(page) => (
        <>
          <DataTable
            className="security-log"
            columns={["When", "Who", "What", "On", "Details"]}
            rows={page.data}
            row={(e) => (
              <tr key={e.id}>
                <td>{formatWhen(e.createdAt)}</td>
                <td>
                  {e.actor.label}
                  {e.clientAddress ? <div className="hint">from {e.clientAddress}</div> : null}
                </td>
                <td>
                  {e.action === "staff.sign_in_failed" ? <Badge tone="bad">{SECURITY_ACTION_TEXT[e.action]}</Badge> : SECURITY_ACTION_TEXT[e.action as SecurityAction]}
                  {e.livemode === null ? null : <div className="hint">{e.livemode ? "live" : "test"} mode</div>}
                </td>
                <td>{e.target && e.target.label !== e.actor.label ? e.target.label : null}</td>
                <td>
                  {detailLines(e.detail).map((line) => (
                    <div key={line}>{line}</div>
                  ))}
                </td>
              </tr>
            )}
          />
          <Pager ids={page.data.map((e) => e.id)} hasMore={page.hasMore} cursor={cursor} onChange={setCursor} />
        </>
      )}
    </ListView>
  );
}
