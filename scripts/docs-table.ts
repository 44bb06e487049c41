import { existsSync } from 'node:fs';
import path from 'node:path';
import { SHIPPED_JOBS } from '@/jobs';
import { JobCatalog } from '@/lib/jobs/job-catalog';
import type { JobTable } from '@/lib/jobs/job-definition';
import { PRIORITY } from '@/lib/jobs/priority';

export const BEGIN = '<!-- table:begin (generated from the job table by npm run docs:handlers) -->';
export const END = '<!-- table:end -->';

const DOCS = path.resolve(__dirname, '../docs');
/** Types documented on a page of their own rather than their group's. */
const OWN_PAGE: Readonly<Record<string, string>> = { 'webhook-dispatch': 'webhooks.md' };

function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${ms / 1_000} s`;
}

/** Where a type is described: its own page, its group's page, or nowhere yet. */
function pageOf(type: string, group: string): string | undefined {
  const page = OWN_PAGE[type] ?? `handlers/${group}.md`;
  return existsSync(path.join(DOCS, page)) ? page : undefined;
}

const link = (text: string, page: string | undefined) => (page ? `[${text}](${page})` : text);

/**
 * The generated part of docs/handlers.md, from a job table: each type's defaults, the
 * types by group and each type's example payload. A type added to the table appears
 * here when `npm run docs:handlers` runs; a unit test compares the doc with this.
 */
export function handlersReference(table: JobTable = SHIPPED_JOBS): string {
  const catalog = new JobCatalog(table);
  const defaults = catalog.names.map((t) => {
    const d = catalog.get(t);
    const backoff =
      d.backoff.type === 'fixed' ? `fixed ${duration(d.backoff.delayMs)}` : `full jitter, base ${duration(d.backoff.delayMs)}`;
    const rate = d.rateLimit ? `${d.rateLimit.max} / ${duration(d.rateLimit.durationMs)}` : '—';
    return `| ${link(`\`${t}\``, pageOf(t, d.group))} | ${d.group} | ${d.attempts} | ${backoff} | ${duration(d.timeoutMs)} | ${d.priority} (${PRIORITY[d.priority]}) | ${d.concurrency} | ${rate} | ${d.critical ? 'yes' : ''} |`;
  });
  const groups = [...new Set(catalog.names.map((t) => catalog.get(t).group))];
  const byGroup = groups.map((g) => {
    const types = catalog.names.filter((t) => catalog.get(t).group === g);
    const own = types.filter((t) => OWN_PAGE[t] && pageOf(t, g));
    const onGroupPage = types.filter((t) => !own.includes(t)).map((t) => `\`${t}\``);
    const elsewhere = own.map((t) => `; \`${t}\` in ${link(OWN_PAGE[t], OWN_PAGE[t])}`);
    return `- ${link(g, pageOf('', g))}: ${onGroupPage.join(', ')}${elsewhere.join('')}`;
  });
  const examples = catalog.names.map((t) => `| \`${t}\` | \`${JSON.stringify(catalog.get(t).example).replace(/\|/g, '\\|')}\` |`);
  return [
    `${catalog.names.length} job types in ${groups.length} groups.`,
    '',
    '| job type | group | attempts | backoff | timeout | priority | concurrency | rate limit | critical |',
    '|---|---|---:|---|---:|---|---:|---|---|',
    ...defaults,
    '',
    '## By group',
    '',
    ...byGroup,
    '',
    '## Example payloads',
    '',
    'A valid payload of each type, as its declaration gives it (`example`); the benchmark seeds its queues with these.',
    '',
    '| job type | example |',
    '|---|---|',
    ...examples,
  ].join('\n');
}

export function replaceBetweenMarkers(doc: string, generated: string): string {
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/handlers.md lacks the markers ${BEGIN} … ${END}`);
  return `${doc.slice(0, a + BEGIN.length)}\n${generated}\n${doc.slice(b)}`;
}
