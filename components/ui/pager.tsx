"use client";

/** Keyset pages: the cursor is the first or last id shown; there is no page number to jump to. */
export type Cursor = { startingAfter?: string; endingBefore?: string };

/** Whether a page was reached by a cursor (a later or earlier page), not the list's newest. */
export const isCursored = (cursor: Cursor): boolean => Boolean(cursor.startingAfter || cursor.endingBefore);

/** The query string's names for the cursor of a list that keeps its page in its address (Payments, Events). */
export const CURSOR_PARAMS = ["after", "before"] as const;

/**
 * Newer and Older, or nothing when the whole list is on this page. `disabled` while the rows in
 * sight are not the page the list now asks for (the page before, kept in sight while the next
 * loads): a cursor taken from them would apply one filter's row to another filter, and skip that
 * one's newest rows.
 */
export function Pager({ ids, hasMore, cursor, onChange, disabled = false }: { ids: string[]; hasMore: boolean; cursor: Cursor; onChange: (c: Cursor) => void; disabled?: boolean }) {
  // Walking newer (endingBefore), `hasMore` speaks of newer rows; walking older, of older ones.
  const newerExists = cursor.endingBefore ? hasMore : cursor.startingAfter !== undefined;
  const olderExists = cursor.endingBefore ? true : hasMore;
  // An empty page (its rows left the filters since the page before was read) ends at its cursor:
  // the way back starts there.
  const newest = ids[0] ?? cursor.startingAfter;
  const oldest = ids[ids.length - 1] ?? cursor.endingBefore;
  const toNewer = newerExists ? newest : undefined;
  const toOlder = olderExists ? oldest : undefined;
  // The whole list on one page: two buttons that lead nowhere would only be in the way.
  if (!toNewer && !toOlder) return null;
  return (
    <div className="pager">
      <button type="button" disabled={disabled || !toNewer} onClick={() => onChange({ endingBefore: toNewer })}>
        ← Newer
      </button>
      <button type="button" disabled={disabled || !toOlder} onClick={() => onChange({ startingAfter: toOlder })}>
        Older →
      </button>
    </div>
  );
}
