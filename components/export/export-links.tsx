import { EXPORT_FORMATS, EXPORT_MAX_ROWS, type ExportFormat } from '@/dashboard/client/export-format';

/**
 * "Export CSV · NDJSON" download links for exactly the list the page's filters show
 * (operators only: the route checks the role again). `testId` prefixes each link's testid:
 * `<testId>-csv`, `<testId>-ndjson`.
 */
export function ExportLinks({ hrefFor, testId, what }: { hrefFor: (format: ExportFormat) => string; testId: string; what: string }) {
  return (
    <p className="small muted row" data-testid={testId} style={{ margin: 0, gap: '0.5rem' }}>
      <span>
        Export {what} (up to {EXPORT_MAX_ROWS.toLocaleString('en-US')} rows, with payloads):
      </span>
      {EXPORT_FORMATS.map((format) => (
        <a key={format} className="btn btn-ghost" href={hrefFor(format)} download data-testid={`${testId}-${format}`}>
          {format === 'csv' ? 'CSV' : 'NDJSON'}
        </a>
      ))}
    </p>
  );
}
