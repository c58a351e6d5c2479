"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState } from "react";
import { STAFF_ROLES, type StaffRole } from "@/server/domain/staff";
import { ACTIONS, DataTable } from "@/components/ui/data-table";
import { Empty, Failed, Loading } from "@/components/ui/states";
import { ConfirmAction, Confirmation, ConfirmPasswordField, CopyValue, ErrorNote, SecretOnce, confirmPasswordOf, formatWhen, useFormKey, useRole, useSingleFlightMutation, useWhenChanged } from "../kit";
import { errorMessage, passwordRefusalOf, serviceCodeOf, useTRPC } from "../trpc";

const ROLE_HELP: Record<StaffRole, string> = {
  admin: "everything, including the team, settings and payouts",
  developer: "API keys, webhook endpoints, replays and refunds",
  viewer: "reads everything, changes nothing but their own password",
};

export function TeamPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const team = useQuery(trpc.staff.list.queryOptions());
  const { allowed: isAdmin } = useRole("admin");
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.staff.pathKey() });
  // A one-time password to hand over: a new member's, or one an admin reset.
  const [handover, setHandover] = useState<HandoverProps | null>(null);
  const addKey = useFormKey();
  const resetKey = useFormKey();
  // What the last role change, removal or reset above the table did (a failed add is told beside its form).
  const [news, setNews] = useState<{ text: string; failed: boolean } | null>(null);
  const emailOf = (id: string) => team.data?.find((s) => s.id === id)?.email;
  // "someone@… is", or "They are" once the row is gone.
  const theyAre = (id: string) => {
    const email = emailOf(id);
    return email ? `${email} is` : "They are";
  };
  // Refused because another admin removed them meanwhile: said so, and the table read again. A
  // refused password is said in the question, which asks again (refusedFor).
  const failed = (e: unknown, v: { id: string }) => {
    if (passwordRefusalOf(e)) return;
    const gone = serviceCodeOf(e) === "resource_missing";
    setNews({ failed: true, text: gone ? `${theyAre(v.id)} no longer on the team: someone removed them meanwhile.` : errorMessage(e) });
    if (gone) void refresh();
  };
  const add = useSingleFlightMutation(trpc.staff.add.mutationOptions({ onSuccess: (r) => (addKey.renew(), setHandover({ ...r, reset: false }), refresh()) }));
  const reset = useSingleFlightMutation(
    trpc.staff.resetPassword.mutationOptions({ onMutate: () => setNews(null), onSuccess: (r) => (resetKey.renew(), setHandover({ ...r, reset: true })), onError: failed }),
  );
  const changeRole = useSingleFlightMutation(
    trpc.staff.changeRole.mutationOptions({
      onMutate: () => setNews(null),
      onSuccess: (_r, v) => {
        const who = emailOf(v.id);
        setNews({ failed: false, text: `${who ? `The role of ${who}` : "Their role"} is now ${v.role}. It applies from their next page.` });
        void refresh();
      },
      onError: failed,
    }),
  );
  const remove = useSingleFlightMutation(
    trpc.staff.remove.mutationOptions({
      onMutate: () => setNews(null),
      onSuccess: (_r, v) => {
        setNews({ failed: false, text: `${theyAre(v.id)} removed from the team, and signed out.` });
        void refresh();
      },
      onError: failed,
    }),
  );

  return (
    <>
      <h1>Team</h1>
      <p className="muted">Roles: {STAFF_ROLES.map((r) => `${r} (${ROLE_HELP[r]})`).join("; ")}.</p>
      {news?.failed ? <Failed message={news.text} /> : null}
      {news && !news.failed ? (
        <p className="notice" role="status">
          {news.text}
        </p>
      ) : null}
      {handover?.reset ? <Handover {...handover} onDone={() => setHandover(null)} /> : null}
      {team.isPending ? (
        <Loading what="the team" />
      ) : team.isError ? (
        <Failed message={errorMessage(team.error)} retry={() => void team.refetch()} />
      ) : team.data.length === 0 ? (
        <Empty>No one can sign in for this merchant yet.</Empty>
      ) : (
        <DataTable
          columns={["E-mail", "Role", "Added", ACTIONS]}
          rows={team.data}
          row={(s) => {
            const roleRefused = refusedFor(changeRole, s.id);
            return (
              <tr key={s.id}>
                <td className="cell-wrap cell-text">
                  {s.email} {s.you ? <span className="muted">(you)</span> : null}
                </td>
                <td>
                  {isAdmin && !s.you ? (
                    <RoleChoice
                      email={s.email}
                      role={s.role}
                      pending={changeRole.isPending}
                      refused={roleRefused?.asked.role ?? null}
                      refusal={roleRefused?.text ?? null}
                      onChange={(role, confirmPassword) => changeRole.mutate({ id: s.id, role, confirmPassword })}
                    />
                  ) : (
                    s.role
                  )}
                </td>
                <td>{formatWhen(s.createdAt)}</td>
                <td>
                  {isAdmin && !s.you ? (
                    <ConfirmAction
                      label="Reset password"
                      question={`Give ${s.email} a new password? Their current one stops working and they are signed out at once. Your password:`}
                      confirmLabel="Reset it"
                      askPassword
                      pending={reset.isPending && reset.variables?.id === s.id}
                      refused={refusedFor(reset, s.id)?.text}
                      onConfirm={(confirmPassword) => (setHandover(null), reset.mutate({ id: s.id, confirmPassword, formKey: resetKey.formKey }))}
                    />
                  ) : null}{" "}
                  {isAdmin && !s.you ? (
                    <ConfirmAction
                      label="Remove"
                      question={`Remove ${s.email}? They are signed out at once. Your password:`}
                      confirmLabel="Remove them"
                      askPassword
                      pending={remove.isPending && remove.variables?.id === s.id}
                      refused={refusedFor(remove, s.id)?.text}
                      onConfirm={(confirmPassword) => remove.mutate({ id: s.id, confirmPassword })}
                    />
                  ) : null}
                </td>
              </tr>
            );
          }}
        />
      )}

      <h2>Add someone</h2>
      {isAdmin ? (
        <form
          className="panel form-grid"
          onSubmit={(e) => {
            e.preventDefault();
            const formElement = e.currentTarget;
            const form = new FormData(formElement);
            setHandover(null);
            add.mutate(
              { email: String(form.get("email")), role: String(form.get("role")) as StaffRole, confirmPassword: confirmPasswordOf(formElement), formKey: addKey.formKey },
              // The admin's password does not stay in the page.
              { onSuccess: () => formElement.reset() },
            );
          }}
        >
          <label>
            E-mail
            <input name="email" type="email" required />
          </label>
          <label>
            Role
            <select name="role" defaultValue="viewer">
              {STAFF_ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <ConfirmPasswordField refused={add.error} />
          <button type="submit" className="primary" disabled={add.isPending}>
            {add.isPending ? "Adding…" : "Add"}
          </button>
          <ErrorNote error={add.error} passwordField />
        </form>
      ) : (
        <p className="muted">Only an admin can add people or change roles.</p>
      )}
      {handover && !handover.reset ? <Handover {...handover} onDone={() => setHandover(null)} /> : null}
    </>
  );
}

