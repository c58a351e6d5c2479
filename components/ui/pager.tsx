"use client";

/** Keyset pages: the cursor is the first or last id shown; there is no page number to jump to. */
export type Cursor = { startingAfter?: string; endingBefore?: string };

/** The query string's names for the cursor of a list that keeps its page in its address (Payments, Events). */
export const CURSOR_PARAMS = ["after", "before"] as const;

export function Pager({ ids, hasMore, cursor, onChange }: { ids: string[]; hasMore: boolean; cursor: Cursor; onChange: (c: Cursor) => void }) {
  // Walking newer (endingBefore), `hasMore` speaks of newer rows; walking older, of older ones.
  const newerExists = cursor.endingBefore ? hasMore : cursor.startingAfter !== undefined;
  const olderExists = cursor.endingBefore ? true : hasMore;
  return (
    <div className="pager">
      <button type="button" disabled={!newerExists || ids.length === 0} onClick={() => onChange({ endingBefore: ids[0] })}>
        ← Newer
      </button>
      <button type="button" disabled={!olderExists || ids.length === 0} onClick={() => onChange({ startingAfter: ids[ids.length - 1] })}>
        Older →
      </button>
    </div>
  );
}
