"use client";

import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useRouter } from "next/navigation";
import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { CURSOR_PARAMS } from "@/components/ui/pager";
import { modeName, signInPath } from "@/server/domain/staff";
import type { AppRouter } from "@/server/trpc/routers/_app";
import { dashboardLinks } from "./links";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** A tRPC error's message for the page, and whether it is worth retrying. */
export function errorMessage(e: unknown): string {
  if (isUnanswered(e)) return UNREACHABLE;
  return e instanceof Error ? e.message : "Something went wrong. Try again.";
}

/**
 * No answer of Mari's: none at all (the browser's own "Failed to fetch"), or one that is not
 * Mari's envelope (a gateway's HTML error page, a body cut short). The call may not have reached
 * Mari, or may have been done with its answer lost on the way back.
 */
export function isUnanswered(e: unknown): boolean {
  return e instanceof TRPCClientError && e.data === undefined;
}

const UNREACHABLE = "Could not reach Mari, or its answer was lost on the way. Check your connection, then try again.";

/**
 * An action whose outcome is not known: no answer at all (isUnanswered), or Mari's own error (a
 * 5xx), which can come after the change was already made. The page reads again what it changes
 * rather than say it was not done.
 */
export function isOutcomeUnknown(e: unknown): boolean {
  return isUnanswered(e) || codeOf(e) === "INTERNAL_SERVER_ERROR";
}

/** The object a page asked for is not here: missing, or an id none could have (too long, say). Asking again will not help. */
export function isMissing(e: unknown): boolean {
  const code = e instanceof TRPCClientError ? (e.data as { code?: string } | undefined)?.code : undefined;
  return code === "NOT_FOUND" || code === "BAD_REQUEST";
}

/**
 * A list refused the page it was asked for because of its cursor: no object of this mode has that
 * id (one of the other mode's, say), or none could. The cursor is the whole of the page, so asking
 * again cannot help; the list's newest page can.
 */
export function isCursorMissing(e: unknown): boolean {
  if (!(e instanceof TRPCClientError)) return false;
  const data = e.data as { service?: { code?: string; param?: string | null } | null; fields?: Record<string, unknown> | null } | undefined;
  if (data?.service) return data.service.code === "resource_missing" && (data.service.param === "starting_after" || data.service.param === "ending_before");
  return Boolean(data?.fields?.startingAfter || data?.fields?.endingBefore);
}

/**
 * Loads the page again in the mode the switch now says. A list's page in the address (`after` or
 * `before`: Payments, Events) is an object of the mode it was read in, which the other mode does
 * not have: the list starts again at its newest page, its filters kept.
 */
export function reloadInChosenMode(): void {
  const url = new URL(window.location.href);
  const page = CURSOR_PARAMS.filter((param) => url.searchParams.has(param));
  if (page.length === 0) return window.location.reload();
  for (const param of page) url.searchParams.delete(param);
  // Replaced, not changed first and then reloaded: the list would ask for the new address in the old mode.
  window.location.replace(url.href);
}

const clientError = (e: unknown) => e instanceof TRPCClientError && typeof e.data?.httpStatus === "number" && e.data.httpStatus < 500;

const codeOf = (e: unknown) => (e instanceof TRPCClientError ? (e.data as { code?: string } | undefined)?.code : undefined);

/** The API's error code behind a refused call (`refund_amount_invalid`, say), when a service refused it. */
export function serviceCodeOf(e: unknown): string | undefined {
  return e instanceof TRPCClientError ? (e.data as { service?: { code?: string } | null } | undefined)?.service?.code : undefined;
}

/**
 * Why the member's own password, asked again to confirm an action, was refused (not theirs, or
 * too many tries): the action asks for it again in place, saying this, rather than above the page.
 */
export function passwordRefusalOf(e: unknown): string | null {
  return paramOf(e) === "confirmPassword" && e instanceof Error ? e.message : null;
}

/**
 * The field a refusal names: the service's `param`, or else the first field of the procedure's
 * input that did not parse. None for any other failure.
 */
export function paramOf(e: unknown): string | null {
  if (!(e instanceof TRPCClientError)) return null;
  const data = e.data as { service?: { param?: string | null } | null; fields?: Record<string, unknown> | null } | undefined;
  return data?.service?.param ?? Object.keys(data?.fields ?? {})[0] ?? null;
}

/** This page's own address, to come back to after signing in. */
const signInHere = () => signInPath(`${window.location.pathname}${window.location.search}`);

/**
 * Fields of the page's forms the member typed into, still in the page and not empty: what going to
 * sign in would lose. Not a password (asked again anyway), a box ticked or a choice made (done
 * again in a moment), nor a list's filters (kept in the address).
 */
const typedInto = new Set<HTMLInputElement | HTMLTextAreaElement>();
const NOT_TYPED = new Set(["password", "checkbox", "radio", "file", "range", "color", "hidden", "submit", "button", "reset", "image"]);

function noteTyping(e: Event): void {
  const field = e.target;
  if (!(field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement)) return;
  if (NOT_TYPED.has(field.type) || !field.form || field.closest(".filter-controls")) return;
  typedInto.add(field);
}

