import { spawn } from 'node:child_process';
import path from 'node:path';
import type { APIRequestContext, APIResponse } from '@playwright/test';
import { CLIENT_TOKEN_ENV } from '@/dashboard/http/client-header';
import { FORWARDED_STATUS_HEADER } from '@/dashboard/http/forwarded-action';
import { freePort } from '@/lib/redis/embedded-server';
import { expect, test } from './fixtures';
import { buildActions } from './support/fuzz-targets';

/*
 * Issue 21's low findings about requests, against the real dashboard server: a request
 * that Next.js would fail on is a 400 (or 413) from proxy.ts, every answer keeps its CSP,
 * prefetches included, an action posted to another page's path answers with its real
 * 401/403, and a bare `next start` refuses to start (docs/security.md).
 */
const ROOT = path.resolve(__dirname, '../..');
const QUEUE = 'webhook-dispatch';

function action(name: string) {
  const found = buildActions(ROOT).find((a) => a.name === name);
  if (!found) throw new Error(`no server action ${name} in the build`);
  return found;
}

/** A server action call as a script would send it: a Next-Action header and this body. */
function post(
  request: APIRequestContext,
  url: string,
  id: string,
  baseURL: string,
  body: { data?: string; multipart?: Record<string, string>; contentType?: string; headers?: Record<string, string> },
): Promise<APIResponse> {
  return request.post(url, {
    headers: {
      ...(id ? { 'next-action': id } : {}),
      ...(body.contentType ? { 'content-type': body.contentType } : {}),
      accept: 'text/x-component',
      origin: baseURL,
      ...body.headers,
    },
    data: body.data,
    multipart: body.multipart,
    maxRedirects: 0,
    failOnStatusCode: false,
  });
}

function expectCsp(res: APIResponse, what: string): void {
  expect(res.headers()['content-security-policy'], `${what}: no CSP`).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
}

test('malformed action bodies and paths are a 400 with the CSP, never a 500', async ({ contextAs, e2e }) => {
  const { context } = await contextAs('admin');
  const pause = action('pauseQueue');
  const signIn = action('signIn');
  const page = `/queues/${QUEUE}`;
  const text = 'text/plain;charset=UTF-8';
  const cases: Array<[string, string, Parameters<typeof post>[4], number]> = [
    ['a 300k-element array', pause.id, { data: `[${Array.from({ length: 300_000 }, () => '0').join(',')}]`, contentType: text }, 400],
    ['a nesting 100k deep', pause.id, { data: `${'['.repeat(100_000)}${']'.repeat(100_000)}`, contentType: text }, 400],
    ['arguments that are not an array', pause.id, { data: '"queue"', contentType: text }, 400],
    ['a BigInt of 350 digits', pause.id, { data: `["$n${'1'.repeat(350)}"]`, contentType: text }, 400],
    ['non-JSON sent as a prefetch', pause.id, { data: 'not json', contentType: text, headers: { 'next-router-prefetch': '1' } }, 400],
    ['non-JSON with Purpose: prefetch', pause.id, { data: 'not json', contentType: text, headers: { purpose: 'prefetch' } }, 400],
    ['non-JSON as application/json', pause.id, { data: 'not json', contentType: 'application/json' }, 400],
    ['non-JSON with no content type', pause.id, { data: 'not json' }, 400],
    ['a multipart reference to a missing part', pause.id, { multipart: { '0': '["$1"]' } }, 400],
    ['a multipart Map of a missing part', pause.id, { multipart: { '0': '["$Q1"]' } }, 400],
    ['a multipart body without its arguments', pause.id, { multipart: { x: '1' } }, 400],
    [
      'a form descriptor bound to a missing part',
      '',
      { multipart: { $ACTION_REF_1: '', '$ACTION_1:0': `{"id":"${signIn.id}","bound":"$@5"}`, $ACTION_KEY: 'k1' } },
      400,
    ],
    ['a body over 1 MiB', pause.id, { data: `["${'a'.repeat(1_100_000)}"]`, contentType: text }, 413],
  ];
  for (const [what, id, body, status] of cases) {
    const res = await post(context.request, what.startsWith('a form') ? '/sign-in' : page, id, e2e.baseURL, body);
    expect(res.status(), `${what} answered ${res.status()}: ${(await res.text()).slice(0, 200)}`).toBe(status);
    expectCsp(res, what);
  }
  for (const url of [`/queues/%ZZ`, `/queues/${QUEUE}/jobs/%ZZ`, '/dead-letters/%E0%A4%A']) {
    const res = await context.request.get(url, { maxRedirects: 0, failOnStatusCode: false });
    expect(res.status(), `GET ${url}`).toBe(400);
    expectCsp(res, url);
  }
  // What the pages send still goes through: a well-formed call refused by the action's own schema.
  const valid = await post(context.request, page, pause.id, e2e.baseURL, { data: '[{"queue":"no-such-queue"}]', contentType: text });
  expect(valid.status()).toBe(200);
  expect(await valid.text()).toContain('"ok":false');
});

