import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOG_MAX_LENGTH } from '@/jobs/embedding/vectors/vector-scripts';
import { luaDirs, staleLuaModules } from '@/scripts/lua-bundle';

const root = path.resolve(__dirname, '../../..');

function luaFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.lua'))
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

describe('the Lua scripts', () => {
  const files = [...luaFiles('lib'), ...luaFiles('dashboard'), ...luaFiles('jobs')];

  it('live in .lua files, each plain Lua (no template left from a TypeScript string)', () => {
    expect(files.length).toBeGreaterThanOrEqual(35);
    for (const f of files) expect(readFileSync(path.join(root, f), 'utf8'), f).not.toMatch(/\$\{|`/);
  });

  it('are all run through LuaCommand: no raw EVAL is left in the TypeScript', () => {
    const ts = [
      ...readdirSync(path.join(root, 'lib'), { recursive: true }),
      ...readdirSync(path.join(root, 'dashboard'), { recursive: true }).map((f) => `../dashboard/${f}`),
      ...readdirSync(path.join(root, 'jobs'), { recursive: true }).map((f) => `../jobs/${f}`),
    ]
      .map(String)
      .filter((f) => f.endsWith('.ts'));
    for (const f of ts) expect(readFileSync(path.join(root, 'lib', f), 'utf8'), f).not.toMatch(/\.eval(sha)?\(|import\.meta/);
  });

  it('are bundled into each folder’s lua/index.ts as they are (npm run lua), in every folder that has them', () => {
    expect(luaDirs(root)).toEqual(
      expect.arrayContaining(['lib/dlq/lua', 'lib/redis/lua', 'dashboard/auth/lua', 'jobs/memory/memories/lua']),
    );
    expect(staleLuaModules(root)).toEqual([]);
  });

  it('cap the vector change log at the length the TypeScript names', () => {
    const log = readFileSync(path.join(root, 'jobs/embedding/vectors/lua/vector-append-log.lua'), 'utf8');
    expect(log).toContain(`'MAXLEN', '~', ${LOG_MAX_LENGTH},`);
  });
});
