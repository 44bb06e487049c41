import 'server-only';
import { LUA } from './lua';
import { LuaCommand } from '@/lib/redis/lua-command';
import { z } from 'zod';
import { AppError } from '@/lib/errors/app-error';
import type { RedisClient } from '@/lib/redis/connection';
import type { Keyspace } from '@/lib/redis/keys';
import { generatePassword, hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './password';
import { roleSchema, type Role } from './roles';
import { SessionRegistry } from './session-registry';

export const usernameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9][a-z0-9_.-]{1,63}$/, '2-64 characters: letters, digits, _ . - (starting with a letter or digit)');

export const passwordSchema = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(1024, 'at most 1024 characters');

/** A dashboard user as the app sees it; the hash never leaves this module. */
export const userSchema = z.object({
  username: usernameSchema,
  role: roleSchema,
  createdAt: z.number().int(),
  /** Bumped when the password or role changes: sessions sealed with an older epoch are void. */
  sessionEpoch: z.number().int().min(0),
});
export type User = z.infer<typeof userSchema>;

/** Creates the hash and adds the name to the index only if the user does not exist. */
const CREATE_SCRIPT = new LuaCommand('user-create-script', LUA['user-create-script']);

/** A fixed hash verified when a user does not exist, so a miss takes as long as a wrong password. */
let dummyHash: Promise<string> | undefined;

/**
 * Dashboard users in Redis: one hash per user plus a set of names, all under the
 * `auth` hash tag so a create is one atomic script even on a cluster.
 */
export class UserStore {
  private readonly indexKey: string;
  /** The users' open sessions, closed at once when a password or role changes. */
  readonly sessions: SessionRegistry;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keyspace,
  ) {
    this.indexKey = keys.tagged('auth', 'users');
    this.sessions = new SessionRegistry(redis, keys);
  }

  private userKey(username: string): string {
    return this.keys.tagged('auth', 'user', username);
  }

  async count(): Promise<number> {
    return this.redis.scard(this.indexKey);
  }

  async list(): Promise<User[]> {
    const names = (await this.redis.smembers(this.indexKey)).sort();
    const users = await Promise.all(names.map((n) => this.get(n)));
    return users.filter((u): u is User => u !== undefined);
  }

  async get(username: string): Promise<User | undefined> {
    const name = usernameSchema.safeParse(username);
    if (!name.success) return undefined;
    const h = await this.redis.hgetall(this.userKey(name.data));
    return h.username ? toUser(h) : undefined;
  }

  /** Creates a user; refuses an existing name (CONFLICT) or a bad name/role/password (VALIDATION). */
  async create(input: { username: string; role: Role; password: string }): Promise<User> {
    const username = parseOrThrow(usernameSchema, input.username, 'username');
    const role = parseOrThrow(roleSchema, input.role, 'role');
    const password = parseOrThrow(passwordSchema, input.password, 'password');
    const createdAt = Date.now();
    const created = await CREATE_SCRIPT.run(
      this.redis,
      [this.userKey(username), this.indexKey],
      [username, role, await hashPassword(password), String(createdAt)],
    );
    if (created !== 1) throw new AppError('CONFLICT', `User "${username}" already exists`, { username });
    return { username, role, createdAt, sessionEpoch: 0 };
  }

  /** Sets a new password and signs the user out everywhere. */
  async setPassword(username: string, password: string): Promise<void> {
    const user = await this.require(username);
    const hash = await hashPassword(parseOrThrow(passwordSchema, password, 'password'));
    await this.redis
      .multi()
      .hset(this.userKey(user.username), 'passwordHash', hash)
      .hincrby(this.userKey(user.username), 'sessionEpoch', 1)
      .exec();
    await this.sessions.closeAll(user.username);
  }

  /** Changes the role and signs the user out everywhere (a demoted session must not keep its power). */
  async setRole(username: string, role: Role): Promise<void> {
    const user = await this.require(username);
    await this.redis
      .multi()
      .hset(this.userKey(user.username), 'role', parseOrThrow(roleSchema, role, 'role'))
      .hincrby(this.userKey(user.username), 'sessionEpoch', 1)
      .exec();
    await this.sessions.closeAll(user.username);
  }

  /** Removes a user and closes their sessions. */
  async remove(username: string): Promise<void> {
    const user = await this.require(username);
    await this.redis.multi().del(this.userKey(user.username)).srem(this.indexKey, user.username).exec();
    await this.sessions.closeAll(user.username);
  }

  /**
   * The user when `password` is theirs, else undefined. A missing user still costs
   * one scrypt, so response time does not reveal which names exist.
   */
  async verifyCredentials(username: string, password: string): Promise<User | undefined> {
    const name = usernameSchema.safeParse(username);
    const h = name.success ? await this.redis.hgetall(this.userKey(name.data)) : {};
    if (!h.username || !h.passwordHash) {
      dummyHash ??= hashPassword(generatePassword());
      await verifyPassword(password, await dummyHash);
      return undefined;
    }
    return (await verifyPassword(password, h.passwordHash)) ? toUser(h) : undefined;
  }

  private async require(username: string): Promise<User> {
    const user = await this.get(username);
    if (!user) throw new AppError('NOT_FOUND', `No user "${username}"`, { username });
    return user;
  }
}

function toUser(h: Record<string, string>): User {
  return userSchema.parse({
    username: h.username,
    role: h.role,
    createdAt: Number(h.createdAt),
    sessionEpoch: Number(h.sessionEpoch ?? 0),
  });
}

function parseOrThrow<T>(schema: z.ZodType<T>, value: unknown, field: string): T {
  const r = schema.safeParse(value);
  if (!r.success) {
    throw new AppError('VALIDATION', `Invalid ${field}: ${r.error.issues.map((i) => i.message).join('; ')}`, {
      fieldErrors: { [field]: r.error.issues.map((i) => i.message) },
    });
  }
  return r.data;
}
