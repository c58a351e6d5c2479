/**
 * CSV as RFC 4180 has it (CRLF rows, quotes doubled), and safe to open in a spreadsheet: a cell
 * that starts like a formula (= + - @, or a tab or carriage return that some programs skip
 * before reading one) gets a leading apostrophe, so a customer-supplied reference such as
 * `=HYPERLINK(…)` is shown as text and never evaluated.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  // Our own numbers are never negative; only text can carry a formula.
  let text = String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(cells: readonly (string | number | boolean | null | undefined)[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}
