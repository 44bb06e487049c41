/**
 * Dashboard users: `npm run users -- add <name> --role viewer|operator|admin`,
 * `list`, `passwd <name>`, `role <name> <role>`, `remove <name>`.
 * A new or changed password is generated and printed once, unless --password-stdin
 * gives one (e.g. `printf %s "$PW" | npm run users -- passwd alice --password-stdin`).
 * Exit codes: 0 done, 1 error (Redis, a conflict), 2 bad arguments.
 */
import { userInfo } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { selectedApp } from '@/applications';
import { createAppBullpen } from '@/lib/app/create-app-bullpen';
import type { Bullpen } from '@/lib/bullpen';
import { generatePassword } from '@/dashboard/auth/password';
import { roleSchema, ROLES, type Role } from '@/dashboard/auth/roles';
import { UserStore } from '@/dashboard/auth/user-store';
import { getConfig } from '@/lib/config';
import { isAppError } from '@/lib/errors/app-error';
import { readyClient } from '@/lib/redis/connection';

export const USAGE = `Usage: npm run users -- <command> [options]

Commands:
  list                         the users and their roles
  add <name> --role <role>     create a user (role: ${ROLES.join(' | ')})
  passwd <name>                set a new password (signs the user out everywhere)
  role <name> <role>           change the role (signs the user out everywhere)
  remove <name>                delete the user

Options:
  --password-stdin             read the password from stdin instead of generating one
  --json                       machine-readable output`;

class UsageError extends Error {}

interface Io {
  out(line: string): void;
  err(line: string): void;
  readStdin(): Promise<string>;
}

const defaultIo: Io = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  },
};

/** Runs one command against `bullpen`; returns the exit code. */
export async function runUsersCommand(
  bullpen: Pick<Bullpen, 'redis' | 'keys' | 'audit'>,
  argv: string[],
  io: Io = defaultIo,
): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      role: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, name, extra] = positionals;
  if (values.help || !command) {
    io.out(USAGE);
    return command ? 0 : 2;
  }
  const users = new UserStore(bullpen.redis, bullpen.keys);
  const actor = `cli:${safeUser()}`;
  const password = async () => (values['password-stdin'] ? io.readStdin() : generatePassword());
  const needName = () => {
    if (!name) throw new UsageError(`${command} needs a user name`);
    return name;
  };
  const audit = (action: string, username: string, details?: Record<string, unknown>) =>
    bullpen.audit.append({ actor, action, target: { kind: 'user', id: username }, details });

  switch (command) {
    case 'list': {
      const list = await users.list();
      if (values.json) io.out(JSON.stringify(list));
      else if (list.length === 0) io.out('No users. Start Bullpen once to create the first admin, or add one.');
      else for (const u of list) io.out(`${u.username.padEnd(24)} ${u.role.padEnd(9)} created ${new Date(u.createdAt).toISOString()}`);
      return 0;
    }
    case 'add': {
      const role = parseRole(values.role);
      const pw = await password();
      const user = await users.create({ username: needName(), role, password: pw });
      await audit('user.add', user.username, { role });
      printPassword(io, user.username, pw, !values['password-stdin'], values.json);
      return 0;
    }
    case 'passwd': {
      const pw = await password();
      await users.setPassword(needName(), pw);
      await audit('user.passwd', needName());
      printPassword(io, needName(), pw, !values['password-stdin'], values.json);
      return 0;
    }
    case 'role': {
      const role = parseRole(extra ?? values.role);
      await users.setRole(needName(), role);
      await audit('user.role', needName(), { role });
      io.out(values.json ? JSON.stringify({ username: needName(), role }) : `${needName()} is now ${role}.`);
      return 0;
    }
    case 'remove': {
      await users.remove(needName());
      await audit('user.remove', needName());
      io.out(values.json ? JSON.stringify({ removed: needName() }) : `Removed ${needName()}.`);
      return 0;
    }
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}

function parseRole(value: string | undefined): Role {
  const r = roleSchema.safeParse(value);
  if (!r.success) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return r.data;
}

function printPassword(io: Io, username: string, password: string, generated: boolean, json?: boolean) {
  if (json) io.out(JSON.stringify(generated ? { username, password } : { username }));
  else if (generated) io.out(`Password for ${username} (shown once): ${password}`);
  else io.out(`Password for ${username} set.`);
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

export async function main(argv: string[]): Promise<number> {
  let bullpen: Bullpen | undefined;
  try {
    const config = getConfig();
    bullpen = createAppBullpen(selectedApp(config), {
      config,
      logger: pino({ level: 'warn', base: { service: 'users-cli' } }, pino.destination(2)),
    });
    await readyClient(bullpen.redis);
    return await runUsersCommand(bullpen, argv);
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith?.('ERR_PARSE_ARGS')) {
      defaultIo.err(`${(err as Error).message}\n\n${USAGE}`);
      return 2;
    }
    defaultIo.err(isAppError(err) ? err.message : `users: ${(err as Error).message}`);
    return 1;
  } finally {
    await bullpen?.close().catch(() => undefined);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`${(err as Error).stack}\n`);
      process.exit(1);
    },
  );
}
