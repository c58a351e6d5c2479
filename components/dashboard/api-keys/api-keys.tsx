"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { ACTIONS, DataTable } from "@/components/ui/data-table";
import { Badge } from "@/components/ui/status-badge";
import { Pager, type Cursor } from "@/components/ui/pager";
import { Failed, Loading } from "@/components/ui/states";
import type { KeyKind, Scope } from "@/server/domain/api-keys";
import type { StaffRole } from "@/server/domain/staff";
import { ConfirmAction, ConfirmPasswordField, ErrorNote, ListView, Problem, RoleNote, SecretOnce, confirmPasswordOf, forgetConfirmPassword, formatWhen, roleRefusal, useFormKey, useLeaveGuard, useRole, useSingleFlightMutation } from "../kit";
import { errorMessage, isOutcomeUnknown, useTRPC } from "../trpc";

export function ApiKeys() {
  const { role, allowed } = useRole("developer");
  const [created, setCreated] = useState<{ secret: string; prefix: string } | null>(null);
  return (
    <>
      {created ? (
        <SecretOnce
          title="Your new key"
          secret={created.secret}
          warning="Copy it now and keep it somewhere safe: it is shown only this once. If it is lost, revoke it and create another."
          copyLabel="Copy key"
          onDone={() => setCreated(null)}
        />
      ) : null}
      <section className="panel">
        <h2>Create a key</h2>
        {allowed ? <CreateKey onCreated={(secret, prefix) => setCreated({ secret, prefix })} /> : <RoleNote needed="developer" role={role} />}
      </section>
      <KeyList canRevoke={allowed} role={role} />
    </>
  );
}

function CreateKey({ onCreated }: { onCreated: (secret: string, prefix: string) => void }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [kind, setKind] = useState<KeyKind>("secret");
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [name, setName] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const available = useQuery(trpc.apiKeys.scopes.queryOptions(undefined, { staleTime: Infinity }));
  // A live key is a live secret: it asks for the member's password again.
  const { livemode } = useRole("developer");
  const { formKey, renew } = useFormKey();
  const create = useSingleFlightMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: (r) => {
        renew();
        onCreated(r.secret, r.key.display_prefix);
        setName("");
        setScopes([]);
        void qc.invalidateQueries({ queryKey: trpc.apiKeys.pathKey() });
      },
    }),
  );
  useLeaveGuard(create.isPending, "Leave this page? Your key is being made: its secret, shown only once, would not be shown to you.");
  const submit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    if (kind === "restricted" && scopes.length === 0) {
      setProblem("Choose at least one scope for a restricted key.");
      return;
    }
    setProblem(null);
    const form = e.currentTarget;
    create.mutate(
      { kind, scopes: kind === "restricted" ? scopes : [], name: name.trim() || undefined, confirmPassword: livemode ? confirmPasswordOf(form) : undefined, formKey },
      { onSuccess: () => forgetConfirmPassword(form) },
    );
  };
  const toggle = (s: Scope, on: boolean) => setScopes((cur) => (on ? [...cur, s] : cur.filter((x) => x !== s)));
  return (
    <form className="form-grid" onSubmit={submit} noValidate>
      <fieldset className="choices bare inline">
        <legend>Kind</legend>
        <label>
          <input type="radio" name="kind" value="secret" checked={kind === "secret"} onChange={() => setKind("secret")} /> Full secret key (every scope)
        </label>
        <label>
          <input type="radio" name="kind" value="restricted" checked={kind === "restricted"} onChange={() => setKind("restricted")} /> Restricted key
        </label>
      </fieldset>
      {kind === "restricted" ? (
        <fieldset className="choices columns">
          <legend>Scopes</legend>
          {available.isPending ? <Loading what="scopes" /> : null}
          {available.isError ? <Failed message={errorMessage(available.error)} retry={() => void available.refetch()} /> : null}
          {(available.data ?? []).map((s) => (
            <label key={s}>
              <input type="checkbox" checked={scopes.includes(s)} onChange={(e) => toggle(s, e.target.checked)} /> <code>{s}</code>
            </label>
          ))}
        </fieldset>
      ) : null}
      <label>
        Name (optional)
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={100} placeholder="e.g. till server" />
      </label>
      {livemode ? <ConfirmPasswordField refused={create.error} /> : null}
      <Problem text={problem} />
      <ErrorNote error={create.error} passwordField={Boolean(livemode)} />
      <div>
        <button type="submit" className="primary" disabled={create.isPending}>
          {create.isPending ? "Creating…" : "Create key"}
        </button>
      </div>
    </form>
  );
}

function KeyList({ canRevoke, role }: { canRevoke: boolean; role: StaffRole | null }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [cursor, setCursor] = useState<Cursor>({});
  const q = useQuery(trpc.apiKeys.list.queryOptions({ limit: 25, ...cursor }));
  // Read again however it ends: a revoke whose answer was lost may have been done.
  const revoke = useSingleFlightMutation(trpc.apiKeys.revoke.mutationOptions({ onSettled: () => void qc.invalidateQueries({ queryKey: trpc.apiKeys.pathKey() }) }));

  const body = (
    <ListView q={q} what="API keys" empty={"No keys in this environment yet."} paging={{ cursor, onNewest: () => setCursor({}) }}>
      {(page) => (
          <>
            <DataTable
              columns={["Key", "Kind", "Scopes", "Created", "Last used", "State", ACTIONS]}
              rows={page.data}
              row={(k) => (
                <tr key={k.id}>
                  <td className="cell-wrap cell-text">
                    <code>{k.display_prefix}</code>
                    {k.name ? <div className="hint">{k.name}</div> : null}
                  </td>
                  <td>{k.kind === "secret" ? "Full" : "Restricted"}</td>
                  <td className="cell-wrap">{k.kind === "secret" ? <span className="muted">All</span> : k.scopes.join(", ")}</td>
                  <td className="cell-wrap">{formatWhen(k.created_at)}</td>
                  <td className="cell-wrap">{formatWhen(k.last_used_at, "Never")}</td>
                  <td className="cell-wrap">
                    {k.revoked_at ? (
                      <>
                        <Badge tone="neutral">Revoked</Badge>
                        <div className="muted">{formatWhen(k.revoked_at)}</div>
                      </>
                    ) : (
                      <Badge tone="good">Active</Badge>
                    )}
                  </td>
                  <td>
                    {k.revoked_at || !role ? null : canRevoke ? (
                      <ConfirmAction
                        label="Revoke"
                        question={`Revoke ${k.display_prefix}? Requests using it are refused within seconds; this cannot be undone.`}
                        confirmLabel="Revoke key"
                        pending={revoke.isPending && revoke.variables?.id === k.id}
                        onConfirm={() => revoke.mutate({ id: k.id })}
                      />
                    ) : (
                      <button type="button" disabled title={roleRefusal("developer", role, "Revoking keys")}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              )}
            />
            <Pager ids={page.data.map((k) => k.id)} hasMore={page.hasMore} cursor={cursor} onChange={setCursor} />
          </>
      )}
    </ListView>
  );

  return (
    <section aria-labelledby="keys-h">
      <h2 id="keys-h">Keys</h2>
      {isOutcomeUnknown(revoke.error) ? (
        <p className="attention" role="alert">
          The revoke got no answer, or an error from Mari: the key may have been revoked, or not. The list was reloaded and shows which; revoke it again if it is still active.
        </p>
      ) : (
        <ErrorNote error={revoke.error} prefix="Could not revoke: " />
      )}
      {body}
    </section>
  );
}
