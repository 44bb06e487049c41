/**
 * Seeding for the dashboard benchmark. A million real jobs would take an hour to run
 * through workers, so one job of each kind (completed, failed) is run for real
 * through Bullpen's WorkerPool, and its BullMQ hash is then cloned inside Redis by a
 * Lua script, with per-job id, tenant, request id and timestamps. The clones are
 * exactly BullMQ's layout (it wrote the template), and `verifyClones` reads some back
 * through BullMQ before anything is measured. Dead letters go through the store's
 * own `record`, concurrently in batches.
 */
import type { Bullpen } from '@/lib/bullpen';
import { ERROR_CLASSES, type ErrorClass } from '@/lib/errors/classify';
import { PermanentError } from '@/lib/errors/permanent-error';
import type { JobEnvelope } from '@/lib/jobs/envelope';
import { SHIPPED_JOB_NAMES, type ShippedJobName } from '@/jobs';
import type { DeadLetterInput, DeadLetterSink } from '@/lib/dlq/sink';
import { WorkerPool } from '@/lib/runtime/worker-pool';

/** Jobs written per Lua call: ~50 ms of Redis time, short enough not to starve other clients. */
const CLONE_BATCH = 5_000;
/** Dead letters recorded concurrently; a batch is one burst of pipelined script calls. */
const RECORD_BATCH = 1_000;
/** Fields that differ per clone; everything else is copied from the template verbatim. */
const VARYING = new Set(['data', 'timestamp', 'processedOn', 'finishedOn']);

/**
 * KEYS: job key prefix (`…:<queue>:`), the state's sorted set, the queue's id counter.
 * ARGV: first id, count, base time, ms between jobs, tenants, data format (`%d` for
 * the tenant number and the id), then the template's fixed field/value pairs.
 * A job's score in the state set is its finishedOn, as BullMQ scores finished jobs.
 */
const CLONE_SCRIPT = `
local first, n, base, step, tenants = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local fmt = ARGV[6]
local fixed = {}
for i = 7, #ARGV do fixed[#fixed + 1] = ARGV[i] end
for id = first, first + n - 1 do
  local ts = base + id * step
  redis.call('HSET', KEYS[1] .. id, 'data', string.format(fmt, id % tenants, id), 'timestamp', ts,
    'processedOn', ts + 5, 'finishedOn', ts + 10, unpack(fixed))
  redis.call('ZADD', KEYS[2], ts + 10, id)
end
local last = first + n - 1
if tonumber(redis.call('GET', KEYS[3]) or '0') < last then redis.call('SET', KEYS[3], last) end
return n`;

/** A finished job of a queue, as BullMQ wrote it: the template of the clones. */
export interface JobTemplate {
  type: ShippedJobName;
  state: 'completed' | 'failed';
  /** The hash minus the varying fields, as field/value pairs. */
  fixed: string[];
  envelope: JobEnvelope;
  /** Present for failed templates: the dead-letter input the runtime handed its sink. */
  deadLetter?: DeadLetterInput;
}

export interface CloneSpec {
  /** First job id (numeric, like BullMQ's own). */
  firstId: number;
  count: number;
  /** Distinct tenants the clones cycle through (`org-0` … `org-<n-1>`). */
  tenants: number;
  /** ms between two clones' timestamps; newest = highest id. @defaultValue 50 */
  stepMs?: number;
}

/** Tenant and request id of clone `id`; the Lua format and the DLQ records both use it. */
export function cloneEnvelope(template: JobEnvelope, id: number, tenants: number): JobEnvelope {
  return { ...template, tenant: { orgId: `org-${id % tenants}` }, requestId: `bench-${id}` };
}

/** The envelope as a Lua `string.format` format: `%d` for the tenant number, then the id. */
export function envelopeFormat(template: JobEnvelope): string {
  const json = JSON.stringify({ ...template, tenant: { orgId: 'org-@@ORG@@' }, requestId: 'bench-@@ID@@' });
  // string.format takes the tenant number first: the tenant must come before the request id.
  if (json.indexOf('@@ORG@@') > json.indexOf('@@ID@@')) throw new Error('the template envelope has requestId before tenant');
  return json.replace(/%/g, '%%').replace('@@ORG@@', '%d').replace('@@ID@@', '%d');
}

/**
 * Runs one job of `type` through a real WorkerPool until it completes (or, with
 * `fail`, fails permanently through the runtime's dead-letter path), then returns
 * its stored hash as a template and removes the job. A failed template also keeps the
 * dead-letter input the runtime produced, for the clones' entries.
 */
