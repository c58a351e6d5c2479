"use client";

import { useMutation, useQuery, type DefaultError, type MutateOptions, type UseMutationOptions, type UseMutationResult, type UseQueryResult } from "@tanstack/react-query";
import Link from "next/link";
import { useCallback, useEffect, useId, useRef, useState, useSyncExternalStore, type KeyboardEvent, type ReactNode, type RefObject } from "react";
import { formatAmount, type Currency } from "@/server/domain/money";
import { modeName, roleAllows, type StaffRole } from "@/server/domain/staff";
import { CURSOR_PARAMS, isCursored, type Cursor } from "@/components/ui/pager";
import { Empty, Failed, Loading } from "@/components/ui/states";
import { useHydrated } from "@/components/ui/use-hydrated";
import { errorMessage, isCursorMissing, passwordRefusalOf, usePageLivemode, useTRPC } from "./trpc";

/**
 * Small pieces every dashboard page shares. Times are shown on the merchants' business clock
 * (Harare), the day the overview counts by, to the second (event logs need it), with the zone's
 * name, since staff elsewhere would otherwise read them as their own: "CAT", as customers' receipts
 * name it (Intl would write "GMT+2"; Harare keeps no summer time, so it is always CAT).
 */
const WHEN = new Intl.DateTimeFormat("en-GB", { dateStyle: "medium", timeStyle: "medium", timeZone: "Africa/Harare" });

export function formatWhen(iso: string | null | undefined, none = "—"): string {
  return iso ? `${WHEN.format(new Date(iso))} CAT` : none;
}

/** From one time to another, the date said once when both fall on the same day. */
export function formatWhenRange(from: string, to: string): string {
  return `${WHEN.formatRange(new Date(from), new Date(to))} CAT`;
}

/** The signed-in staff member's role, and whether it reaches `needed` (false while loading). */
export function useRole(needed: StaffRole): { role: StaffRole | null; allowed: boolean; livemode: boolean | null } {
  const trpc = useTRPC();
  const me = useQuery(trpc.session.me.queryOptions());
  const role = me.data?.role ?? null;
  return { role, allowed: role !== null && roleAllows(role, needed), livemode: me.data?.livemode ?? null };
}

/**
 * Why a role cannot do what needs `needed`: the one sentence every page uses, naming what is
 * refused when `doing` says it ("Revoking keys needs the developer role or above; …").
 */
export function roleRefusal(needed: StaffRole, role: StaffRole, doing?: string): string {
  const reach = `the ${needed} role${needed === "admin" ? "" : " or above"}`;
  return `${doing ? `${doing} needs` : "Needs"} ${reach}; you are signed in as ${role}.`;
}

/**
 * Why a control is off for this role, next to the control, not only in a tooltip (`inline`: in a
 * line of its own, such as a page's heading). Nothing while the role is loading; RoleUnread if it
 * could not be read.
 */
export function RoleNote({ needed, role, doing, inline }: { needed: StaffRole; role: StaffRole | null; doing?: string; inline?: boolean }) {
  if (!role) return <RoleUnread />;
  const sentence = roleRefusal(needed, role, doing);
  return inline ? <span className="muted">{sentence}</span> : <p className="muted role-note">{sentence}</p>;
}

/**
 * The signed-in staff member's role could not be read (useRole has none): what it would allow is
 * not shown, and this says so, with a retry, rather than leave the place empty. Nothing while it loads.
 */
export function RoleUnread() {
  const trpc = useTRPC();
  const me = useQuery(trpc.session.me.queryOptions());
  if (!me.isError || me.data) return null;
  return <Failed message={`Your role could not be read, so the actions it allows are not shown. ${errorMessage(me.error)}`} retry={() => void me.refetch()} />;
}

/**
 * A page's reading that failed while an earlier one is still shown (a refetch: a network blip, the
 * mode switched in another tab). The page stays as last read, and keeps what is typed or shown
 * once in it (a half-typed refund, a new secret); this says it may be out of date, with a retry.
 */
export function StaleReading({ q, what }: { q: Pick<UseQueryResult<unknown, unknown>, "isError" | "error" | "refetch">; what: string }) {
  if (!q.isError) return null;
  return <Failed message={`Showing ${what} as last read: it could not be read again. ${errorMessage(q.error)}`} retry={() => void q.refetch()} />;
}

/**
 * An action this role may not take: its button, off, with the reason beside it and tied to it,
 * so a screen reader hears why. Nothing while the role is loading, so no button flips.
 */
