import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ACTION_BODY_BYTES } from '@/dashboard/http/action-body';
import { CLIENT_TOKEN_ENV } from '@/dashboard/http/client-header';

/*
 * next.config.js as Next.js loads it: a function of the phase. A bare `next start` (the
 * production server without the dashboard's own server around it) is refused, since the
 * app would not know its client (docs/security.md, "Running behind a proxy").
 */
type ConfigFn = (phase: string) => { experimental: { serverActions: { bodySizeLimit: string } } };
const loadConfig = () => createRequire(import.meta.url)(path.resolve(import.meta.dirname, '../../next.config.js')) as ConfigFn;
const saved = process.env[CLIENT_TOKEN_ENV];

afterEach(() => {
  if (saved === undefined) delete process.env[CLIENT_TOKEN_ENV];
  else process.env[CLIENT_TOKEN_ENV] = saved;
});

describe('next.config.js', () => {
  it('refuses the production server without the client-address token, naming the supported command', () => {
    delete process.env[CLIENT_TOKEN_ENV];
    expect(() => loadConfig()('phase-production-server')).toThrow(
      /Refusing to start: serve the dashboard with `npm run web` \(or `npm start`\), not a bare `next start`/,
    );
  });

  it('serves with the token set, as scripts/web-server.ts sets it; builds and the dev server never need it', () => {
    delete process.env[CLIENT_TOKEN_ENV];
    expect(loadConfig()('phase-production-build').experimental.serverActions).toBeDefined();
    expect(loadConfig()('phase-development-server').experimental.serverActions).toBeDefined();
    process.env[CLIENT_TOKEN_ENV] = 'a-token';
    expect(loadConfig()('phase-production-server').experimental.serverActions).toBeDefined();
  });

  it('lets Next take the action bodies the proxy takes', () => {
    expect(loadConfig()('phase-production-build').experimental.serverActions.bodySizeLimit).toBe('1mb');
    expect(MAX_ACTION_BODY_BYTES).toBe(1024 * 1024);
  });
});
