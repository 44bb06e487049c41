import 'server-only';
import { NextResponse } from 'next/server';
import { getBullpen, readyBullpen } from '@/dashboard/dashboard-process';
import { roleAtLeast, type Role } from '@/dashboard/auth/roles';
import type { User } from '@/dashboard/auth/user-store';
import type { Bullpen } from '@/lib/bullpen';
import { EXPORT_FORMATS, EXPORT_MAX_ROWS, type ExportEnd, exportFileName, type ExportFormat } from '@/dashboard/client/export-format';
import { encodeExport } from '@/dashboard/exports/export-stream';
import { isAppError } from '@/lib/errors/app-error';
import { errorReference } from '@/lib/errors/error-reference';
import { currentUser } from '@/dashboard/auth/session';

/**
 * Who may export: operators and up. An export carries every payload of the list in one
 * file that leaves the dashboard; a viewer reads jobs one page at a time on screen only.
 */
export const EXPORT_MIN_ROLE: Role = 'operator';

const noStore = { 'Cache-Control': 'no-store' };

export interface ExportSpec<R extends object> {
  /** The parsed `format` parameter, undefined when it was not one of EXPORT_FORMATS (400). */
  format: ExportFormat | undefined;
  /** Audit action, noun.verb. */
  action: 'jobs.export' | 'dlq.export';
  target: { kind: string; id: string };
  /** The filters as the audit entry records them. */
  filters: Record<string, unknown>;
  /** Parts of the download's file name (a timestamp and the extension are added). */
  fileParts: string[];
  columns: ReadonlyArray<keyof R & string>;
  /** The rows, one page per step (dashboard/exports/export-*.ts). */
  open(bullpen: Bullpen): AsyncGenerator<R[], ExportEnd>;
}

/**
 * A streamed, bounded, audited download: 400 for an unknown format → 401 without a
 * session → 403 below EXPORT_MIN_ROLE → the first page is read before the response
 * starts (an unknown queue is a 404 JSON, not a broken download) → the rest is read one
 * page per chunk the client pulls. The audit entry (filters, rows, how it ended) is
 * written when the stream ends or the client goes away.
 */
export async function exportResponse<R extends object>(spec: ExportSpec<R>): Promise<Response> {
  if (!spec.format) {
    return NextResponse.json(
      { code: 'VALIDATION', message: `format must be one of ${EXPORT_FORMATS.join(', ')}` },
      { status: 400, headers: noStore },
    );
  }
  const format = spec.format;
  let user: User | null;
  try {
    user = await currentUser();
  } catch {
    return NextResponse.json({ code: 'UNAVAILABLE', message: 'Redis is unreachable' }, { status: 503, headers: noStore });
  }
  if (!user) return NextResponse.json({ code: 'UNAUTHENTICATED', message: 'Sign in first' }, { status: 401, headers: noStore });
  if (!roleAtLeast(user.role, EXPORT_MIN_ROLE)) {
    return NextResponse.json({ code: 'FORBIDDEN', message: `Requires the ${EXPORT_MIN_ROLE} role` }, { status: 403, headers: noStore });
  }
  const actor = user.username;

  let bullpen: Bullpen;
  let pages: AsyncGenerator<R[], ExportEnd>;
  let rows = 0;
  try {
    bullpen = await readyBullpen();
    pages = counted(await primed(spec.open(bullpen)), (n) => {
      rows += n;
    });
  } catch (err) {
    return errorJson(err);
  }

  const chunks = encodeExport(pages, spec.columns, format, EXPORT_MAX_ROWS);
  const encoder = new TextEncoder();
  let audited = false;
  const audit = async (outcome: Record<string, unknown>) => {
    if (audited) return;
    audited = true;
    try {
      await bullpen.audit.append({
        actor,
        action: spec.action,
        target: spec.target,
        details: { format, filters: spec.filters, maxRows: EXPORT_MAX_ROWS, ...outcome },
      });
    } catch (err) {
      bullpen.logger.error({ err, action: spec.action }, 'export audit entry failed');
    }
  };

  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) {
          const end = next.value;
          await audit({
            rows: end.rows,
            ...(end.cut ? { cut: end.cut } : {}),
            ...(end.scanned !== undefined ? { scanned: end.scanned } : {}),
          });
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(next.value));
      } catch (err) {
        const ref = errorReference();
        bullpen.logger.error({ err, ref, action: spec.action }, 'export failed part-way');
        await audit({ rows, failed: ref });
        controller.error(err);
      }
    },
    async cancel() {
      await audit({ rows, cancelled: true });
      await chunks.return({ rows });
    },
  });

  return new Response(stream, {
    headers: {
      ...noStore,
      'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'Content-Disposition': `attachment; filename="${exportFileName(spec.fileParts, format, Date.now())}"`,
      'X-Export-Max-Rows': String(EXPORT_MAX_ROWS),
      'X-Content-Type-Options': 'nosniff',
    },
  });
}

/** Reads the first page now (so its errors become a status), then continues the same generator. */
async function primed<R>(pages: AsyncGenerator<R[], ExportEnd>): Promise<AsyncGenerator<R[], ExportEnd>> {
  const first = await pages.next();
  return (async function* () {
    if (first.done) return first.value;
    yield first.value;
    return yield* pages;
  })();
}

/** The same pages, reporting each page's size as it passes. */
async function* counted<R>(pages: AsyncGenerator<R[], ExportEnd>, add: (n: number) => void): AsyncGenerator<R[], ExportEnd> {
  for (;;) {
    const next = await pages.next();
    if (next.done) return next.value;
    add(next.value.length);
    yield next.value;
  }
}

function errorJson(err: unknown): NextResponse {
  if (isAppError(err)) return NextResponse.json({ code: err.code, message: err.message }, { status: err.status, headers: noStore });
  const ref = errorReference();
  getBullpen().logger.error({ err, ref }, 'export failed to start');
  return NextResponse.json(
    { code: 'INTERNAL', message: `The export failed; the dashboard log has the details under reference ${ref}`, ref },
    { status: 500, headers: noStore },
  );
}