export function RefusedAction({ label, needed, role, doing, tone }: { label: string; needed: StaffRole; role: StaffRole | null; doing: string; tone?: "primary" | "danger" }) {
  const id = useId();
  if (!role) return null;
  return (
    <p className="muted role-note">
      <button type="button" className={tone} disabled aria-describedby={id}>
        {label}
      </button>{" "}
      <span id={id}>{roleRefusal(needed, role, doing)}</span>
    </p>
  );
}

/** The lists whose filters and page live in the query string, which their detail pages lead back to. */
type ListWithView = "payments" | "events";
const viewKey = (list: ListWithView) => `mari.dashboard.${list}.view`;
const noSubscription = () => () => {};

/** Keeps the list's query string (filters and page) for this tab, for `BackToList`, with the mode it was shown in. */
export function useRememberListView(list: ListWithView, query: string): void {
  const livemode = usePageLivemode();
  useEffect(() => {
    try {
      sessionStorage.setItem(viewKey(list), JSON.stringify({ query, livemode }));
    } catch {
      // Storage refused (private mode, quota): the back link goes to the unfiltered list.
    }
  }, [list, query, livemode]);
}

/**
 * The list's query string as this tab last showed it. Its page is an object of the mode it was
 * shown in: after the test/live switch its filters still apply, but its page would name an object
 * the other mode does not have, so the list starts again at its newest page.
 */
function rememberedView(list: ListWithView, livemode: boolean): string {
  try {
    const saved = JSON.parse(sessionStorage.getItem(viewKey(list)) ?? "null") as { query?: unknown; livemode?: unknown } | null;
    if (typeof saved?.query !== "string") return "";
    if (saved.livemode === livemode) return saved.query;
    const params = new URLSearchParams(saved.query);
    for (const param of CURSOR_PARAMS) params.delete(param);
    return params.toString();
  } catch {
    // Storage refused, or a value this code did not write: the unfiltered list.
    return "";
  }
}

/** "← Payments": back to the list as this tab last showed it, filters and page kept (the page only in the same mode). */
export function BackToList({ list, children }: { list: ListWithView; children: ReactNode }) {
  const livemode = usePageLivemode();
  const query = useSyncExternalStore(noSubscription, () => rememberedView(list, livemode), () => "");
  return (
    <p>
      <Link href={query ? `/dashboard/${list}?${query}` : `/dashboard/${list}`}>{children}</Link>
    </p>
  );
}

/**
 * A page of Payments or Events that failed. One whose cursor (the `after` or `before` of its
 * address) names no object of this mode (an address kept from the other side of the test/live
 * switch: the browser's Back, a bookmark, a link someone shared; or edited by hand) cannot be
 * helped by asking again, so it leads to the newest page; any other failure offers a retry.
 */
export function PageFailed({ error, cursor, what, onNewest, retry }: { error: unknown; cursor: Cursor; what: string; onNewest: () => void; retry: () => void }) {
  const livemode = usePageLivemode();
  if (!isCursorMissing(error)) return <Failed message={errorMessage(error)} retry={retry} />;
  return (
    <div className="warning" role="alert">
      This page of {what} starts from {cursor.startingAfter ?? cursor.endingBefore}, which is not in {modeName(livemode)} data (it may be from{" "}
      {modeName(!livemode)} mode).{" "}
      <button type="button" className="link-button" onClick={onNewest}>
        Go to the newest {what}
      </button>
    </div>
  );
}

/**
 * A list's page reached by a cursor that has no rows: those past the cursor have left the filters
 * since the page before was read (payments awaiting their customer expired, links deactivated under
 * "Hide deactivated"), or an old address was opened. Not the list's empty state, which would say
 * nothing matches at all: it says there is nothing more this way, and leads to the newest page (on
 * Payments and Events the pager beside it also leads back).
 */
export function NothingThisWay({ cursor, what, filtered, onNewest }: { cursor: Cursor; what: string; filtered: boolean; onNewest: () => void }) {
  return (
    <Empty>
      No {cursor.endingBefore ? "newer" : "older"} {what}
      {filtered ? " match these filters" : ""}.{" "}
      <button type="button" className="link-button" onClick={onNewest}>
        Go to the newest {what}
      </button>
    </Empty>
  );
}

/**
 * Copies `text`. Where the clipboard is refused (plain http, an old browser), it selects the text
 * shown in `select` for Ctrl+C instead, and says so.
 */
