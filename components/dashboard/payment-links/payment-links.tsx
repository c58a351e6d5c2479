"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState, type FormEvent } from "react";
import { ACTIONS, DataTable } from "@/components/ui/data-table";
import { Pager, type Cursor } from "@/components/ui/pager";
import { Badge } from "@/components/ui/status-badge";
import { quoteFee, type FeeBearer, type FeePlan } from "@/server/domain/fees";
import { harareWallTimeToIso } from "@/server/domain/harare-time";
import { CURRENCIES, formatAmount, parseMajorAmount, type Currency } from "@/server/domain/money";
import type { LinkStatus } from "@/server/domain/payment-links";
import type { StaffRole } from "@/server/domain/staff";
import { ConfirmAction, CopyButton, CopyValue, ErrorNote, FieldNote, FilterControls, ListView, RoleNote, formatWhen, roleRefusal, useFormKey, useRole, useSingleFlightMutation } from "../kit";
import { writeFilters } from "../payments/filters";
import { errorMessage, isOutcomeUnknown, paramOf, useTRPC } from "../trpc";

const STATUS_BADGE = {
  active: { tone: "good", label: "Active" },
  unresolved: { tone: "wait", label: "Payment unresolved" },
  paying: { tone: "wait", label: "Payment in progress" },
  used: { tone: "neutral", label: "Used" },
  expired: { tone: "neutral", label: "Expired" },
  deactivated: { tone: "neutral", label: "Deactivated" },
} as const satisfies Record<LinkStatus, { tone: "good" | "wait" | "neutral"; label: string }>;

export function PaymentLinks() {
  const { role, allowed } = useRole("developer");
  return (
    <>
      <section className="panel">
        <h2>Create a payment link</h2>
        {allowed ? <CreateLink /> : <RoleNote needed="developer" role={role} />}
      </section>
      <LinkList canDeactivate={allowed} role={role} />
    </>
  );
}

/** The form's fields that can be wrong, and the names the server gives them (a service's `param`, or the procedure's input). */
const LINK_FIELDS = ["amount", "description", "expires"] as const;
type LinkField = (typeof LINK_FIELDS)[number];
const FIELD_OF: Record<string, LinkField> = { amount: "amount", description: "description", expires_at: "expires", expiresAt: "expires" };