function somethingTyped(): boolean {
  for (const field of typedInto) {
    if (!field.isConnected) typedInto.delete(field);
    else if (field.value.trim() !== "") return true;
  }
  return false;
}

/**
 * The session ended (signed out elsewhere, removed, run out): to sign in, and back to this page
 * after, rather than an error with a "Try again" that cannot succeed. Where something is typed
 * into a form, the page stays, and `keepPage` says how to sign in without losing it. Not while this
 * page signs out: its calls refused meanwhile would take the browser back here after signing in.
 */
function signInAgain(keepPage: () => void): void {
  if (signingOut) return;
  if (somethingTyped()) return keepPage();
  window.location.assign(signInHere());
}

let signingOut = false;

/** This page is signing its member out (shell.tsx signOutHere): a refused call is expected, and goes nowhere. `false` once that did not happen. */
export function markSigningOut(on = true): void {
  signingOut = on;
}

function makeQueryClient(onModeChanged: () => void, onRoleRefused: () => void, session: { ended: () => void; answered: () => void }) {
  const watch = (e: unknown) => {
    const code = codeOf(e);
    // The server refused a call because the test/live switch changed in another tab (server/trpc/init.ts).
    if (code === "PRECONDITION_FAILED") onModeChanged();
    else if (code === "UNAUTHORIZED") signInAgain(session.ended);
  };
  // The page offers only the actions the member's role allows: one refused means an admin changed
  // the role meanwhile. (A query's refusal does not: some pages ask, and show "admins only".)
  const watchAction = (e: unknown) => {
    watch(e);
    if (codeOf(e) === "FORBIDDEN") onRoleRefused();
  };
  return new QueryClient({
    // Any call answered means the session is back (signed in again in another tab).
    queryCache: new QueryCache({ onError: watch, onSuccess: session.answered }),
    mutationCache: new MutationCache({ onError: watchAction, onSuccess: session.answered }),
    defaultOptions: {
      // Refused or missing is not going to change by asking again.
      queries: { staleTime: 10_000, retry: (n, e) => !clientError(e) && n < 2, refetchOnWindowFocus: true },
    },
  });
}

const PageLivemode = createContext(false);

/** The mode this tab's page was drawn in (the cookie's may have changed since, in another tab). */
export const usePageLivemode = () => useContext(PageLivemode);

/** Tabs of this browser tell each other when the switch changes (shell.tsx). */
export const MODE_CHANNEL = "mari-mode";

/**
 * The dashboard's data layer: one query client and one tRPC client per browser tab. Every call
 * says which mode the tab's page was drawn in; when the switch has changed in another tab, the
 * server refuses it rather than act in the other environment, and the tab says to reload.
 */
export function DashboardProviders({ livemode, children }: { livemode: boolean; children: ReactNode }) {
  const [stale, setStale] = useState(false);
  const [ended, setEnded] = useState(false);
  const router = useRouter();
  // Everything is read again (the page's controls follow the new role), and the header with it.
  const [queryClient] = useState(() => {
    const client: QueryClient = makeQueryClient(
      () => setStale(true),
      () => {
        void client.invalidateQueries();
        router.refresh();
      },
      { ended: () => setEnded(true), answered: () => setEnded(false) },
    );
    return client;
  });
  useEffect(() => {
    document.addEventListener("input", noteTyping, true);
    return () => document.removeEventListener("input", noteTyping, true);
  }, []);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({ links: dashboardLinks(livemode) }),
  );
  useEffect(() => {
    if (typeof BroadcastChannel === "undefined") return;
    const channel = new BroadcastChannel(MODE_CHANNEL);
    channel.onmessage = (m: MessageEvent<unknown>) => {
      if (m.data !== modeName(livemode)) setStale(true);
    };
    return () => channel.close();
  }, [livemode]);
  const other = modeName(!livemode);
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {stale ? (
          <div className="mode-changed" role="alert">
            <span>
              {other[0]!.toUpperCase() + other.slice(1)} mode was chosen in another tab. This page still shows {modeName(livemode)} data, and
              changes nothing until it is reloaded.
            </span>
            <button type="button" onClick={reloadInChosenMode}>
              Reload in {other} mode
            </button>
          </div>
        ) : null}
        {ended ? <SessionEnded /> : null}
        <PageLivemode value={livemode}>{children}</PageLivemode>
      </TRPCProvider>
    </QueryClientProvider>
  );
}

/**
 * The session ended while something was typed into the page: it stays, saying nothing more is done
 * from it until the member signs in again, in another tab to keep what is typed. The first call
 * answered after that puts this away.
 */
function SessionEnded() {
  return (
    <div className="mode-changed" role="alert">
      <span>
        Your session has ended: nothing is done from this page until you sign in again. To keep what you typed here, sign in in a new tab, then come back to this one
        and send it again.
      </span>
      <span className="actions">
        <a href={signInHere()} target="_blank" rel="noopener">
          Sign in in a new tab
        </a>
        <a href={signInHere()}>Sign in here, losing what you typed</a>
      </span>
    </div>
  );
}