export async function makeTemplate(bullpen: Bullpen, type: ShippedJobName, payload: unknown, fail: boolean): Promise<JobTemplate> {
  const queue = bullpen.queues.get(type);
  // The runtime's dead-letter input is captured rather than stored: the DLQ's counts stay the seed's own.
  let deadLetter: DeadLetterInput | undefined;
  const sink: DeadLetterSink = {
    record: async (input) => {
      deadLetter = input;
      return { id: 'bench-template', created: true };
    },
  };
  const connection = bullpen.workerConnection();
  const pool = new WorkerPool({
    connection,
    keys: bullpen.keys,
    jobs: bullpen.jobs,
    handlers: {
      [type]: async () => {
        if (fail) throw new PermanentError('Upstream refused the request: HTTP 422 (bench template)', 'E_UPSTREAM_422');
        return { delivered: true, status: 200, latencyMs: 12 };
      },
    },
    sink,
    alerter: bullpen.alerter,
    logger: bullpen.logger,
    concurrency: 1,
    name: 'bench-template',
  });
  await pool.start();
  const state = fail ? 'failed' : 'completed';
  let jobId: string;
  try {
    ({ jobId } = await bullpen.dispatcher.dispatch(type, payload as never, { tenant: { orgId: 'org-0' }, attempts: 1 }));
    const deadline = Date.now() + 30_000;
    while ((await queue.getJobState(jobId)) !== state) {
      if (Date.now() > deadline) throw new Error(`the ${type} template job did not become ${state} within 30 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await pool.close(5_000);
    // The pool does not own its connection; left open it would keep the process alive.
    connection.disconnect();
  }
  const hash = await bullpen.redis.hgetall(queue.toKey(jobId));
  const fixed = Object.entries(hash)
    .filter(([k]) => !VARYING.has(k))
    .flat();
  const envelope = JSON.parse(hash.data) as JobEnvelope;
  if (fail && !deadLetter) throw new Error(`the runtime handed no dead letter to the sink for the failed ${type} template`);
  await queue.remove(jobId);
  return { type, state, fixed, envelope, deadLetter };
}

/** Writes `spec.count` clones of the template into its state. */
export async function cloneJobs(
  bullpen: Bullpen,
  t: JobTemplate,
  spec: CloneSpec,
): Promise<{ ms: number; finishedAt: (id: number) => number }> {
  const queue = bullpen.queues.get(t.type);
  const step = spec.stepMs ?? 50;
  // The newest clone finishes a minute before now: every clone is in the past (retry-all's "before").
  const base = Date.now() - 60_000 - (spec.firstId + spec.count) * step;
  const fmt = envelopeFormat(t.envelope);
  const keys = [queue.toKey(''), queue.toKey(t.state), queue.toKey('id')];
  const t0 = performance.now();
  for (let done = 0; done < spec.count; done += CLONE_BATCH) {
    const n = Math.min(CLONE_BATCH, spec.count - done);
    await bullpen.redis.eval(CLONE_SCRIPT, keys.length, ...keys, spec.firstId + done, n, base, step, spec.tenants, fmt, ...t.fixed);
  }
  // As the script computes it: finishedOn = base + id * step + 10.
  return { ms: performance.now() - t0, finishedAt: (id) => base + id * step + 10 };
}

/**
 * Reads clones back through BullMQ: the state count, and a few jobs (first, last, a
 * middle one) with their state, name, tenant and finish time. Throws on a mismatch,
 * so a layout BullMQ does not read is never benchmarked.
 */
export async function verifyClones(bullpen: Bullpen, t: JobTemplate, spec: CloneSpec, expectedInState: number): Promise<void> {
  const queue = bullpen.queues.get(t.type);
  const counts = await queue.getJobCounts(t.state);
  if (counts[t.state] !== expectedInState) {
    throw new Error(`BullMQ counts ${counts[t.state]} ${t.state} jobs in ${t.type}, expected ${expectedInState}`);
  }
  const last = spec.firstId + spec.count - 1;
  for (const id of [spec.firstId, Math.floor((spec.firstId + last) / 2), last]) {
    const job = await queue.getJob(String(id));
    const state = await queue.getJobState(String(id));
    const tenant = (job?.data as JobEnvelope | undefined)?.tenant?.orgId;
    if (!job || state !== t.state || job.name !== t.type || tenant !== `org-${id % spec.tenants}` || !job.finishedOn) {
      throw new Error(`clone ${id} of ${t.type} does not read back through BullMQ (state ${state}, tenant ${tenant})`);
    }
  }
  const [newest] = await queue.getJobs([t.state], 0, 0, false);
  if (newest?.id !== String(last)) throw new Error(`the newest ${t.state} job of ${t.type} is ${newest?.id}, expected ${last}`);
}

/** The dead letter of clone `id` of a failed template, as the runtime would have written it. */
export function cloneDeadLetter(t: JobTemplate, id: number, tenants: number, failedAt: number): DeadLetterInput {
  if (!t.deadLetter) throw new Error('not a failed template');
  const jobData = cloneEnvelope(t.envelope, id, tenants);
  return { ...t.deadLetter, jobId: String(id), jobData, tenant: jobData.tenant, failedAt };
}

/** Records dead letters through the store, RECORD_BATCH at a time; returns the ms it took. */
export async function recordDeadLetters(bullpen: Bullpen, count: number, make: (i: number) => DeadLetterInput): Promise<number> {
  const t0 = performance.now();
  for (let start = 0; start < count; start += RECORD_BATCH) {
    const n = Math.min(RECORD_BATCH, count - start);
    const results = await Promise.all(Array.from({ length: n }, (_, j) => bullpen.dlq.record(make(start + j))));
    const notCreated = results.filter((r) => !r.created).length;
    if (notCreated) throw new Error(`${notCreated} dead letters of batch ${start} were not created (duplicate ids?)`);
  }
  return performance.now() - t0;
}

export interface DeadLetterSpread {
  tenants: number;
  /** Spread of failedAt back from `now`. */
  windowMs: number;
  now: number;
}

/** Webhooks fail most in production (remote endpoints); the other types follow in registry order. */
const TYPES_BY_FREQUENCY: ShippedJobName[] = ['webhook-dispatch', ...SHIPPED_JOB_NAMES.filter((t) => t !== 'webhook-dispatch')];

const MESSAGES: Record<ErrorClass, [string, string | undefined]> = {
  network: ['connect ECONNREFUSED 10.0.3.7:443', 'ECONNREFUSED'],
  timeout: ['The attempt timed out after 30000 ms', 'ETIMEDOUT'],
  rate_limit: ['HTTP 429 Too Many Requests from upstream', 'HTTP_429'],
  server: ['HTTP 503 Service Unavailable from upstream', 'HTTP_503'],
  client: ['HTTP 404 Not Found from upstream', 'HTTP_404'],
  conflict: ['HTTP 409 Conflict: already exists', 'HTTP_409'],
  validation: ['Invalid payload: items: Too small: expected array to have >=1 items', 'VALIDATION'],
  permanent: ['The target refused the request for good', 'PERMANENT'],
  cancelled: ['Cancelled by operator', 'CANCELLED'],
  unknown: ["Cannot read properties of undefined (reading 'id')", undefined],
};

/**
 * The i-th of the 100,000 dead letters: every job type, `tenants` tenants and every
 * error class, skewed like production (a few types and classes dominate), failedAt
 * spread over the window.
 */
export function spreadDeadLetter(i: number, rnd: () => number, s: DeadLetterSpread): DeadLetterInput {
  // Squaring skews towards the front of each list: webhook-dispatch, network, org-0 are the most common.
  const type = TYPES_BY_FREQUENCY[Math.floor(rnd() ** 2 * TYPES_BY_FREQUENCY.length)];
  const errorClass = ERROR_CLASSES[Math.floor(rnd() ** 2 * ERROR_CLASSES.length)];
  const orgId = `org-${Math.floor(rnd() ** 2 * s.tenants)}`;
  const [message, code] = MESSAGES[errorClass];
  const failedAt = s.now - Math.floor(rnd() * s.windowMs);
  const envelope: JobEnvelope = {
    payload: { seed: i, note: 'dashboard benchmark' },
    tenant: { orgId },
    requestId: `dlq-bench-${i}`,
    dispatchedAt: failedAt - 5_000,
  };
  return {
    queue: type,
    jobId: `dlq-bench-${i}`,
    jobType: type,
    jobData: envelope,
    error: {
      message,
      stack: `Error: ${message}\n    at dispatch (worker/handlers/${type}.ts:42:11)\n    at runAttempt (lib/runtime/processor.ts:88:20)`,
      ...(code ? { code } : {}),
      errorClass,
    },
    attempts: 3,
    failedAt,
    tenant: { orgId },
    source: 'runtime',
  };
}