function CreateLink() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [amount, setAmount] = useState("");
  const [currency, setCurrency] = useState<Currency>("USD");
  const [description, setDescription] = useState("");
  const [singleUse, setSingleUse] = useState(false);
  const [expires, setExpires] = useState("");
  // What is wrong with each field, said under it; the first is focused when the form is sent.
  const [problems, setProblems] = useState<Partial<Record<LinkField, string>>>({});
  const [made, setMade] = useState<{ url: string; description: string } | null>(null);
  const { formKey, renew } = useFormKey();
  const ids = { amount: useId(), description: useId(), expires: useId() } satisfies Record<LinkField, string>;
  const create = useSingleFlightMutation(
    trpc.paymentLinks.create.mutationOptions({
      onSuccess: (link) => {
        renew();
        setMade({ url: link.url, description: link.description });
        setAmount("");
        setDescription("");
        setSingleUse(false);
        setExpires("");
        void qc.invalidateQueries({ queryKey: trpc.paymentLinks.pathKey() });
      },
      // A field the server refused is said under it, as the form's own checks are.
      onError: (e) => {
        const field = FIELD_OF[paramOf(e) ?? ""];
        if (field) showProblems({ [field]: errorMessage(e) });
      },
    }),
  );
  const showProblems = (found: Partial<Record<LinkField, string>>) => {
    setProblems(found);
    const first = LINK_FIELDS.find((f) => found[f]);
    if (first) document.getElementById(`${ids[first]}-input`)?.focus();
  };
  // A field's problem goes once it is changed; so does the server's refusal, if it was the field's.
  const edited = (field: LinkField) => {
    if (!problems[field]) return;
    setProblems(({ [field]: _gone, ...rest }) => rest);
    if (FIELD_OF[paramOf(create.error) ?? ""] === field) create.reset();
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found: Partial<Record<LinkField, string>> = {};
    const parsed = parseMajorAmount(amount, currency);
    if (!parsed.ok) found.amount = parsed.message;
    if (!description.trim()) found.description = "Say what the customer pays for.";
    const expiresAt = expires ? harareWallTimeToIso(expires) : undefined;
    if (expires && (!expiresAt || Date.parse(expiresAt) <= Date.now())) found.expires = "The expiry must be in the future.";
    showProblems(found);
    if (!parsed.ok || Object.keys(found).length > 0) return;
    create.mutate({ amount: parsed.amount, currency, description: description.trim(), singleUse, expiresAt: expiresAt ?? undefined, formKey });
  };
  const preview = amount ? parseMajorAmount(amount, currency) : null;
  const settings = useQuery(trpc.settings.get.queryOptions());
  // The server's refusal of one field is said under it, not again below the form.
  const refusedField = FIELD_OF[paramOf(create.error) ?? ""];
  return (
    <>
      {made ? (
        <div className="notice stack" role="status">
          <span>Link for “{made.description}” created:</span>
          <CopyValue value={made.url} label="Copy URL" />
        </div>
      ) : null}
      <form className="form-grid" onSubmit={submit} noValidate>
        <div className="actions">
          <label style={{ flex: "1 1 10rem" }}>
            Amount
            <input
              id={`${ids.amount}-input`}
              inputMode="decimal"
              autoComplete="off"
              value={amount}
              onChange={(e) => (setAmount(e.target.value), edited("amount"))}
              placeholder="25.00"
              aria-describedby={ids.amount}
              aria-invalid={problems.amount ? true : undefined}
              required
            />
          </label>
          <label>
            Currency
            <select value={currency} onChange={(e) => (setCurrency(e.target.value as Currency), edited("amount"))}>
              {CURRENCIES.map((c) => (
                <option key={c}>{c}</option>
              ))}
            </select>
          </label>
        </div>
        <FieldNote id={ids.amount} problem={problems.amount}>
          {preview?.ok ? payHint(preview.amount, currency, settings.data) : "In major units, e.g. 25 or 1,250.50."}
        </FieldNote>
        <label>
          Description (shown to the customer)
          <input
            id={`${ids.description}-input`}
            value={description}
            onChange={(e) => (setDescription(e.target.value), edited("description"))}
            maxLength={500}
            required
            aria-describedby={problems.description ? ids.description : undefined}
            aria-invalid={problems.description ? true : undefined}
          />
          <FieldNote id={ids.description} problem={problems.description} />
        </label>
        <label className="check">
          <input type="checkbox" checked={singleUse} onChange={(e) => setSingleUse(e.target.checked)} /> Single use: the link takes one successful payment
        </label>
        <label>
          Expires (optional, Harare time)
          <input
            id={`${ids.expires}-input`}
            type="datetime-local"
            value={expires}
            onChange={(e) => (setExpires(e.target.value), edited("expires"))}
            aria-describedby={problems.expires ? ids.expires : undefined}
            aria-invalid={problems.expires ? true : undefined}
          />
          <FieldNote id={ids.expires} problem={problems.expires} />
        </label>
        {refusedField ? null : <ErrorNote error={create.error} />}
        <div>
          <button type="submit" className="primary" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create link"}
          </button>
        </div>
      </form>
    </>
  );
}

/** What a customer will pay through the link at today's fee settings: the fee added when the customer bears it. */
function payHint(amount: number, currency: Currency, settings: { fee_plan: FeePlan; fee_bearer: FeeBearer } | undefined): string {
  if (!settings) return `${formatAmount(amount, currency)} before any fee.`;
  const q = quoteFee(settings.fee_plan, settings.fee_bearer, amount, currency);
  return q.fee_bearer === "customer"
    ? `Customers pay ${formatAmount(q.charged_amount, currency)}: ${formatAmount(amount, currency)} and a ${formatAmount(q.fee, currency)} fee, which your settings have the customer bear.`
    : `Customers pay ${formatAmount(q.charged_amount, currency)}; the ${formatAmount(q.fee, currency)} fee is yours.`;
}