type HandoverProps = { business: string; email: string; password: string; reset: boolean };

/** The last try of a row's action, when its password was refused: which row, what it asked for, and why. */
function refusedFor<V extends { id: string }>(m: { variables?: V; error: unknown }, id: string): { asked: V; text: string } | null {
  const text = passwordRefusalOf(m.error);
  return text && m.variables?.id === id ? { asked: m.variables, text } : null;
}

/**
 * A password Mari made, shown once beside what made it, with the sign-in link that fills in the
 * business (shown only after a click in this browser, so the page's address is at hand). Leaving
 * before it is put away asks first: once gone, only another reset gives them a way in.
 */
function Handover({ business, email, password, reset, onDone }: HandoverProps & { onDone: () => void }) {
  const link = new URL(`/dashboard/sign-in?${new URLSearchParams({ business })}`, window.location.href).toString();
  return (
    <SecretOnce
      title={reset ? `A new password for ${email}` : `${email} is on the team`}
      secret={password}
      warning="It is shown once: hand it over safely now, with the sign-in link, and ask them to change it on their account page."
      copyLabel="Copy password"
      doneLabel="I have handed it over"
      onDone={onDone}
    >
      <p>
        <strong>{email}</strong> can sign in to the business <strong>{business}</strong> with{" "}
        {reset ? "this new password (their old one no longer works)" : "this password"}, through this link, which fills in the business:
      </p>
      <CopyValue value={link} label="Copy sign-in link" />
    </SecretOnce>
  );
}

/**
 * A role is chosen, then confirmed: what someone may do changes only on a second, deliberate
 * click. A refused password asks again for the role it was refused for.
 */
function RoleChoice({
  email,
  role,
  pending,
  refused,
  refusal,
  onChange,
}: {
  email: string;
  role: StaffRole;
  pending: boolean;
  /** The role whose change was refused for its password, and why: asked again. */
  refused: StaffRole | null;
  refusal: string | null;
  onChange: (role: StaffRole, confirmPassword?: string) => void;
}) {
  const [proposed, setProposed] = useState<StaffRole | null>(null);
  // A refusal that arrives asks again for its role, saying why; not when a role is chosen afresh.
  const [askedAgain, setAskedAgain] = useState(false);
  useWhenChanged(refusal, (r) => {
    if (r && refused) setProposed(refused);
    setAskedAgain(Boolean(r && refused));
  });
  const select = useRef<HTMLSelectElement>(null);
  return (
    <>
      <select
        ref={select}
        aria-label={`Role of ${email}`}
        value={proposed ?? role}
        disabled={pending}
        onChange={(e) => {
          setProposed(e.target.value === role ? null : (e.target.value as StaffRole));
          setAskedAgain(false);
        }}
      >
        {STAFF_ROLES.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      {proposed ? (
        <>
          {" "}
          <Confirmation
            label={`Change the role of ${email}`}
            question={`Make ${email} ${proposed === "admin" ? "an" : "a"} ${proposed} (${ROLE_HELP[proposed]})? Your password:`}
            confirmLabel="Change role"
            tone="primary"
            // Who holds the team changes: it asks for the admin's own password.
            askPassword
            refusal={askedAgain ? refusal : null}
            onConfirm={(confirmPassword) => {
              setProposed(null);
              onChange(proposed, confirmPassword);
            }}
            onCancel={() => {
              setProposed(null);
              // The focus goes back to the choice it asked about, not to the page's top.
              select.current?.focus();
            }}
          />
        </>
      ) : null}
    </>
  );
}
