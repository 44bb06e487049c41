import { describe, expect, it } from 'vitest';
import { MAILER_JOBS, MAILER_SCHEDULES, type MailerJobs } from '@/examples/mailer/jobs';
import { Outbox } from '@/examples/mailer/outbox';
import { readDeadLetterList } from '@/dashboard/dead-letters/dead-letters-read';
import { parseDeadLetterFilters } from '@/dashboard/client/dead-letters-filters';
import { readJobPage } from '@/dashboard/jobs/job-page';
import { readOverview } from '@/dashboard/queues/queue-overview';
import type { TypedDispatcher } from '@/lib/jobs/dispatcher';
import { freePort } from '@/lib/redis/embedded-server';
import { uniquePrefix } from '../helpers/redis';
import { useTestRedis } from '../helpers/use-test-redis';
import { spawnScript } from '../helpers/spawn-worker';

/*
 * The second application on the runtime (docs/guide.md): two job types and a schedule,
 * none of the shipped application's types. The worker (`npm run worker`) runs it as a real
 * process with BULLPEN_APP=mailer, against a real redis-server; the test reads what it did
 * through the same dashboard read models the shipped application's pages use.
 */
describe('the example mailer app', () => {
  const t = useTestRedis();

  async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 15_000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await read();
      if (done(v) || Date.now() > deadline) return v;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('runs its own job table, schedule and handlers in its own worker process, seen through the dashboard read models', async () => {
    const prefix = uniquePrefix('mailer');
    const metricsPort = await freePort();
    const worker = spawnScript(
      'worker/main.ts',
      {
        BULLPEN_APP: 'mailer',
        REDIS_URL: `redis://127.0.0.1:${t.redis.port}`,
        BULLPEN_PREFIX: prefix,
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: 'info',
      },
      'schedules applied',
    );
    try {
      await worker.ready;
      const bullpen = t.bullpen({ jobs: MAILER_JOBS, schedules: MAILER_SCHEDULES, prefix });
      const dispatcher: TypedDispatcher<MailerJobs> = bullpen.dispatcher;

      // The dashboard's queues are the example's two, and none of the shipped application's 18.
      const overview = await readOverview(bullpen, Date.now());
      expect(overview.queues.map((q) => q.name).sort()).toEqual(['send-digest', 'send-email']);
      await expect(bullpen.dispatcher.dispatch('webhook-dispatch', {})).rejects.toMatchObject({ code: 'UNKNOWN_JOB_TYPE' });

      // A job runs in the example's worker; its handler's log lines are on the job page.
      const { jobId } = await dispatcher.dispatch('send-email', { to: 'ada@mailer.example', subject: 'Hello' });
      const page = await until(
        () => readJobPage(bullpen, 'send-email', jobId),
        (p) => p?.job.state === 'completed',
      );
      expect(page?.job.state).toBe('completed');
      expect(page?.logs.lines.join('\n')).toMatch(/sending "Hello" to ada@mailer.example[\s\S]*sent/);
      const outbox = new Outbox(bullpen.redis, bullpen.keys);
      expect((await outbox.since(0)).map((e) => [e.to, e.subject, e.jobId])).toEqual([['ada@mailer.example', 'Hello', jobId]]);

      // Its one schedule was applied by its worker, and a run on demand sends the digest.
      const [schedule] = await bullpen.schedules.list();
      expect(schedule).toMatchObject({ name: 'daily-digest', jobType: 'send-digest', active: true, paused: false });
      expect(schedule.nextRuns.length).toBeGreaterThan(0);
      await bullpen.schedules.triggerNow('daily-digest', 'test');
      const digests = await until(
        async () => (await outbox.since(0)).filter((e) => e.subject.startsWith('Digest')),
        (d) => d.length > 0,
      );
      expect(digests[0]).toMatchObject({ to: 'ops@mailer.example', subject: 'Digest: 1 emails sent' });

      // A permanent failure is a dead letter, listed like the shipped application's.
      await dispatcher.dispatch('send-email', { to: 'eve@blocked.example', subject: 'No' });
      const list = await until(
        () => readDeadLetterList(bullpen, parseDeadLetterFilters({}).filters),
        (l) => l.rows.length > 0,
      );
      expect(list.rows).toHaveLength(1);
      expect(list.rows[0]).toMatchObject({ jobType: 'send-email', errorClass: 'permanent' });

      // A payload the schema refuses never reaches the queue.
      await expect(dispatcher.dispatch('send-email', { to: 'not-an-address', subject: 'x' })).rejects.toMatchObject({ code: 'VALIDATION' });

      // Its metrics carry the runtime's own prefix: `ruvbot_` is the shipped application's.
      const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(metrics).toMatch(/^bullpen_worker_jobs_total\{type="send-email",status="completed"\} 1$/m);
      expect(metrics).not.toContain('ruvbot_');
    } finally {
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    }
  });
});
