import { EVENT_TYPES } from "@/server/domain/events";

/** The event-type picker of the log's filters and of a window replay ("" = every type). */
export function EventTypeSelect({ value, onChange }: { value: string; onChange: (type: string) => void }) {
  return (
    <select value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">All types</option>
      {EVENT_TYPES.map((t) => (
        <option key={t} value={t}>
          {t}
        </option>
      ))}
    </select>
  );
}
