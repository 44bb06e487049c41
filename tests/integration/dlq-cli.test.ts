import { useTestRedis } from '../helpers/use-test-redis';
import { userInfo } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import type { DeadLetterInput } from '@/lib/dlq/sink';
import { mailerApp } from '@/examples/mailer/app';
import { testBullpen } from '../helpers/test-bullpen';
import { type DlqRun, runDlq } from '../helpers/dlq-command';

/*
 * The CLI runs the application BULLPEN_APP names from the registry (applications.ts),
 * which holds no test application: it runs here on the mailer example, the registry's
 * small application that is not the shipped one, and the test's Bullpen on its table.
 */
describe('npm run dlq (scripts/dlq.ts)', () => {
  const server = useTestRedis();
  let bullpen: Bullpen;
  let seq = 0;

  function cli(...args: string[]): Promise<DlqRun> {
    return runDlq({ redisPort: server.redis.port, prefix: bullpen.keys.root, app: mailerApp.name }, args);
  }

  function record(jobType: 'send-email' | 'send-digest', orgId: string) {
    seq++;
    const payload = jobType === 'send-email' ? { to: 'ada@example.com', subject: `message ${seq}` } : {};
    const input: DeadLetterInput = {
      queue: jobType,
      jobId: `cli-${seq}`,
      jobType,
      jobData: { payload, tenant: { orgId }, requestId: `r-${seq}`, dispatchedAt: 1 },
      error: { message: `failure ${seq}`, errorClass: 'server' },
      attempts: 1,
      failedAt: 1_700_000_000_000 + seq,
      tenant: { orgId },
      source: 'runtime',
    };
    return bullpen.dlq.record(input);
  }

  beforeAll(async () => {
    bullpen = testBullpen(server.redis, { ...mailerApp, webhookJobType: undefined });
  });
  afterAll(async () => {
    await bullpen.close();
  });

  it('lists, replays one and many, refuses bad arguments and an unconfirmed purge', async () => {
    const emails = [await record('send-email', 'org-c'), await record('send-email', 'org-c'), await record('send-email', 'org-d')];
    const digest = await record('send-digest', 'org-c');

    const list = await cli('list', '--type', 'send-email', '--json');
    expect(list.code).toBe(0);
    const page = JSON.parse(list.stdout) as { total: number; entries: Array<{ id: string; status: string }> };
    expect(page.total).toBe(3);
    expect(page.entries.map((e) => e.id)).toEqual(emails.map((h) => h.id).reverse());

    const one = await cli('replay', '--id', emails[0].id, '--wait', '0');
    expect(one.code).toBe(0);
    expect(one.stdout).toContain(`replay-${emails[0].id}-1`);
    expect(await bullpen.queues.get('send-email').getJob(`replay-${emails[0].id}-1`)).toBeDefined();
    expect((await bullpen.dlq.get(emails[0].id))?.replays[0].by).toBe(`cli:${userInfo().username}`);
    const audit = await bullpen.audit.page({ limit: 5 });
    expect(audit.entries[0]).toMatchObject({ action: 'dlq.replay', actor: `cli:${userInfo().username}`, target: { id: emails[0].id } });

    // The remaining pending ones of tenant org-c (one email, one digest), with progress lines.
    const many = await cli('replay', '--status', 'pending', '--tenant', 'org-c', '--limit', '100', '--wait', '0');
    expect(many.code).toBe(0);
    expect(many.stdout).toMatch(/replayed: 2 processed, 2 replayed/);
    // No worker runs here: enqueued, and said to be still waiting, not done.
    expect(many.stdout).toMatch(/2 enqueued, 0 skipped, 0 failed/);
    expect(many.stdout).toMatch(/replayed jobs: 2 still waiting or running/);
    expect((await bullpen.dlq.get(emails[1].id))?.status).toBe('replayed');
    expect((await bullpen.dlq.get(digest.id))?.status).toBe('replayed');
    expect((await bullpen.dlq.get(emails[2].id))?.status).toBe('pending');

    const unconfirmed = await cli('purge', '--type', 'send-email');
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toMatch(/--yes/);
    expect((await bullpen.dlq.counts()).total).toBe(4);

    // Every argument rule is covered by tests/unit/dlq-cli-args.test.ts; here, the exit code.
    const badFlag = await cli('list', '--colour');
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/Usage: npm run dlq/);

    // A cursor that no page returned is a usage error too, not a failed command (issue 22).
    const badCursor = await cli('list', '--cursor', 'yesterday');
    expect(badCursor.code).toBe(2);
    expect(badCursor.stderr).toMatch(/--cursor: a cursor returned by a previous page/);
    expect(badCursor.stderr).toMatch(/Usage: npm run dlq/);
    const goodCursor = await cli('list', '--limit', '1', '--cursor', `${1_700_000_000_002}:${emails[1].id}`, '--json');
    expect(goodCursor.code).toBe(0);
    expect((JSON.parse(goodCursor.stdout) as { entries: Array<{ id: string }> }).entries.map((e) => e.id)).toEqual([emails[0].id]);

    const missing = await cli('replay', '--id', 'dlq-000000000000000000000000');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No dead letter/);
    // Several CLI processes, each loading TypeScript: give a busy machine room.
  }, 180_000);

  it('purges by filter with --yes and reports the count', async () => {
    const a = await record('send-digest', 'org-p');
    const b = await record('send-email', 'org-p');
    const purge = await cli('purge', '--tenant', 'org-p', '--type', 'send-digest', '--yes', '--json');
    expect(purge.code).toBe(0);
    expect(JSON.parse(purge.stdout)).toEqual({ removed: 1 });
    expect(await bullpen.dlq.get(a.id)).toBeUndefined();
    expect(await bullpen.dlq.get(b.id)).toBeDefined();
    const audit = await bullpen.audit.page({ limit: 1 });
    expect(audit.entries[0]).toMatchObject({ action: 'dlq.purge', details: { removed: 1 } });
  });
});
