import type { ReactNode } from "react";

/** A column of a DataTable: its heading, and `num` for figures, aligned right with their heading. */
export type Column = string | { label: string; num?: boolean; hidden?: boolean };
/** The heading of a column of buttons: said to screen readers, not shown. */
export const ACTIONS: Column = { label: "Actions", hidden: true };

/**
 * A table of the dashboard's rows: one heading per column, and `row` making each row (a `<tr>`
 * with its key). The wrapper scrolls it sideways on a narrow screen rather than the page.
 */
export function DataTable<T>({
  columns,
  rows,
  row,
  className,
  busy,
}: {
  columns: readonly Column[];
  rows: readonly T[];
  row: (item: T, index: number) => ReactNode;
  /** Classes beside `data`, for a table drawn its own way (as cards on a phone). */
  className?: string;
  /** Rows of the last filters or page, kept while the new ones are read: dimmed, so they are not taken for the answer. */
  busy?: boolean;
}) {
  return (
    <div className="table-wrap" aria-busy={busy}>
      <table className={className ? `data ${className}` : "data"}>
        <thead>
          <tr>
            {columns.map((c) => {
              const { label, num = false, hidden = false } = typeof c === "string" ? { label: c } : c;
              return (
                <th key={label} className={num ? "num" : undefined}>
                  {hidden ? <span className="visually-hidden">{label}</span> : label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{rows.map((item, i) => row(item, i))}</tbody>
      </table>
    </div>
  );
}
