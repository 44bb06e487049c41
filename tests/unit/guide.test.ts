import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const guide = readFileSync(path.join(root, 'docs/guide.md'), 'utf8');

/** Each `<!-- file: p -->` marker and the fenced block right after it. */
function quotedFiles(): Array<{ file: string; code: string }> {
  const out: Array<{ file: string; code: string }> = [];
  for (const m of guide.matchAll(/<!-- file: (\S+) -->\n```ts\n([\s\S]*?)\n```/g)) out.push({ file: m[1], code: m[2] });
  return out;
}

describe('docs/guide.md', () => {
  it('quotes the example app’s files whole and as they are', () => {
    const quoted = quotedFiles();
    expect(quoted.map((q) => q.file)).toEqual([
      'examples/mailer/jobs.ts',
      'examples/mailer/send-email.ts',
      'examples/mailer/send-digest.ts',
      'examples/mailer/outbox.ts',
      'examples/mailer/app.ts',
    ]);
    for (const q of quoted) expect(q.code, q.file).toBe(readFileSync(path.join(root, q.file), 'utf8').trimEnd());
  });

  it('names a script that exists', () => {
    const scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(guide).toContain('npm run example:worker');
    expect(scripts['example:worker']).toBe('BULLPEN_APP=mailer node --import tsx worker/main.ts');
  });
});