export function CopyButton({ text, label = "Copy", select }: { text: string; label?: string; select?: RefObject<HTMLElement | null> }) {
  const [state, setState] = useState<"idle" | "copied" | "selected" | "failed">("idle");
  const copy = async () => {
    let next: typeof state = "copied";
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const shown = select?.current;
      if (shown) selectContents(shown);
      next = shown ? "selected" : "failed";
    }
    setState(next);
    // The way to copy by hand stays up long enough to read.
    window.setTimeout(() => setState("idle"), next === "copied" ? 2_000 : 6_000);
  };
  return (
    <button type="button" onClick={() => void copy()} aria-live="polite">
      {state === "copied" ? "Copied" : state === "selected" ? "Selected: press Ctrl+C (⌘C)" : state === "failed" ? "Copy failed: select the text" : label}
    </button>
  );
}

function selectContents(el: HTMLElement): void {
  const range = document.createRange();
  range.selectNodeContents(el);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
}

/** A value to paste elsewhere (a key, a URL), its copy button beside it; a click on it selects it. */
export function CopyValue({ value, label, testId }: { value: string; label: string; testId?: string }) {
  const shown = useRef<HTMLElement>(null);
  return (
    <div className="copy-row">
      <code className="secret" data-testid={testId} ref={shown} onClick={(e) => selectContents(e.currentTarget)}>
        {value}
      </code>
      <CopyButton text={value} label={label} select={shown} />
    </div>
  );
}

/**
 * While `active`, leaving the page asks first: a link within the dashboard (Next moves between its
 * pages without unloading, so the browser would not ask) with `question`, and a reload, a closed
 * tab or another address with the browser's own "Leave site?". For what leaving would lose for
 * good: a secret shown once, or one about to be. Links inside `beside` (the secret's own panel,
 * read with it in sight) do not ask.
 */
export function useLeaveGuard(active: boolean, question: string, beside?: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    if (!active) return;
    let agreed = false;
    const unload = (e: BeforeUnloadEvent) => {
      if (!agreed) e.preventDefault();
    };
    const click = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const link = e.target instanceof Element ? e.target.closest("a[href]") : null;
      if (!(link instanceof HTMLAnchorElement) || (link.target && link.target !== "_self") || link.hasAttribute("download")) return;
      if (beside?.current?.contains(link)) return;
      const to = new URL(link.href, window.location.href);
      if (to.origin !== window.location.origin || (to.pathname === window.location.pathname && to.search === window.location.search)) return;
      if (window.confirm(question)) agreed = true;
      else {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    window.addEventListener("beforeunload", unload);
    // Before React's own listener on the page's root, where Next's links navigate.
    document.addEventListener("click", click, true);
    return () => {
      window.removeEventListener("beforeunload", unload);
      document.removeEventListener("click", click, true);
    };
  }, [active, question, beside]);
}

/**
 * A secret shown the one time it exists in the clear (an API key, a webhook signing secret): the
 * warning, the secret with a copy button, what to do with it, and the button that hides it.
 * Leaving the page before that button asks first.
 */
export function SecretOnce({
  title,
  secret,
  warning,
  copyLabel,
  doneLabel = "I have stored it",
  onDone,
  children,
}: {
  title: string;
  secret: string;
  warning: string;
  copyLabel: string;
  doneLabel?: string;
  onDone: () => void;
  children?: ReactNode;
}) {
  const id = useId();
  const panel = useRef<HTMLElement>(null);
  useLeaveGuard(true, "Leave this page? The secret shown here is shown only this once: it cannot be shown again once you leave.", panel);
  // Focused when it appears, so a screen reader reads its title and the keyboard starts from it.
  const shown = useCallback((el: HTMLElement | null) => {
    panel.current = el;
    el?.focus();
  }, []);
  return (
    <section className="panel notice stack" aria-labelledby={id} ref={shown} tabIndex={-1}>
      <h2 id={id}>{title}</h2>
      <p className="warning">{warning}</p>
      <CopyValue value={secret} label={copyLabel} testId="new-secret" />
      {children}
      <div>
        <button type="button" onClick={onDone}>
          {doneLabel}
        </button>
      </div>
    </section>
  );
}

/**
 * useMutation whose `mutate` ignores a call while the last one is on its way. A button's
 * `disabled={m.isPending}` alone lets a double click through: it greys out only when the page
 * renders again, and the second click can land first (two keys made, a secret rolled twice).
 */
