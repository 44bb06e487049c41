/**
 * The dead-letter CLI: `npm run dlq -- list|replay|discard|purge [options]`.
 * Exit codes: 0 done, 1 error (Redis, a refused replay, ...), 2 bad arguments, 3 a
 * replay was enqueued but its job failed at once (docs/dead-letters.md#the-cli).
 */
import { userInfo } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { z } from 'zod';
import { selectedApp } from '@/applications';
import type { AnyBullpenApp } from '@/lib/app/app-definition';
import { createAppBullpen } from '@/lib/app/create-app-bullpen';
import type { Bullpen } from '@/lib/bullpen';
import { type Config, getConfig } from '@/lib/config';
import type { BulkProgress } from '@/lib/dlq/bulk-operations';
import type { DeadLetterEntry } from '@/lib/dlq/entry';
import { deadLetterCursorSchema, type DeadLetterFilter } from '@/lib/dlq/filter';
import { isAppError } from '@/lib/errors/app-error';
import { ERROR_CLASSES } from '@/lib/errors/classify';
import { tenantIdPart } from '@/lib/jobs/tenant';
import { readyClient } from '@/lib/redis/connection';
import { DEAD_LETTER_STATUSES, deadLetterIdSchema } from '@/lib/dlq/dead-letter-id';
import {
  awaitReplayOutcomes,
  describeReplayOutcomes,
  REPLAY_OUTCOME_WAIT_MS,
  type ReplayedJob,
  type ReplayOutcomes,
  replayedJobOf,
} from '@/lib/dlq/replay-outcomes';

export const USAGE = `Usage: npm run dlq -- <command> [options]

Commands:
  list       list dead letters, newest first
  replay     re-enqueue with fresh attempts: one (--id) or the matching ones (default: pending)
  discard    mark discarded: one (--id) or the matching ones (default: pending)
  purge      remove the matching entries and their failed jobs for good (requires --yes)

Options:
  --status <status>      ${DEAD_LETTER_STATUSES.join(' | ')} (failed = pending)
  --type <job-type>      e.g. webhook-dispatch
  --tenant <orgId>       a tenant's orgId
  --error-class <class>  ${ERROR_CLASSES.join(' | ')}
  --id <dlq-id>          one entry (list, replay, discard)
  --limit <n>            at most n entries (default 100; list pages hold at most 200; purge: all matches)
  --cursor <cursor>      list: the page after this cursor
  --payload <json>       replay --id: replay with this edited payload (validated against the type's schema)
  --again                replay --id: replay an entry that was replayed before
  --wait <seconds>       replay: how long to wait for the replayed jobs' first outcomes
                         (default ${REPLAY_OUTCOME_WAIT_MS / 1000}, at most 60; 0: one look, no wait)
  --json                 machine-readable output on stdout
  --yes                  confirm a purge
  -h, --help             this text

Configuration comes from the environment (REDIS_URL, BULLPEN_PREFIX, ...).
replay reports what the replayed jobs did within the wait: completed, failed at once,
failed a first attempt (retrying), or still waiting or running.
Exit codes: 0 done, 1 error, 2 bad arguments,
  3 replay: a replay's job failed at once (a disabled webhook, an idempotency conflict);
    its dead letter is pending again: fix what the error names, then replay it again.`;

const COMMANDS = ['list', 'replay', 'discard', 'purge'] as const;

const argsSchema = z
  .object({
    command: z.enum(COMMANDS, { error: `the command must be one of ${COMMANDS.join(', ')}` }),
    // `failed` is the source plan's name for what Bullpen calls pending.
    status: z.preprocess((v) => (v === 'failed' ? 'pending' : v), z.enum(DEAD_LETTER_STATUSES).optional()),
    // Checked against the application's table in parseCliArgs.
    type: z.string().optional(),
    tenant: tenantIdPart.optional(),
    errorClass: z.enum(ERROR_CLASSES).optional(),
    id: deadLetterIdSchema.optional(),
    limit: z.coerce.number().int().min(1).max(10_000).optional(),
    cursor: deadLetterCursorSchema.optional(),
    payload: z
      .string()
      .transform((s, ctx) => {
        try {
          return JSON.parse(s) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'not valid JSON' });
          return z.NEVER;
        }
      })
      .optional(),
    again: z.boolean().default(false),
    wait: z.coerce.number().min(0).max(60).optional(),
    json: z.boolean().default(false),
    yes: z.boolean().default(false),
  })
  .superRefine((a, ctx) => {
    const issue = (message: string) => ctx.addIssue({ code: 'custom', message });
    if (a.command === 'list' && a.limit !== undefined && a.limit > 200) issue('list shows at most 200 entries per page');
    if (a.command === 'purge' && a.id) issue('purge works by filter; use discard --id for one entry');
    if (a.command === 'purge' && !a.yes) issue('purge removes entries for good: add --yes to confirm');
    if ((a.payload !== undefined || a.again) && !(a.command === 'replay' && a.id)) issue('--payload and --again go with replay --id');
    if (a.cursor && a.command !== 'list') issue('--cursor goes with list');
    if (a.wait !== undefined && a.command !== 'replay') issue('--wait goes with replay');
    if (a.id && (a.status || a.type || a.tenant || a.errorClass)) issue('--id cannot be combined with filters');
  });
