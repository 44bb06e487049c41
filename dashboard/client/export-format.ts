/**
 * How exports are written: CSV (RFC 4180, CRLF) or NDJSON, one row per line. Pure and
 * client-safe: the pages build their export links from these names.
 */
export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * The most rows one export writes. A download past it ends with a note saying it was
 * cut (see `exportTrailer`); narrow the filters to get the rest.
 */
export const EXPORT_MAX_ROWS = 100_000;

/** The format a URL names, `csv` when it names none; undefined for anything else (the route answers 400). */
export function parseExportFormat(raw: string | null | undefined): ExportFormat | undefined {
  if (raw === null || raw === undefined || raw === '') return 'csv';
  return (EXPORT_FORMATS as readonly string[]).includes(raw) ? (raw as ExportFormat) : undefined;
}

/**
 * How a cell may start for a spreadsheet to run it as a formula (OWASP "CSV injection"):
 * `= + - @`, their fullwidth (`＝ ＋ － ＠`) and small forms, which spreadsheets fold into the
 * ASCII ones, and `DDE(`. Leading whitespace (a space, a tab, a line break) and invisible
 * format characters (zero-width space and joiners, BOM, bidi marks) count too: some
 * spreadsheets skip them before they look, and a reader of the file cannot see them.
 */
const FORMULA_START = /^(?:[\s\p{Cf}=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B]|dde\s*\()/iu;

/**
 * One CSV cell: empty for null/undefined, objects as JSON, a leading `'` before text that
 * starts as a formula might (FORMULA_START), and quoted (quotes doubled) when it holds a
 * comma, a quote or a line break.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  // Numbers are written as they are: -3 is a number, not a formula.
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record, CRLF-terminated. */
export function csvLine(cells: readonly unknown[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/** One NDJSON record (undefined fields left out). */
export function ndjsonLine(record: Record<string, unknown>): string {
  return `${JSON.stringify(record)}\n`;
}

/** Why an export stopped before the end of what its filters match. */
export type ExportCut = 'max-rows' | 'scan-window';

/** How an export ended. */
export interface ExportEnd {
  rows: number;
  /** Set when the export stopped early; absent when it holds every match. */
  cut?: ExportCut;
  /** Filtered job exports: ids examined, and the window they were bounded by. */
  scanned?: number;
  scanLimit?: number;
}

/**
 * The last line of an export that was cut: NDJSON gets a record of its own
 * (`{"_export":{…}}`), CSV a one-cell row starting with `#`. Nothing when it was complete.
 */
export function exportTrailer(format: ExportFormat, end: ExportEnd, maxRows: number): string {
  if (!end.cut) return '';
  const note =
    end.cut === 'max-rows'
      ? `export cut at ${maxRows} rows (the maximum); narrow the filters for the rest`
      : `export searched the newest ${end.scanLimit ?? end.scanned} jobs of the state only; narrow the state or filters for the rest`;
  if (format === 'ndjson') return ndjsonLine({ _export: { cut: end.cut, rows: end.rows, maxRows, scanned: end.scanned, note } });
  return csvLine([`# ${note}`]);
}

/** A file name safe in a `Content-Disposition` header: letters, digits, `.`, `_`, `-` only. */
export function exportFileName(parts: readonly string[], format: ExportFormat, now: number): string {
  const stamp = new Date(now).toISOString().slice(0, 19).replaceAll(':', '').replace('T', '-');
  const base = [...parts, stamp].map((p) => p.replace(/[^A-Za-z0-9._-]+/g, '_')).join('-');
  return `${base}.${format === 'csv' ? 'csv' : 'ndjson'}`;
}
