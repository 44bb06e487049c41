import { describe, expect, it } from 'vitest';
import { explainFailedAction } from '@/components/ui/failed-action';

/** In production the thrown error of a refused server action is a minified React code. */
const opaque = new Error('Minified React error #441; visit https://react.dev/errors/441 for the full message');

describe('explainFailedAction', () => {
  it('says the session has ended when the session probe answers 401', async () => {
    const r = await explainFailedAction(opaque, async () => ({ status: 401 }));
    expect(r).toMatchObject({ ok: false, code: 'UNAUTHENTICATED' });
    expect(r.ok === false && r.message).toMatch(/session has ended.*nothing was changed.*sign in again/i);
    expect(r.ok === false && r.message).not.toContain('441');
  });

  it('says the dashboard is unreachable when the probe itself fails, without claiming nothing ran', async () => {
    const r = await explainFailedAction(opaque, async () => {
      throw new TypeError('Failed to fetch');
    });
    expect(r).toMatchObject({ ok: false, code: 'UNAVAILABLE' });
    expect(r.ok === false && r.message).toMatch(/may not have run/);
  });

  it('names the signed-in user and never shows a minified React error', async () => {
    const r = await explainFailedAction(opaque, async () => ({ status: 200, user: { username: 'ana', role: 'viewer' } }));
    expect(r).toMatchObject({ ok: false, code: 'INTERNAL' });
    expect(r.ok === false && r.message).toContain('signed in as ana, viewer');
    expect(r.ok === false && r.message).not.toMatch(/441|Minified/);
  });

  it('keeps a readable detail when the session is fine', async () => {
    const r = await explainFailedAction(new Error('socket hang up'), async () => ({
      status: 200,
      user: { username: 'ana', role: 'viewer' },
    }));
    expect(r.ok === false && r.message).toContain('Detail: socket hang up');
  });

  it("says Redis is unreachable, with the server's time, when the session check answers 503 (Resume queue during an outage)", async () => {
    const r = await explainFailedAction(opaque, async () => ({ status: 503, message: 'Redis unreachable since 09:41:18 UTC' }));
    expect(r).toMatchObject({ ok: false, code: 'UNAVAILABLE' });
    expect(r.ok === false && r.message).toMatch(/^Redis unreachable since 09:41:18 UTC: the action could not be carried out/);
    expect(r.ok === false && r.message).not.toMatch(/441|Minified/);
  });

  it('falls back to the error itself on any other answer', async () => {
    const r = await explainFailedAction('boom', async () => ({ status: 500 }));
    expect(r).toEqual({ ok: false, code: 'INTERNAL', message: 'The request failed: boom' });
    const m = await explainFailedAction(opaque, async () => ({ status: 500 }));
    expect(m.ok === false && m.message).not.toMatch(/441|Minified/);
  });
});
