import { NodeSDK } from '@opentelemetry/sdk-node';

/**
 * The OpenTelemetry SDK for a worker process with BULLPEN_TRACES on: BullMQ's spans
 * (bullmq-otel, lib/telemetry/tracing.ts) are exported where the standard variables say
 * (OTEL_TRACES_EXPORTER, OTEL_EXPORTER_OTLP_ENDPOINT, ...; OTLP over HTTP by default).
 * Started before the first queue or worker, flushed on shutdown.
 */
export function startTracing(serviceName: string): { shutdown(): Promise<void> } {
  const sdk = new NodeSDK({ serviceName });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
