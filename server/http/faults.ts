import { unstable_rethrow } from "next/navigation";
import { newId } from "@/server/domain/ids";
import { log } from "@/server/log";

/** What a page or a route outside /v1 loaded, or the reference of the fault it met instead. */
export type Loaded<T> = { ok: true; value: T } | { ok: false; reference: string };

/**
 * Runs what a page (a hosted page, the dashboard's frame) or a route outside /v1 loads, and keeps
 * an unexpected fault in it from reaching Next, which would log the error itself, across several
 * lines, not as JSON, with nothing to tie it to what the page showed (and on the embedded
 * database, a failed query's cause with its parameters: the ids and attempt keys a request
 * carried). The fault is logged here instead (loggableError), under a reference that the page or
 * answer shows, so that what a customer or a staff member reads can be found in the log.
 * Next's own signals (notFound, redirect, a prerender's end) are passed on as they are.
 */
export async function loggingFaults<T>(msg: string, load: () => Promise<T>): Promise<Loaded<T>> {
  try {
    return { ok: true, value: await load() };
  } catch (error) {
    unstable_rethrow(error);
    const reference = newId("request");
    log.error(msg, { reference, error });
    return { ok: false, reference };
  }
}
