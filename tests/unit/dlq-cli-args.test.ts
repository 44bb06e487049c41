import { describe, expect, it } from 'vitest';
import { MAILER_JOBS } from '@/examples/mailer/jobs';
import { parseCliArgs, UsageError } from '@/scripts/dlq';
import { TEST_JOBS } from '../helpers/test-jobs';

/** The command line of an application with the test table's types. */
const parse = (argv: string[]) =>
  parseCliArgs(
    argv,
    TEST_JOBS.map((j) => j.name),
  );
const bad = (...argv: string[]) => expect(() => parse(argv)).toThrow(UsageError);

describe('dlq CLI arguments', () => {
  it('parses filters, limits and flags', () => {
    expect(
      parse(['replay', '--status', 'pending', '--type', 'notify', '--tenant', 'org-a', '--error-class', 'timeout', '--limit', '100']),
    ).toMatchObject({
      command: 'replay',
      status: 'pending',
      type: 'notify',
      tenant: 'org-a',
      errorClass: 'timeout',
      limit: 100,
      json: false,
      yes: false,
    });
    expect(parse(['list', '--json'])).toMatchObject({ command: 'list', json: true });
    expect(parse(['purge', '--type', 'erase', '--yes'])).toMatchObject({ command: 'purge', yes: true });
    expect(parse(['--help'])).toBe('help');
  });

  it('reads the source plan’s --status failed as pending', () => {
    expect(parse(['replay', '--status', 'failed'])).toMatchObject({ status: 'pending' });
  });

  it('parses an edited payload for one replay', () => {
    const id = 'dlq-0123456789abcdef01234567';
    expect(parse(['replay', '--id', id, '--payload', '{"webhookId":"w"}', '--again'])).toMatchObject({
      id,
      payload: { webhookId: 'w' },
      again: true,
    });
  });

  it('refuses bad arguments with the reason', () => {
    bad();
    bad('frobnicate');
    bad('list', 'replay');
    bad('list', '--colour');
    bad('list', '--status', 'lost');
    bad('list', '--type', 'no-such-type');
    bad('list', '--error-class', 'gremlins');
    bad('list', '--limit', '0');
    bad('list', '--limit', 'ten');
    bad('list', '--limit', '201');
    bad('replay', '--limit', '10001');
    bad('replay', '--id', 'not-an-id');
    bad('replay', '--id', 'dlq-0123456789abcdef01234567', '--payload', '{nope');
    bad('replay', '--payload', '{}');
    bad('discard', '--id', 'dlq-0123456789abcdef01234567', '--type', 'notify');
    bad('replay', '--cursor', 'x');
    bad('list', '--cursor', 'x');
    bad('list', '--cursor', '12:dlq-nothex');
    bad('purge', '--type', 'notify');
    bad('purge', '--id', 'dlq-0123456789abcdef01234567', '--yes');
    expect(() => parse(['purge'])).toThrow(/--yes/);
  });

  it("takes the types of the application it runs for, not another's", () => {
    const mailer = MAILER_JOBS.map((j) => j.name);
    expect(parseCliArgs(['list', '--type', 'send-email'], mailer)).toMatchObject({ type: 'send-email' });
    expect(() => parseCliArgs(['list', '--type', 'notify'], mailer)).toThrow(/not a job type of this application/);
  });
});
