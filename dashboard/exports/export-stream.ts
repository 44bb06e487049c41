import 'server-only';
import { csvLine, type ExportEnd, type ExportFormat, exportTrailer, ndjsonLine } from '@/dashboard/client/export-format';

/**
 * Pages of rows → text chunks in `format`: the CSV header first, then one chunk per page,
 * then the trailer when the export was cut. Returns how it ended. Reads the next page only
 * when the consumer asks for the next chunk, so a slow download holds one page.
 */
export async function* encodeExport<R extends object>(
  pages: AsyncGenerator<R[], ExportEnd>,
  columns: ReadonlyArray<keyof R & string>,
  format: ExportFormat,
  maxRows: number,
): AsyncGenerator<string, ExportEnd> {
  if (format === 'csv') yield csvLine(columns);
  for (;;) {
    const next = await pages.next();
    if (next.done) {
      const trailer = exportTrailer(format, next.value, maxRows);
      if (trailer) yield trailer;
      return next.value;
    }
    yield next.value
      .map((row) =>
        format === 'csv'
          ? csvLine(columns.map((c) => row[c]))
          : ndjsonLine(Object.fromEntries(columns.map((c) => [c, row[c]]).filter(([, v]) => v !== undefined))),
      )
      .join('');
  }
}
