import { afterEach, describe, expect, it, vi } from 'vitest';
import { installShutdown, SHUTDOWN_EXIT, SHUTDOWN_MESSAGE } from '@/lib/runtime/shutdown';
import type { AbandonedJob } from '@/lib/runtime/worker-pool';
import { capturingLogger } from '../helpers/capturing-logger';

type Listener = (arg: unknown) => void;

/**
 * installShutdown with process.on and process.exit intercepted: the handlers it registers
 * are called by the test instead of by real signals (which would reach the test runner),
 * and each exit code is recorded instead of ending the process.
 */
function install(stop: () => Promise<{ abandoned: readonly AbandonedJob[] }>) {
  const handlers = new Map<string, Listener>();
  vi.spyOn(process, 'on').mockImplementation(((event: string, fn: Listener) => {
    handlers.set(event, fn);
    return process;
  }) as never);
  const exits: Array<number | string | null | undefined> = [];
  vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
    exits.push(code);
  }) as never);
  const { logger, lines } = capturingLogger();
  const stopSpy = vi.fn(stop);
  installShutdown(stopSpy, logger);
  return { handlers, exits, lines, stop: stopSpy };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('installShutdown', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('listens for SIGTERM, SIGINT and the parent’s message', () => {
    const { handlers } = install(async () => ({ abandoned: [] }));
    expect([...handlers.keys()].sort()).toEqual(['SIGINT', 'SIGTERM', 'message']);
  });

  it('a signal stops the pool and exits 0 once every job finished', async () => {
    const { handlers, exits, lines, stop } = install(async () => ({ abandoned: [] }));
    handlers.get('SIGTERM')!('SIGTERM');
    expect(stop).toHaveBeenCalledTimes(1);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 'info', reason: 'SIGTERM', msg: 'shutting down: no new jobs, finishing running ones' }),
    );
    expect(exits).toEqual([]);
    await settle();
    expect(exits[0]).toBe(SHUTDOWN_EXIT.clean);
    expect(SHUTDOWN_EXIT).toEqual({ clean: 0, interrupted: 1, abandoned: 3 });
  });

  it('exits 3 and logs the jobs abandoned when the grace period ran out', async () => {
    const abandoned = [{ id: '7', type: 'send-email' }];
    const { handlers, exits, lines } = install(async () => ({ abandoned }));
    handlers.get('SIGINT')!('SIGINT');
    await settle();
    expect(exits).toEqual([3]);
    const line = lines.find((l) => l.level === 'error');
    expect(line).toMatchObject({ abandoned, exitCode: 3, msg: 'stopped with 1 job(s) abandoned' });
  });

  it('exits 1 when the stop fails', async () => {
    const { handlers, exits, lines } = install(async () => {
      throw new Error('redis gone');
    });
    handlers.get('SIGTERM')!('SIGTERM');
    await settle();
    expect(exits).toEqual([1]);
    expect(lines.find((l) => l.level === 'error')).toMatchObject({ msg: 'shutdown failed', err: { message: 'redis gone' } });
  });

  it('a second signal exits 1 at once, without waiting for the stop', () => {
    const { handlers, exits, lines, stop } = install(() => new Promise(() => {}));
    handlers.get('SIGTERM')!('SIGTERM');
    expect(exits).toEqual([]);
    handlers.get('SIGINT')!('SIGINT');
    expect(exits[0]).toBe(SHUTDOWN_EXIT.interrupted);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', signal: 'SIGINT', msg: 'second signal: exiting now' }));
    expect(stop).toHaveBeenCalled();
  });

  it('the parent’s message starts the same stop; asking again, or after a signal, is no second one', async () => {
    const { handlers, exits, lines, stop } = install(() => new Promise(() => {}));
    handlers.get('message')!('something else');
    expect(stop).not.toHaveBeenCalled();
    handlers.get('message')!(SHUTDOWN_MESSAGE);
    expect(stop).toHaveBeenCalledTimes(1);
    expect(lines).toContainEqual(expect.objectContaining({ reason: 'parent' }));
    handlers.get('message')!(SHUTDOWN_MESSAGE);
    expect(stop).toHaveBeenCalledTimes(1);
    expect(exits).toEqual([]);
    // A signal after the parent's request is the operator's second one.
    handlers.get('SIGTERM')!('SIGTERM');
    expect(exits).toEqual([1]);

    const other = install(() => new Promise(() => {}));
    other.handlers.get('SIGTERM')!('SIGTERM');
    other.handlers.get('message')!(SHUTDOWN_MESSAGE);
    expect(other.stop).toHaveBeenCalledTimes(1);
    expect(other.exits).toEqual([]);
  });
});
