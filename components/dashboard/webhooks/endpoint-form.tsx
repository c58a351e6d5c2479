"use client";

import { useId, useState } from "react";
import { SUBSCRIBABLE_EVENT_TYPES } from "@/server/domain/events";
import { ConfirmPasswordField, confirmPasswordOf, FieldNote, Problem, useWhenChanged } from "../kit";
import { errorMessage, paramOf, passwordRefusalOf } from "../trpc";

type Subscribable = (typeof SUBSCRIBABLE_EVENT_TYPES)[number];
export type EventChoice = "*" | Subscribable;
/** `confirmPassword` when the form asked for it (`askPassword`). */
export type EndpointFormValues = { url: string; enabledEvents: EventChoice[]; description: string; confirmPassword?: string };
/** What the form started from (its `initial` when it opened; later readings of the endpoint do not change it). */
export type EndpointFormStart = { url: string; enabledEvents: string[]; description: string };

const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * What an edit saves: only the fields changed from what the form started with, so that a form
 * opened before a colleague saved does not put back what they changed (as settingsChanges does).
 */
export function endpointChanges(v: EndpointFormValues, from: EndpointFormStart): { url?: string; enabledEvents?: EventChoice[]; description?: string } {
  return {
    url: v.url !== from.url ? v.url : undefined,
    enabledEvents: sameSet(v.enabledEvents, from.enabledEvents) ? undefined : v.enabledEvents,
    description: v.description !== from.description ? v.description : undefined,
  };
}

const isChoice = (t: string): t is EventChoice => t === "*" || (SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(t);

/** URL, event types ("all" or a choice) and description: the create and edit forms share it. */
export function EndpointForm({
  initial,
  submitLabel,
  busy,
  error,
  livemode,
  askPassword,
  onSubmit,
  onCancel,
}: {
  initial: EndpointFormStart;
  submitLabel: string;
  busy: boolean;
  /** The save's last failure: a refused URL is said under the field, a refused password under its own. */
  error: unknown;
  livemode: boolean;
  /** The action shows a live secret: the member's password again. */
  askPassword?: boolean;
  onSubmit: (v: EndpointFormValues, from: EndpointFormStart) => void;
  onCancel?: () => void;
}) {
  const [from] = useState(initial);
  const [url, setUrl] = useState(initial.url);
  const [all, setAll] = useState(initial.enabledEvents.includes("*"));
  const [chosen, setChosen] = useState<Subscribable[]>(initial.enabledEvents.filter((t): t is Subscribable => t !== "*" && isChoice(t)));
  const [description, setDescription] = useState(initial.description);
  const [problem, setProblem] = useState<string | null>(null);
  // The URL the server refused, said under the field until it is changed; drawn again with the focus.
  const urlNote = useId();
  const [urlRound, setUrlRound] = useState(0);
  useWhenChanged(error, (e) => {
    if (paramOf(e) === "url") setUrlRound((n) => n + 1);
  });
  const [urlEdited, setUrlEdited] = useState(false);
  const refusedUrl = paramOf(error) === "url";
  const urlProblem = refusedUrl && !urlEdited ? errorMessage(error) : null;
  const elsewhere = error && !refusedUrl && !passwordRefusalOf(error) ? errorMessage(error) : null;
  const toggle = (t: Subscribable) => setChosen((c) => (c.includes(t) ? c.filter((x) => x !== t) : [...c, t]));
  return (
    <form
      className="form-grid"
      onSubmit={(e) => {
        e.preventDefault();
        if (!all && chosen.length === 0) return setProblem("Choose at least one event type, or all of them.");
        setProblem(null);
        setUrlEdited(false);
        onSubmit({ url: url.trim(), enabledEvents: all ? ["*"] : chosen, description: description.trim(), confirmPassword: askPassword ? confirmPasswordOf(e.currentTarget) : undefined }, from);
      }}
    >
      <label>
        Endpoint URL
        <input
          key={urlRound}
          type="url"
          required
          maxLength={2048}
          value={url}
          onChange={(e) => {
            setUrl(e.target.value);
            setUrlEdited(true);
          }}
          placeholder={livemode ? "https://example.com/webhooks/mari" : "https://… (http is allowed in test mode)"}
          aria-describedby={urlProblem ? `${urlNote} url-hint` : "url-hint"}
          aria-invalid={urlProblem ? true : undefined}
          autoFocus={urlRound > 0 && urlProblem !== null}
        />
        <FieldNote id={urlNote} problem={urlProblem} />
        <span id="url-hint" className="muted">
          {livemode ? "Live endpoints must use https." : "Test mode also accepts http."} The address must be reachable from the internet: private and loopback addresses are refused (a server set up for local development accepts them).
        </span>
      </label>
      <fieldset className="choices">
        <legend>Events to send</legend>
        <label>
          <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> All events (and any added later)
        </label>
        {SUBSCRIBABLE_EVENT_TYPES.map((t) => (
          <label key={t}>
            <input type="checkbox" disabled={all} checked={all || chosen.includes(t)} onChange={() => toggle(t)} /> <code>{t}</code>
          </label>
        ))}
      </fieldset>
      <label>
        Description (optional)
        <input type="text" maxLength={500} value={description} onChange={(e) => setDescription(e.target.value)} placeholder="Order service" />
      </label>
      {askPassword ? <ConfirmPasswordField refused={error} /> : null}
      <Problem text={problem ?? elsewhere} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
        {onCancel ? (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
    </form>
  );
}