test('the sign-in form posted before hydration still signs in: the proxy takes what the page renders', async ({ playwright, e2e }) => {
  const request = await playwright.request.newContext({ baseURL: e2e.baseURL });
  try {
    const html = await (await request.get('/sign-in')).text();
    const decode = (v: string) =>
      v.replaceAll('&quot;', '"').replaceAll('&#x27;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
    const hidden: Record<string, string> = {};
    for (const m of html.matchAll(/<input type="hidden" name="([^"]+)"(?: value="([^"]*)")?/g)) hidden[decode(m[1])] = decode(m[2] ?? '');
    // The form's own action fields, as React renders them for a form with state.
    expect(Object.keys(hidden)).toEqual(expect.arrayContaining(['$ACTION_REF_1', '$ACTION_1:0', '$ACTION_1:1', '$ACTION_KEY']));
    const { username, password } = e2e.users.viewer;
    const res = await post(request, '/sign-in', '', e2e.baseURL, { multipart: { ...hidden, username, password } });
    expect(res.status(), (await res.text()).slice(0, 200)).toBe(303);
    expect(res.headers()['set-cookie']).toMatch(/bullpen_session=/);
  } finally {
    await request.dispose();
  }
});

test('a prefetched page carries its CSP', async ({ contextAs, playwright, e2e }) => {
  const { context } = await contextAs('viewer');
  const anonymous = await playwright.request.newContext({ baseURL: e2e.baseURL });
  try {
    for (const headers of [{ purpose: 'prefetch' }, { 'next-router-prefetch': '1' }, { 'next-router-prefetch': '1', rsc: '1' }] as Array<
      Record<string, string>
    >) {
      for (const [request, url] of [
        [anonymous, '/sign-in'],
        [context.request, '/'],
        [context.request, `/queues/${QUEUE}`],
      ] as const) {
        const res = await request.get(url, { headers, maxRedirects: 0, failOnStatusCode: false });
        expect(res.status(), `${url} ${JSON.stringify(headers)}`).toBeLessThan(500);
        expectCsp(res, `${url} ${JSON.stringify(headers)}`);
      }
    }
  } finally {
    await anonymous.dispose();
  }
});

test('an action posted to another page’s path answers with its real 401 or 403', async ({ contextAs, playwright, e2e }) => {
  const pause = action('pauseQueue');
  const body = { data: `[{"queue":"${QUEUE}"}]`, contentType: 'text/plain;charset=UTF-8' };
  const { context: viewer } = await contextAs('viewer');
  const anonymous = await playwright.request.newContext({ baseURL: e2e.baseURL });
  try {
    // On its own page, as a reference.
    expect((await post(viewer.request, `/queues/${QUEUE}`, pause.id, e2e.baseURL, body)).status()).toBe(403);
    for (const url of ['/schedules', '/dead-letters', '/audit']) {
      const asViewer = await post(viewer.request, url, pause.id, e2e.baseURL, body);
      expect(asViewer.status(), `viewer at ${url}: ${(await asViewer.text()).slice(0, 200)}`).toBe(403);
      expect(asViewer.headers()[FORWARDED_STATUS_HEADER]).toBeUndefined();
      const asNobody = await post(anonymous, url, pause.id, e2e.baseURL, body);
      expect(asNobody.status(), `anonymous at ${url}`).toBe(401);
    }
  } finally {
    await anonymous.dispose();
  }
  // An admin's call forwarded the same way still runs: refused by the schema, as on its own page.
  const { context: admin } = await contextAs('admin');
  const res = await post(admin.request, '/schedules', pause.id, e2e.baseURL, { ...body, data: '[{"queue":"no-such-queue"}]' });
  expect(res.status()).toBe(200);
  expect(await res.text()).toContain('"ok":false');
});

test('a bare `next start` refuses to start and names the supported command', async ({ e2e }) => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...e2e.env };
  delete env[CLIENT_TOKEN_ENV];
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'node_modules/next/dist/bin/next'), 'start', '-H', '127.0.0.1', '-p', String(port)],
    {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearTimeout(timer);
  expect(code, out).toBe(1);
  expect(out).toContain('Refusing to start: serve the dashboard with `npm run web` (or `npm start`), not a bare `next start`');
  expect((await fetch(`http://127.0.0.1:${port}/sign-in`).catch(() => undefined))?.status).toBeUndefined();
});
