import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bullpen } from '@/lib/bullpen';
import { silentLogger } from '@/lib/logging/logger';
import { WorkerPool } from '@/lib/runtime/worker-pool';
import { useTestRedis } from '../helpers/use-test-redis';

describe('traces (BULLPEN_TRACES)', () => {
  const server = useTestRedis();
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();

  beforeAll(() => {
    // What the OpenTelemetry SDK (worker/tracing.ts) registers: a provider, a context manager and the W3C propagator
    // that carries the dispatch's context inside the job.
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(contextManager.enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  async function runOne(bullpen: Bullpen): Promise<string> {
    const pool = new WorkerPool({
      connection: bullpen.workerConnection(),
      keys: bullpen.keys,
      jobs: bullpen.jobs,
      handlers: { notify: async () => 'delivered' },
      sink: bullpen.dlq,
      alerter: bullpen.alerter,
      logger: silentLogger,
      types: ['notify'],
      telemetry: bullpen.telemetry,
    });
    await pool.start();
    try {
      const { jobId } = await bullpen.dispatcher.dispatch(
        'notify',
        { webhookId: 'w', event: 'traced', payload: {} },
        { tenant: { orgId: 'acme', workspaceId: 'ws1' } },
      );
      await expect.poll(() => bullpen.queues.get('notify').getJobState(jobId), { timeout: 10_000 }).toBe('completed');
      return jobId;
    } finally {
      await pool.close(5_000);
    }
  }

  it('one trace runs from the dispatch to the handler, the job span carrying its id, type, tenant and attempt', async () => {
    exporter.reset();
    const bullpen = await server.readyBullpen({ env: { BULLPEN_TRACES: '1' } });
    const jobId = await runOne(bullpen);
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const producer = spans.find((s) => s.kind === SpanKind.PRODUCER && s.name.includes('notify'));
    const consumer = spans.find((s) => s.kind === SpanKind.CONSUMER && s.attributes['bullpen.job.id'] === jobId);
    expect(producer, spans.map((s) => `${s.name} ${s.kind}`).join(', ')).toBeDefined();
    expect(consumer, spans.map((s) => `${s.name} ${s.kind}`).join(', ')).toBeDefined();
    expect(consumer!.spanContext().traceId).toBe(producer!.spanContext().traceId);
    expect(consumer!.attributes).toMatchObject({
      'bullpen.job.id': jobId,
      'bullpen.job.type': 'notify',
      'bullpen.job.attempt': 1,
      'bullpen.tenant.org_id': 'acme',
      'bullpen.tenant.workspace_id': 'ws1',
    });
  });

  it('is off by default: no span at all', async () => {
    exporter.reset();
    const bullpen = await server.readyBullpen();
    expect(bullpen.telemetry).toBeUndefined();
    await runOne(bullpen);
    await provider.forceFlush();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
