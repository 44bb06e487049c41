import { describe, expect, it } from 'vitest';
import { sendTestEvent } from '@/dashboard/webhooks/webhook-operations';
import { readWebhookDetail } from '@/dashboard/webhooks/webhooks-read';
import { useTestRedis } from '../helpers/use-test-redis';

/*
 * The dashboard names no job type: the application says which of its types delivers
 * webhooks (webhookJobType), and the webhooks page gets it from the server as data.
 */
describe('the type that delivers webhooks', () => {
  const server = useTestRedis();

  it('is the application’s: the page reads it, and a test event is a job of that type', async () => {
    const bullpen = await server.readyBullpen({ webhookJobType: 'notify' });
    const hook = await bullpen.webhooks.create({ url: 'https://hooks.example.com/in', maxFailures: 1_000 });
    expect((await readWebhookDetail(bullpen, hook.id, 1)).deliveryJobType).toBe('notify');
    const { jobId } = await sendTestEvent(bullpen, hook.id, 'olivia');
    expect(await bullpen.queues.get('notify').getJob(jobId)).toBeDefined();
  });

  it('is none when the application names none: no links, and a test event is refused, queueing nothing', async () => {
    const bullpen = await server.readyBullpen({ webhookJobType: undefined });
    const hook = await bullpen.webhooks.create({ url: 'https://hooks.example.com/in', maxFailures: 1_000 });
    expect((await readWebhookDetail(bullpen, hook.id, 1)).deliveryJobType).toBeNull();
    await expect(sendTestEvent(bullpen, hook.id, 'olivia')).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await bullpen.queues.get('notify').count()).toBe(0);
  });
});
