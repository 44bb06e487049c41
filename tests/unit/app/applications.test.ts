import { describe, expect, it } from 'vitest';
import { APPLICATIONS, selectedApp } from '@/applications';
import { mailerApp } from '@/examples/mailer/app';
import { SHIPPED_JOBS } from '@/jobs';
import { shippedApp } from '@/jobs/shipped-app';
import { defineApp, loadAppSettings } from '@/lib/app/app-definition';
import { createAppBullpen } from '@/lib/app/create-app-bullpen';
import { ConfigError, loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/logging/logger';

/** The application a process with `env` runs. */
const appFor = (env: Record<string, string>) => selectedApp(loadConfig(env));

describe('the application root (BULLPEN_APP)', () => {
  it('runs the shipped application by default, and the mailer when named', () => {
    expect(appFor({})).toBe(shippedApp);
    expect(appFor({ BULLPEN_APP: 'shipped' })).toBe(shippedApp);
    expect(appFor({ BULLPEN_APP: 'mailer' })).toBe(mailerApp);
    expect(shippedApp.jobs).toBe(SHIPPED_JOBS);
    expect(mailerApp.jobs.map((j) => j.name)).toEqual(['send-email', 'send-digest']);
  });

  it('names each application of the registry by its own name', () => {
    for (const [name, app] of Object.entries(APPLICATIONS)) expect(app.name).toBe(name);
  });

  it('refuses a name it does not know, listing those it does', () => {
    expect(() => appFor({ BULLPEN_APP: 'billing' })).toThrow(ConfigError);
    expect(() => appFor({ BULLPEN_APP: 'billing' })).toThrow(/BULLPEN_APP: no application is named "billing"; known: shipped, mailer/);
    // Not an own property of the registry: nothing on Object.prototype is an application.
    expect(() => appFor({ BULLPEN_APP: 'constructor' })).toThrow(/no application is named "constructor"/);
  });

  it('refuses a path or a module specifier: the variable names an application, never a file to import', () => {
    for (const value of [
      '../examples/mailer/app',
      '/etc/passwd',
      './jobs/shipped-app.ts',
      '@/examples/mailer/app',
      'Mailer',
      'file:///tmp/x.mjs',
    ]) {
      expect(() => loadConfig({ BULLPEN_APP: value }), value).toThrow(/BULLPEN_APP: an application's name from applications\.ts/);
    }
  });
});

describe("an application's settings", () => {
  it("reads the shipped application's from the same variables and defaults as before", () => {
    expect(loadAppSettings(shippedApp, loadConfig({}))).toEqual({
      EMBEDDINGS_MODEL: 'text-embedding-3-small',
      LLM_MODEL: 'gpt-4o-mini',
      SLACK_BASE_URL: 'https://slack.com/api',
    });
    const set = loadAppSettings(
      shippedApp,
      loadConfig({ SLACK_TOKEN: 'xoxb-1', EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', LLM_MODEL: 'small' }),
    );
    expect(set).toMatchObject({ SLACK_TOKEN: 'xoxb-1', EMBEDDINGS_URL: 'http://127.0.0.1:1/v1', LLM_MODEL: 'small' });
  });

  it('refuses a wrong one naming the variable, as the runtime refuses its own', () => {
    const config = loadConfig({ SLACK_BASE_URL: 'slack.com', LLM_URL: 'nope' });
    expect(() => loadAppSettings(shippedApp, config)).toThrow(ConfigError);
    expect(() => loadAppSettings(shippedApp, config)).toThrow(/SLACK_BASE_URL[\s\S]*LLM_URL|LLM_URL[\s\S]*SLACK_BASE_URL/);
    // Another application does not read them at all.
    expect(loadAppSettings(mailerApp, config)).toEqual({});
  });
});

describe('the webhook delivery type', () => {
  it("is the application's: lib/webhooks names no job type, and a type outside the table is refused", async () => {
    const config = loadConfig({});
    const redis = { host: '127.0.0.1', port: 1 };
    const shipped = createAppBullpen(shippedApp, { config, logger: silentLogger, redis });
    expect(shipped.webhookJobType).toBe('webhook-dispatch');
    const mailer = createAppBullpen(mailerApp, { config, logger: silentLogger, redis });
    expect(mailer.webhookJobType).toBeUndefined();
    await Promise.all([shipped.close(), mailer.close()]);
    expect(() => defineApp({ ...mailerApp, webhookJobType: 'webhook-dispatch' as never })).toThrow(
      /mailer: webhookJobType "webhook-dispatch" is not a type of its job table/,
    );
  });
});

describe('the metric prefix', () => {
  const prefixOf = (app: typeof shippedApp | typeof mailerApp, env: Record<string, string> = {}) =>
    createAppBullpen(app, { config: loadConfig(env), logger: silentLogger, redis: { host: '127.0.0.1', port: 1 } });

  it("is the shipped application's `ruvbot_`, the runtime's `bullpen_` otherwise, and METRICS_PREFIX wins over both", async () => {
    const cases: Array<[typeof shippedApp | typeof mailerApp, Record<string, string>, string]> = [
      [shippedApp, {}, 'ruvbot_'],
      [mailerApp, {}, 'bullpen_'],
      [shippedApp, { METRICS_PREFIX: 'acme_' }, 'acme_'],
      [mailerApp, { METRICS_PREFIX: 'acme_' }, 'acme_'],
    ];
    for (const [app, env, expected] of cases) {
      const bullpen = prefixOf(app, env);
      expect(bullpen.metricsPrefix, `${app.name} ${JSON.stringify(env)}`).toBe(expected);
      await bullpen.close();
    }
  });
});
