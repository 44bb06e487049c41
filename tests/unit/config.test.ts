import { describe, expect, it } from 'vitest';
import { ConfigError, configSchema, loadConfig } from '@/lib/config';

describe('configuration', () => {
  it('needs nothing: every variable has a default', () => {
    const c = loadConfig({});
    expect(c.REDIS_URL).toBeUndefined();
    expect(c.BULLPEN_PREFIX).toBe('bullpen');
    // The metric prefix is the application's unless set (tests/unit/app/applications.test.ts).
    expect(c.METRICS_PREFIX).toBeUndefined();
    expect(c.BULLPEN_APP).toBe('shipped');
    expect(c.dataDir).toMatch(/\.data$/);
  });

  it('refuses a wrong value naming the variable and the rule', () => {
    expect(() => loadConfig({ REDIS_URL: 'localhost:6379' })).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_URL: 'localhost:6379' })).toThrow(/REDIS_URL: must start with redis:\/\//);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000,nope' })).toThrow(/REDIS_CLUSTER_NODES.*host:port/);
    expect(() => loadConfig({ SCHEDULE_REPAIR_INTERVAL_MS: '500' })).toThrow(
      /SCHEDULE_REPAIR_INTERVAL_MS: either 0 \(off\) or at least 1000/,
    );
    expect(loadConfig({ SCHEDULE_REPAIR_INTERVAL_MS: '0' }).SCHEDULE_REPAIR_INTERVAL_MS).toBe(0);
    expect(loadConfig({}).SCHEDULE_REPAIR_INTERVAL_MS).toBe(60_000);
  });

  it("holds the runtime's settings only: an application's are its own (jobs/settings.ts)", () => {
    const c = loadConfig({ SLACK_TOKEN: 'xoxb-1', EMBEDDINGS_MODEL: 'm' });
    for (const name of [
      'EMBEDDINGS_URL',
      'EMBEDDINGS_API_KEY',
      'EMBEDDINGS_MODEL',
      'LLM_URL',
      'LLM_API_KEY',
      'LLM_MODEL',
      'SLACK_TOKEN',
      'SLACK_BASE_URL',
    ]) {
      expect(Object.keys(configSchema.shape)).not.toContain(name);
      expect(c).not.toHaveProperty(name);
    }
    // ...but keeps the variables it was read from, where an application reads its own.
    expect(c.env).toMatchObject({ SLACK_TOKEN: 'xoxb-1', EMBEDDINGS_MODEL: 'm' });
  });

  it('parses lists and numbers', () => {
    const c = loadConfig({ REDIS_CLUSTER_NODES: '127.0.0.1:7000, 127.0.0.1:7001', SHUTDOWN_GRACE_MS: '500' });
    expect(c.REDIS_CLUSTER_NODES).toEqual(['127.0.0.1:7000', '127.0.0.1:7001']);
    expect(c.SHUTDOWN_GRACE_MS).toBe(500);
  });
});