export function useSingleFlightMutation<TData = unknown, TError = DefaultError, TVariables = void, TOnMutateResult = unknown>(
  options: UseMutationOptions<TData, TError, TVariables, TOnMutateResult>,
): UseMutationResult<TData, TError, TVariables, TOnMutateResult> {
  const m = useMutation(options);
  const flying = useRef(false);
  const { mutate: send } = m;
  const mutate = useCallback(
    (variables: TVariables, opts?: MutateOptions<TData, TError, TVariables, TOnMutateResult>) => {
      if (flying.current) return;
      flying.current = true;
      const settle: MutateOptions<TData, TError, TVariables, TOnMutateResult>["onSettled"] = (...settled) => {
        flying.current = false;
        opts?.onSettled?.(...settled);
      };
      send(...([variables, { ...opts, onSettled: settle }] as unknown as Parameters<typeof send>));
    },
    [send],
  ) as typeof send;
  return { ...m, mutate };
}

/**
 * A destructive action asks first, in place: the question and a second button replace the first
 * one, so nothing happens on a single stray click. Cancel or Escape puts the question away.
 */
export function ConfirmAction({
  label,
  question,
  confirmLabel,
  onConfirm,
  pending,
  tone = "danger",
  disabled,
  askPassword,
  refused,
}: {
  label: string;
  question: ReactNode;
  confirmLabel: string;
  /** Given the password typed when `askPassword`. */
  onConfirm: (password?: string) => void;
  pending?: boolean;
  tone?: "danger" | "primary";
  disabled?: boolean;
  /** The action needs the member's own password again (ConfirmPasswordField). */
  askPassword?: boolean;
  /** Why the password of this action's last try was refused (passwordRefusalOf): the question is asked again, saying so. */
  refused?: string | null;
}) {
  const [asking, setAsking] = useState(false);
  // Cancel puts the question away and gives the focus back to the button that asked it.
  const [putAway, setPutAway] = useState(false);
  // A refusal that arrives asks again, saying why; one already seen does not reopen a question put
  // away, nor is it said when the question is asked afresh.
  const [askedAgain, setAskedAgain] = useState(false);
  useWhenChanged(refused, (r) => {
    if (r) setAsking(true);
    setAskedAgain(Boolean(r));
  });
  if (!asking) {
    return (
      <button type="button" className={tone} disabled={disabled || pending} onClick={() => (setAsking(true), setAskedAgain(false))} autoFocus={putAway}>
        {pending ? "Working…" : label}
      </button>
    );
  }
  return (
    <Confirmation
      label={label}
      question={question}
      confirmLabel={confirmLabel}
      tone={tone}
      autoFocus
      askPassword={askPassword}
      refusal={askedAgain ? refused : null}
      onConfirm={(password) => {
        setAsking(false);
        onConfirm(password);
      }}
      onCancel={() => {
        setAsking(false);
        setPutAway(true);
      }}
    />
  );
}

/**
 * For the keydown handler of a question asked in place: Escape puts it away, as its Cancel does.
 * Not while `busy` (its answer on the way), when Cancel is off too.
 */
export function cancelOnEscape(e: KeyboardEvent, cancel: () => void, busy = false): void {
  if (busy || e.key !== "Escape" || e.defaultPrevented) return;
  e.preventDefault();
  cancel();
}

/**
 * A question a form asks in place of its submit button before it acts (refund, resolve). `ask`
 * shows it. `putAway` (its Cancel, Escape) hides it and gives the focus back to the button that
 * asked, drawn again with `autoFocus={focusAsker}`. `drop` hides it and leaves the focus where it
 * is: for a change to the form, made in the field that has the focus, and for the question answered.
 */
export function useQuestionInPlace(): { asking: boolean; focusAsker: boolean; ask: () => void; putAway: () => void; drop: () => void } {
  const [asking, setAsking] = useState(false);
  const [focusAsker, setFocusAsker] = useState(false);
  return {
    asking,
    focusAsker,
    ask: () => setAsking(true),
    putAway: () => {
      setAsking(false);
      setFocusAsker(true);
    },
    drop: () => {
      setAsking(false);
      setFocusAsker(false);
    },
  };
}

