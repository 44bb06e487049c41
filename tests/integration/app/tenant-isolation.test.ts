import { useTestRedis } from '../../helpers/use-test-redis';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { ExportFiles } from '@/jobs/maintenance/exports/export-files';
import { TenantExporter } from '@/jobs/maintenance/exports/tenant-exporter';
import type { AppError } from '@/lib/errors/app-error';
import { PermanentError } from '@/lib/errors/permanent-error';
import type { JobEnvelope } from '@/lib/jobs/envelope';
import type { JobTypeName } from '../../helpers/shipped-jobs';
import { readyClient } from '@/lib/redis/connection';
import { makeBullpen } from '../../helpers/make-bullpen';
import { refusal as anyRefusal } from '../../helpers/refusal';

/*
 * Tenant ids name folders under the data directory, and an edit-and-replay may fix a
 * payload but never retarget it (docs/security.md). Each case below escaped or
 * retargeted before the fix.
 */

/** Every tenant refusal here is the payload's validation, before anything is written. */
async function refusal(work: Promise<unknown>): Promise<AppError> {
  const err = await anyRefusal(work);
  expect(err.code).toBe('VALIDATION');
  return err;
}

let bullpen: Bullpen;
let dataDir: string;
let seq = 0;

const server = useTestRedis();
beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'bullpen-tenant-'));
  bullpen = makeBullpen(server.redis, { env: { BULLPEN_DATA_DIR: dataDir } });
  await readyClient(bullpen.redis);
  // What must survive: the data directory's own secrets beside exports/, and another tenant's export.
  await writeFile(path.join(dataDir, 'admin-password'), 'secret\n');
  await mkdir(path.join(dataDir, 'exports', 'globex', 'data-1'), { recursive: true });
  await writeFile(path.join(dataDir, 'exports', 'globex', 'data-1', 'manifest.json'), JSON.stringify({ tenant: { orgId: 'globex' } }));
});
afterEach(async () => {
  await bullpen.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function untouched(): Promise<void> {
  expect(await readFile(path.join(dataDir, 'admin-password'), 'utf8')).toBe('secret\n');
  expect(await readdir(path.join(dataDir, 'exports', 'globex'))).toEqual(['data-1']);
}

/** A dead letter of `type` whose job carried `payload` for `orgId`. */
async function deadLetter(type: JobTypeName, payload: Record<string, unknown>, orgId: string): Promise<string> {
  seq++;
  const envelope: JobEnvelope = { payload, tenant: { orgId }, requestId: `req-${seq}`, dispatchedAt: Date.now() };
  const { id } = await bullpen.dlq.record({
    queue: type,
    jobId: `job-${seq}`,
    jobType: type,
    jobData: envelope,
    error: { message: 'boom', errorClass: 'network' },
    attempts: 3,
    failedAt: Date.now(),
    tenant: { orgId },
    source: 'runtime',
  });
  return id;
}

describe('tenant ids never leave their folder', () => {
  it('an export for org ".." or "." writes nothing outside exports/<org>/', async () => {
    const exporter = new TenantExporter(TenantExporter.rootFor(dataDir));
    for (const orgId of ['..', '.', '../..']) {
      await expect(
        exporter.run({ kind: 'data', exportId: 'data-x', tenant: { orgId }, jobId: 'x', sources: [], now: Date.now() }),
      ).rejects.toBeInstanceOf(PermanentError);
    }
    expect((await readdir(dataDir)).sort()).toEqual(['admin-password', 'exports']);
    await untouched();
  });

  it('deleting org "." or ".." deletes no other tenant’s exports and not the data directory', async () => {
    const files = new ExportFiles(TenantExporter.rootFor(dataDir));
    for (const orgId of ['.', '..']) {
      await expect(files.deleteByTenant({ orgId })).rejects.toBeInstanceOf(PermanentError);
    }
    await untouched();
  });

  it('edit-and-replay of a data-deletion dead letter with {"orgId":".."} is refused and changes nothing', async () => {
    const id = await deadLetter('data-deletion', { orgId: 'acme' }, 'acme');
    const before = await bullpen.dlq.get(id);
    const err = await refusal(bullpen.dlq.replay(id, { by: 'op', payload: { orgId: '..' } }));
    expect(err.message).toMatch(/orgId/);
    expect(await bullpen.dlq.get(id)).toEqual(before);
    expect(await bullpen.queues.get('data-deletion').getJobCountByTypes('waiting', 'prioritized', 'delayed')).toBe(0);
    await untouched();
  });
});

describe('edit-and-replay cannot retarget a job', () => {
  it('refuses pointing a webhook dead letter at another webhook, naming the field; nothing changes', async () => {
    await bullpen.webhooks.create({ id: 'wh-acme', url: 'http://127.0.0.1:9/acme' });
    await bullpen.webhooks.create({ id: 'wh-globex', url: 'http://127.0.0.1:9/globex' });
    const original = { webhookId: 'wh-acme', event: 'invoice.paid', payload: { invoiceId: 77 } };
    const id = await deadLetter('webhook-dispatch', original, 'acme');
    const before = await bullpen.dlq.get(id);

    const err = await refusal(bullpen.dlq.replay(id, { by: 'op', payload: { ...original, webhookId: 'wh-globex' } }));
    expect(err.message).toMatch(/locked field webhookId/);
    expect(err.details?.lockedFields).toEqual(['webhookId']);
    expect(await bullpen.dlq.get(id)).toEqual(before);
    expect(await bullpen.queues.get('webhook-dispatch').getJobCountByTypes('waiting', 'prioritized', 'delayed')).toBe(0);
  });

  it('refuses adding or changing the tenant in the payload', async () => {
    const id = await deadLetter('data-export', { orgId: 'acme' }, 'acme');
    await refusal(bullpen.dlq.replay(id, { by: 'op', payload: { orgId: 'globex' } }));
    await refusal(bullpen.dlq.replay(id, { by: 'op', payload: { orgId: 'acme', workspaceId: 'other' } }));
    expect((await bullpen.dlq.get(id))?.status).toBe('pending');
  });

  it('still replays an edit of a field that is not locked', async () => {
    const original = { webhookId: 'wh-acme', event: 'invoice.paid', payload: { invoiceId: 77 } };
    const id = await deadLetter('webhook-dispatch', original, 'acme');
    const entry = await bullpen.dlq.replay(id, { by: 'op', payload: { ...original, payload: { invoiceId: 78 } } });
    expect(entry.status).toBe('replayed');
    const job = await bullpen.queues.get('webhook-dispatch').getJob(entry.replays[0].newJobId);
    expect((job?.data as JobEnvelope).payload).toMatchObject({ webhookId: 'wh-acme', payload: { invoiceId: 78 } });
    expect((job?.data as JobEnvelope).tenant).toEqual({ orgId: 'acme' });
  });
});
