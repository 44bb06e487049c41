import { SignInPage } from './pages/sign-in-page';
import { QueuePage } from './pages/queue-page';
import { expect, saveScreenshot, test } from './fixtures';

/*
 * Issue 7's sign-in findings, through the real dashboard server: sign-out revokes the
 * session server-side, a script CSP with a nonce is in force, and X-Forwarded-For from a
 * browser (no TRUSTED_PROXIES here) is neither believed by the throttle nor logged.
 */

test('sign-out revokes the session: a copy of the cookie stops working at once', async ({ page, signIn, e2e, browser }) => {
  const shell = await signIn('operator');
  const cookies = await page.context().cookies();
  const thief = await browser.newContext({ baseURL: e2e.baseURL });
  try {
    await thief.addCookies(cookies);
    const before = await thief.request.get('/api/live/overview');
    expect(before.status()).toBe(200);

    await shell.signOut();
    await expect(page).toHaveURL(/\/sign-in/);
    const after = await thief.request.get('/api/live/overview');
    expect(after.status()).toBe(401);
    const thiefPage = await thief.newPage();
    await thiefPage.goto('/');
    await expect(thiefPage).toHaveURL(/\/sign-in/);
  } finally {
    await thief.close();
  }
});

test('a poll the server answers from its cache says what the route says, and only to an open session', async ({
  page,
  signIn,
  e2e,
  browser,
}) => {
  await signIn('viewer');
  // A filter no page has asked for: the first request is the route handler's (which loads it), the next the server's.
  const path = `/api/live/queues/webhook-dispatch?state=completed&tenant=e2e-${Date.now()}`;
  const first = await page.request.get(path);
  const second = await page.request.get(path);
  expect(first.status()).toBe(200);
  expect(second.status()).toBe(200);
  expect(first.headers()['server-timing']).toBeUndefined();
  expect(second.headers()['server-timing']).toContain('live-cache');
  // Within the cache's 1.5 s both are the same read: the same bytes, the same headers that matter.
  expect(await second.text()).toBe(await first.text());
  for (const h of ['content-type', 'cache-control', 'x-content-type-options', 'x-frame-options']) {
    expect(second.headers()[h], h).toBe(first.headers()[h]);
  }
  // No cookie: the route's own 401, not the cached value.
  const stranger = await browser.newContext({ baseURL: e2e.baseURL });
  try {
    const refused = await stranger.request.get(path);
    expect(refused.status()).toBe(401);
    expect(refused.headers()['server-timing']).toBeUndefined();
  } finally {
    await stranger.close();
  }
});

test('pages carry a nonce script CSP without unsafe-inline, and still hydrate under it', async ({ page, signIn }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to (execute|load)/i.test(m.text())) violations.push(m.text());
  });
  const response = await page.goto('/sign-in');
  const csp = response?.headers()['content-security-policy'] ?? '';
  const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src')) ?? '';
  expect(scriptSrc).toMatch(/'nonce-[A-Za-z0-9+/=]{16,}'/);
  expect(scriptSrc).not.toContain("'unsafe-inline'");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("object-src 'none'");
  // Plain http here: no HSTS (it is sent only when the browser came over https).
  expect(response?.headers()['strict-transport-security']).toBeUndefined();
  const nonce = /'nonce-([^']+)'/.exec(scriptSrc)?.[1];
  const inline = await page.locator('script:not([src])').evaluateAll((els) => els.map((e) => (e as HTMLScriptElement).nonce));
  expect(inline.length).toBeGreaterThan(0);
  for (const n of inline) expect(n).toBe(nonce);
  // A fresh nonce per response.
  const again = await page.request.get('/sign-in');
  expect(again.headers()['content-security-policy']).not.toBe(csp);

  // Hydrated: the client-side form works (sign-in is a server action from React).
  const shell = await signIn('viewer');
  await expect(shell.currentUser).toBeVisible();
  expect(violations).toEqual([]);
});

test('a rotating X-Forwarded-For from the browser neither dodges the throttle nor reaches the audit log', async ({ page, bullpen }) => {
  const started = Date.now();
  const name = `nobody-${started.toString(36)}`;
  const form = new SignInPage(page);
  await form.goto();
  const messages: string[] = [];
  // Three free failures, then delays of 1 s, 2 s, 4 s... for this (name, client) pair: a
  // browser-chosen X-Forwarded-For per attempt would make each look like a new client.
  for (let i = 0; i < 8; i++) {
    await page.setExtraHTTPHeaders({ 'x-forwarded-for': `192.0.2.${i + 1}` });
    const answered = page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname === '/sign-in');
    await form.submitCredentials(name, 'wrong-password-1');
    await answered;
    await expect(form.submit).toBeEnabled();
    await expect(form.error).toBeVisible();
    messages.push((await form.error.textContent()) ?? '');
  }
  await saveScreenshot(page, 'sign-in-throttled');
  expect(messages.slice(0, 3)).toEqual(Array(3).fill(expect.stringContaining('Wrong user name or password')));
  expect(messages.filter((m) => /Too many failed sign-ins for this name from your address/.test(m)).length).toBeGreaterThan(0);

  // One pair was counted, under the socket's address; none under the forged ones. At
  // least the three free failures land on it (an attempt refused during a delay is not
  // a failure, so how many more depends on how fast the browser typed).
  const pair = (client: string) => bullpen.keys.tagged('auth', 'fail', 'pair', name, client);
  expect(Number(await bullpen.redis.hget(pair('127.0.0.1'), 'fails'))).toBeGreaterThanOrEqual(3);
  for (let i = 1; i <= 8; i++) expect(await bullpen.redis.exists(pair(`192.0.2.${i}`))).toBe(0);

  // Refused sign-ins are counted per client per minute, apart from the operators' audit
  // (docs/security.md): none of the eight is an audit entry, and their rows name the
  // socket's address, never a forged one, and never the password.
  const { entries } = await bullpen.audit.page({ limit: 200 });
  expect(entries.filter((e) => e.action.startsWith('auth.sign-in-failed'))).toEqual([]);
  const { rows } = await bullpen.signInFailures.page({ limit: 100 });
  const recent = rows.filter((r) => r.minute >= started - 60_000);
  const fromSocket = recent.filter((r) => r.client === '127.0.0.1');
  expect(fromSocket.reduce((n, r) => n + (r.count ?? 0), 0)).toBeGreaterThanOrEqual(8);
  expect(recent.filter((r) => r.client.startsWith('192.0.2.'))).toEqual([]);
  expect(JSON.stringify(rows)).not.toContain('wrong-password-1');
});

test('a button pressed after the session ended changes nothing and leads back through sign-in', async ({ page, signIn }) => {
  await signIn('operator');
  const queue = new QueuePage(page, 'webhook-dispatch');
  await queue.goto();
  await expect(queue.pauseButton).toBeVisible();
  // The session ends while the page is open (expiry, sign-out in another tab), and the
  // operator presses a button before the page's 3 s poll notices: the refused action (a
  // real 401) sends the browser to sign in, with the way back in `next`.
  await page.route('**/api/live/**', (route) => (route.request().url().includes('/api/live/session') ? route.continue() : route.abort()));
  await page.context().clearCookies();
  await queue.pauseButton.click();
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fqueues%2Fwebhook-dispatch$/);
  await expect(page.getByText(/React error/)).toHaveCount(0);
  await page.unroute('**/api/live/**');
  // Signing in again brings the operator back to the queue, still running: the refused pause did nothing.
  await signIn('operator', '/queues/webhook-dispatch');
  await expect(queue.pauseButton).toBeVisible();
  await expect(queue.resumeButton).toHaveCount(0);
});
