/** A `datetime-local` value (the staff member's own time zone) as an instant, or undefined. */
export function localToIso(v: string | null | undefined): string | undefined {
  if (!v) return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}