/** The question of a confirmation, its confirming button and Cancel, as one labelled group; Escape cancels. */
export function Confirmation({
  label,
  question,
  confirmLabel,
  tone,
  autoFocus,
  askPassword,
  refusal,
  onConfirm,
  onCancel,
}: {
  label: string;
  question: ReactNode;
  confirmLabel: string;
  tone: "danger" | "primary";
  /** The confirming button takes focus (not where the question follows a control still in use, such as a select). */
  autoFocus?: boolean;
  /** Asks for the member's own password too, and confirms with it (Enter confirms). */
  askPassword?: boolean;
  /** Why the password typed last time was refused, said beside the field, which is asked again. */
  refusal?: string | null;
  onConfirm: (password?: string) => void;
  onCancel: () => void;
}) {
  const refusalId = useId();
  if (askPassword) {
    return (
      <form
        className="confirm"
        aria-label={label}
        onKeyDown={(e) => cancelOnEscape(e, onCancel)}
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm(confirmPasswordOf(e.currentTarget));
        }}
      >
        <span>{question}</span>{" "}
        <input
          name="confirmPassword"
          type="password"
          aria-label="Your password"
          placeholder="Your password"
          autoComplete="current-password"
          required
          maxLength={1024}
          autoFocus={autoFocus || Boolean(refusal)}
          aria-invalid={refusal ? true : undefined}
          aria-describedby={refusal ? refusalId : undefined}
        />{" "}
        <button type="submit" className={tone}>
          {confirmLabel}
        </button>{" "}
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        {refusal ? (
          <span id={refusalId} className="error confirm-refusal" role="alert">
            {refusal}
          </span>
        ) : null}
      </form>
    );
  }
  return (
    <span className="confirm" role="group" aria-label={label} onKeyDown={(e) => cancelOnEscape(e, onCancel)}>
      <span>{question}</span>{" "}
      <button type="button" className={tone} autoFocus={autoFocus} onClick={() => onConfirm()}>
        {confirmLabel}
      </button>{" "}
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </span>
  );
}

/**
 * The member's own password, in a form whose action asks for it again: anything that gives
 * someone a login, shows a live secret, decides where live events go or records a payout (README
 * "Your password, again"; the server checks it; a stolen session alone cannot).
 * Read by the form as `confirmPassword`. `refused`: the action's last failure; when it refused
 * the password (passwordRefusalOf), that is said here, and the field is asked again, empty and
 * focused (the form's ErrorNote with `passwordField` leaves it out).
 */
export function ConfirmPasswordField({ autoFocus, refused }: { autoFocus?: boolean; refused?: unknown }) {
  const hint = useId();
  const refusal = passwordRefusalOf(refused);
  // Each refusal asks afresh: the field is drawn again, empty, with the focus.
  const [round, setRound] = useState(0);
  useWhenChanged(refused, () => {
    if (refusal) setRound((n) => n + 1);
  });
  return (
    <label>
      Your password
      <input
        key={round}
        name="confirmPassword"
        type="password"
        autoComplete="current-password"
        required
        maxLength={1024}
        aria-describedby={hint}
        aria-invalid={refusal ? true : undefined}
        autoFocus={autoFocus || (round > 0 && refusal !== null)}
      />
      <FieldNote id={hint} problem={refusal}>
        Asked again for anything that gives someone a login or changes what they may do, shows a live secret, decides where live events go, or records a payout.
      </FieldNote>
    </label>
  );
}

/** What a form's ConfirmPasswordField holds. */
export function confirmPasswordOf(form: HTMLFormElement): string {
  return String(new FormData(form).get("confirmPassword") ?? "");
}

/** Empties a form's ConfirmPasswordField once its action is done: the password does not stay in the page. */
export function forgetConfirmPassword(form: HTMLFormElement): void {
  const field = form.elements.namedItem("confirmPassword");
  if (field instanceof HTMLInputElement) field.value = "";
}

/** A payment's amount, and under it what the customer was charged when the fee was added to it. */
export function AmountWithFee({ payment: p }: { payment: { amount: number; charged_amount: number; currency: Currency } }) {
  return (
    <>
      {formatAmount(p.amount, p.currency)}
      {p.charged_amount !== p.amount ? <div className="muted amount-fee">{formatAmount(p.charged_amount, p.currency)} with the fee</div> : null}
    </>
  );
}

/**
 * Text that may not fit, cut in the middle rather than at the end, so that what tells long values
 * apart (the end of `plink_…-3`, `order-1001#2`) stays in sight; the whole text in its title.
 */
export function MiddleClip({ text, keep = 12 }: { text: string; keep?: number }) {
  if (text.length <= keep * 2) return <>{text}</>;
  return (
    <span className="mid-clip" title={text}>
      {/* Read whole: the two halves are boxes of their own, which a screen reader would read as two words. */}
      <span className="visually-hidden">{text}</span>
      <span className="mid-clip-head" aria-hidden>
        {text.slice(0, -keep)}
      </span>
      <span className="mid-clip-tail" aria-hidden>
        {text.slice(-keep)}
      </span>
    </span>
  );
}