function LinkList({ canDeactivate, role }: { canDeactivate: boolean; role: StaffRole | null }) {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const [cursor, setCursor] = useState<Cursor>({});
  const [activeOnly, setActiveOnly] = useState(false);
  const q = useQuery(trpc.paymentLinks.list.queryOptions({ limit: 20, ...cursor, active: activeOnly ? true : undefined }));
  // Read again however it ends: a deactivation whose answer was lost may have been done.
  const deactivate = useSingleFlightMutation(trpc.paymentLinks.deactivate.mutationOptions({ onSettled: () => void qc.invalidateQueries({ queryKey: trpc.paymentLinks.pathKey() }) }));

  const body = (
    <ListView
      q={q}
      what="payment links"
      empty={activeOnly ? "No payment links that are still open." : "No payment links in this environment yet."}
      paging={{ cursor, onNewest: () => setCursor({}), filtered: activeOnly }}
    >
      {(page) => (
          <>
            <DataTable
              columns={["Description", { label: "Amount", num: true }, "Status", "Expires", "Created", ACTIONS]}
              rows={page.data}
              row={(l) => (
                <tr key={l.id}>
                  <td className="cell-wrap">
                    {l.description}
                    <div className="hint">
                      <code>{l.id}</code> ·{" "}
                      <Link href={`/dashboard/payments${writeFilters({ q: l.id })}`} aria-label={`Payments through ${l.description}`}>
                        Payments
                      </Link>
                    </div>
                  </td>
                  <td className="num">
                    {formatAmount(l.amount, l.currency)}
                    {l.charged_amount !== l.amount ? <div className="hint">customers pay {formatAmount(l.charged_amount, l.currency)}</div> : null}
                  </td>
                  <td>
                    <Badge tone={STATUS_BADGE[l.status].tone}>{STATUS_BADGE[l.status].label}</Badge>
                    <div className="hint">{l.single_use ? "Single use" : "Reusable"}</div>
                    {l.status === "unresolved" ? <div className="hint">Resolve its payment</div> : null}
                  </td>
                  <td className="cell-wrap">{formatWhen(l.expires_at, "Never")}</td>
                  <td className="cell-wrap">{formatWhen(l.created_at)}</td>
                  <td>
                    <div className="actions">
                      <CopyButton text={l.url} label="Copy URL" />
                      {!l.active || l.status === "used" || !role ? null : canDeactivate ? (
                        <ConfirmAction
                          label="Deactivate"
                          question="Stop this link taking payments? This cannot be undone."
                          confirmLabel="Deactivate link"
                          pending={deactivate.isPending && deactivate.variables?.id === l.id}
                          onConfirm={() => deactivate.mutate({ id: l.id })}
                        />
                      ) : (
                        <button type="button" disabled title={roleRefusal("developer", role, "Deactivating links")}>
                          Deactivate
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              )}
            />
            <Pager ids={page.data.map((l) => l.id)} hasMore={page.hasMore} cursor={cursor} onChange={setCursor} />
          </>
      )}
    </ListView>
  );

  return (
    <section aria-labelledby="links-h">
      <div className="section-head">
        <h2 id="links-h">Links</h2>
        <FilterControls>
          <label className="hint">
            <input
              type="checkbox"
              checked={activeOnly}
              onChange={(e) => {
                setActiveOnly(e.target.checked);
                setCursor({});
              }}
            />{" "}
            Hide deactivated
          </label>
        </FilterControls>
      </div>
      {isOutcomeUnknown(deactivate.error) ? (
        <p className="attention" role="alert">
          The deactivation got no answer, or an error from Mari: the link may have been deactivated, or not. The list was reloaded and shows which; deactivate it again if it is still active.
        </p>
      ) : (
        <ErrorNote error={deactivate.error} prefix="Could not deactivate: " />
      )}
      {body}
    </section>
  );
}