export type CliArgs = z.output<typeof argsSchema>;

export class UsageError extends Error {}

/** `parse()`, with node:util's argument errors turned into UsageError. */
function parseOrUsage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Parses the command line for an application with `jobTypes`; bad arguments throw UsageError with the reason. */
export function parseCliArgs(argv: string[], jobTypes: readonly string[]): CliArgs | 'help' {
  const { values, positionals } = parseOrUsage(() =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        status: { type: 'string' },
        type: { type: 'string' },
        tenant: { type: 'string' },
        'error-class': { type: 'string' },
        id: { type: 'string' },
        limit: { type: 'string' },
        cursor: { type: 'string' },
        payload: { type: 'string' },
        again: { type: 'boolean' },
        wait: { type: 'string' },
        json: { type: 'boolean' },
        yes: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  if (values.help) return 'help';
  if (positionals.length !== 1)
    throw new UsageError(positionals.length ? `one command, got: ${positionals.join(' ')}` : 'a command is required');
  const result = argsSchema.safeParse({ ...values, errorClass: values['error-class'], 'error-class': undefined, command: positionals[0] });
  if (!result.success) {
    throw new UsageError(result.error.issues.map((i) => (i.path.length ? `--${String(i.path[0])}: ${i.message}` : i.message)).join('; '));
  }
  if (result.data.type !== undefined && !jobTypes.includes(result.data.type)) {
    throw new UsageError(`--type: not a job type of this application (${jobTypes.join(', ')})`);
  }
  return result.data;
}

/** What the CLI acts as in entry histories and the audit log. */
function cliActor(): string {
  try {
    return `cli:${userInfo().username}`;
  } catch {
    return `cli:${process.env.USER ?? 'unknown'}`;
  }
}

interface Output {
  /** Results: JSON with --json, lines otherwise. */
  result(value: unknown, text: string): void;
  /** Progress: stderr with --json so stdout stays one JSON document. */
  progress(line: string): void;
}

async function run(args: CliArgs, bullpen: Bullpen, out: Output): Promise<number> {
  const dlq = bullpen.dlq;
  const by = cliActor();
  const filter: DeadLetterFilter = { status: args.status, type: args.type, tenant: args.tenant, errorClass: args.errorClass };
  const filterText =
    Object.entries(filter)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ') || 'all';
  const report = (verb: string) => (p: BulkProgress) =>
    out.progress(`${verb}: ${p.processed} processed, ${p.succeeded} ${verb}, ${p.skipped} skipped, ${p.failed} failed`);

  switch (args.command) {
    case 'list': {
      // The text is one line per entry and shows no payload, so it reads none; --json of one
      // entry carries it whole, of a page cut past LIST_PAYLOAD_BYTES (payloadCut).
      const payloadBytes = args.json ? undefined : 0;
      if (args.id) {
        const entry = args.json ? await dlq.get(args.id) : (await dlq.getMany([args.id], { payloadBytes: 0 }))[0];
        if (!entry) throw new CliError(`No dead letter ${args.id}`);
        out.result(entry, formatEntries([entry]));
        return 0;
      }
      const page = await dlq.list(filter, { limit: args.limit ?? 100, cursor: args.cursor }, { payloadBytes });
      const more = page.nextCursor ? `\nmore: --cursor ${page.nextCursor}` : '';
      out.result(page, `${page.entries.length} of ${page.total} dead letters (${filterText})\n${formatEntries(page.entries)}${more}`);
      return 0;
    }
    case 'replay': {
      const waitMs = (args.wait ?? REPLAY_OUTCOME_WAIT_MS / 1000) * 1000;
      if (args.id) {
        const current = await dlq.get(args.id);
        if (!current) throw new CliError(`No dead letter ${args.id}`);
        const entry = await dlq.replay(args.id, {
          by,
          payload: args.payload,
          expectedReplays: args.again ? current.replays.length : undefined,
        });
        const last = entry.replays[entry.replays.length - 1];
        await bullpen.audit.append({
          actor: by,
          action: 'dlq.replay',
          target: { kind: 'dlq-entry', id: entry.id },
          tenant: entry.tenant,
          details: { jobType: entry.jobType, newJobId: last.newJobId, edited: last.edited },
        });
        const outcomes = await awaitReplayOutcomes(bullpen.queues, [replayedJobOf(entry)], { waitMs });
        const enqueued = `enqueued the replay of ${entry.id} as job ${last.newJobId}${last.edited ? ' (edited payload)' : ''}`;
        out.result({ ...entry, outcomes }, `${enqueued}\n${outcomeLines(outcomes, waitMs)}`);
        return outcomes.failed > 0 ? 3 : 0;
      }
      const replayed: ReplayedJob[] = [];
      const result = await dlq.replayMany(filter, {
        by,
        limit: args.limit ?? 100,
        onProgress: report('replayed'),
        onReplayed: (entry) => replayed.push(replayedJobOf(entry)),
      });
      await bullpen.audit.append({ actor: by, action: 'dlq.replay-many', target: { kind: 'dlq', id: filterText }, details: { ...result } });
      // One bounded wait for every replay together, after the last batch.
      const outcomes = await awaitReplayOutcomes(bullpen.queues, replayed, { waitMs });
      out.result({ ...result, outcomes }, `${summary('enqueued', result)}\n${outcomeLines(outcomes, waitMs)}`);
      return result.failed > 0 ? 1 : outcomes.failed > 0 ? 3 : 0;
    }
    case 'discard': {
      if (args.id) {
        const entry = await dlq.discard(args.id, by);
        await bullpen.audit.append({ actor: by, action: 'dlq.discard', target: { kind: 'dlq-entry', id: entry.id }, tenant: entry.tenant });
        out.result(entry, `discarded ${entry.id}`);
        return 0;
      }
      const result = await dlq.discardMany(filter, { by, limit: args.limit ?? 100, onProgress: report('discarded') });
      await bullpen.audit.append({
        actor: by,
        action: 'dlq.discard-many',
        target: { kind: 'dlq', id: filterText },
        details: { ...result },
      });
      out.result(result, summary('discarded', result));
      return result.failed > 0 ? 1 : 0;
    }
    case 'purge': {
      const removed = await dlq.purge(filter, { by, limit: args.limit, onProgress: report('purged') });
      await bullpen.audit.append({ actor: by, action: 'dlq.purge', target: { kind: 'dlq', id: filterText }, details: { removed } });
      out.result({ removed }, `purged ${removed} dead letters (${filterText})`);
      return 0;
    }
  }
}

class CliError extends Error {}

function outcomeLines(o: ReplayOutcomes, waitMs: number): string {
  const lines = [`replayed jobs: ${describeReplayOutcomes(o, waitMs) || 'none'}`];
  for (const f of o.failures) lines.push(`  ${f.id}: job ${f.jobId} failed at once: ${f.message}`);
  return lines.join('\n');
}

function summary(
  verb: string,
  r: { processed: number; succeeded: number; skipped: number; failed: number; errors: Array<{ id: string; message: string }> },
): string {
  const lines = [`${r.succeeded} ${verb}, ${r.skipped} skipped, ${r.failed} failed (${r.processed} processed)`];
  for (const e of r.errors) lines.push(`  ${e.id}: ${e.message}`);
  return lines.join('\n');
}

function formatEntries(entries: DeadLetterEntry[]): string {
  return entries
    .map((e) =>
      [
        e.id,
        new Date(e.failedAt).toISOString(),
        e.status.padEnd(9),
        e.jobType,
        e.tenant?.orgId ?? '-',
        e.error.errorClass,
        `attempts=${e.attempts}`,
        (e.error.message.split('\n')[0] ?? '').slice(0, 100),
      ].join('  '),
    )
    .join('\n');
}

export async function main(argv: string[]): Promise<number> {
  let config: Config;
  let app: AnyBullpenApp;
  try {
    config = getConfig();
    app = selectedApp(config);
  } catch (err) {
    process.stderr.write(`dlq: ${(err as Error).message}\n`);
    return 1;
  }
  let args: CliArgs | 'help';
  try {
    args = parseCliArgs(
      argv,
      app.jobs.map((j) => j.name),
    );
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`dlq: ${err.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const json = args.json;
  const out: Output = {
    result: (value, text) => process.stdout.write(`${json ? JSON.stringify(value, null, 2) : text}\n`),
    progress: (line) => (json ? process.stderr : process.stdout).write(`${line}\n`),
  };
  let bullpen: Bullpen | undefined;
  try {
    // Logs go to stderr: stdout holds only the command's output.
    bullpen = createAppBullpen(app, {
      config,
      logger: pino({ level: config.LOG_LEVEL, base: { service: 'dlq-cli' } }, pino.destination(2)),
    });
    await readyClient(bullpen.redis, 10_000);
    return await run(args, bullpen, out);
  } catch (err) {
    const message = isAppError(err) ? `${err.code}: ${err.message}` : (err as Error).message;
    process.stderr.write(`dlq: ${message}\n`);
    return 1;
  } finally {
    await bullpen?.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`dlq: ${(err as Error).stack ?? err}\n`);
      process.exit(1);
    },
  );
}