/** A fresh form key: 32 hexadecimal characters (server/trpc/once.ts `formKeyInput`). */
function newFormKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The key a form sends with each try of an action that makes something (server/trpc/once.ts): the
 * same until an answer arrives, so a try sent again after its answer was lost gets that first
 * answer instead of making a second one. `renew` once answered, for the next thing the form makes.
 */
export function useFormKey(): { formKey: string; renew: () => void } {
  const [formKey, setFormKey] = useState(newFormKey);
  return { formKey, renew: useCallback(() => setFormKey(newFormKey()), []) };
}

/**
 * Why an action failed, announced to screen readers; nothing while it has not failed. With
 * `passwordField`, not a refused password: the form's ConfirmPasswordField says that.
 */
export function ErrorNote({ error, prefix = "", passwordField }: { error: unknown; prefix?: string; passwordField?: boolean }) {
  const said = error && !(passwordField && passwordRefusalOf(error));
  return <Problem text={said ? `${prefix}${errorMessage(error)}` : null} />;
}

/** What is wrong with a form before it is sent, announced as ErrorNote's failures are; nothing when all is well. */
export function Problem({ text }: { text: string | null | undefined }) {
  if (!text) return null;
  return (
    <p className="error" role="alert">
      {text}
    </p>
  );
}

/**
 * A list's filters, which work only through their handlers: disabled until the page is hydrated.
 * A value typed or chosen before then would be wiped by hydration (or, for a submit, reload the
 * page without it); disabled, the controls say they are not ready yet. The fieldset draws no box.
 */
export function FilterControls({ children }: { children: ReactNode }) {
  const ready = useHydrated();
  return (
    <fieldset className="filter-controls" disabled={!ready}>
      {children}
    </fieldset>
  );
}

/**
 * What is said under a form's field, tied to it by `id` (its aria-describedby): what is wrong with
 * it, announced, when something is; else its hint, if it has one.
 */
export function FieldNote({ id, problem, children }: { id: string; problem: string | null | undefined; children?: ReactNode }) {
  if (problem) {
    return (
      <span id={id} className="error" role="alert">
        {problem}
      </span>
    );
  }
  return children ? (
    <span id={id} className="hint">
      {children}
    </span>
  ) : null;
}

/**
 * Calls `changed` during render when `value` is not the one last seen (compared by identity: a
 * mutation's error, a refusal's text), to set this component's own state from it, as React has
 * state follow a prop. For what arrives with a failure: a question to ask again, a field to draw
 * afresh.
 */
export function useWhenChanged<T>(value: T, changed: (value: T) => void): void {
  const [seen, setSeen] = useState(value);
  if (value !== seen) {
    setSeen(value);
    changed(value);
  }
}

/** A page of a list query, as every dashboard list procedure answers. */
type ListPage<T> = { data: T[]; hasMore: boolean };

/**
 * A list query's view: loading, the failure with a way to try again, the empty note, or (once it
 * has rows) what `children` makes of the page, kept (and said to be as last read) when reading it
 * again fails. `paging` is where the list's pager stands: a page
 * reached by a cursor that comes back empty (its rows left the filter since the page before was
 * read) says nothing more is that way and leads to the newest page, rather than calling the list empty.
 */
export function ListView<T>({
  q,
  what,
  empty,
  paging,
  children,
}: {
  q: UseQueryResult<ListPage<T>, unknown>;
  what: string;
  empty: ReactNode;
  paging: { cursor: Cursor; onNewest: () => void; filtered?: boolean };
  children: (page: ListPage<T>) => ReactNode;
}) {
  if (q.isPending) return <Loading what={what} />;
  if (q.isError && !q.data) return <Failed message={errorMessage(q.error)} retry={() => void q.refetch()} />;
  // Read once, a failed reading again keeps the page shown (StaleReading says so).
  const page = q.data!;
  if (page.data.length === 0) {
    const { cursor, onNewest, filtered = false } = paging;
    return isCursored(cursor) ? <NothingThisWay cursor={cursor} what={what} filtered={filtered} onNewest={onNewest} /> : <Empty>{empty}</Empty>;
  }
  return (
    <>
      <StaleReading q={q} what={what} />
      {children(page)}
    </>
  );
}
