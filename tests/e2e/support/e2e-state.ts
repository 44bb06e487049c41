import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Name of the environment variable through which global setup hands its state file to the tests. */
export const STATE_ENV = 'BULLPEN_E2E_STATE';

const credentials = z.object({ username: z.string(), password: z.string() });

/** What global setup started, for the fixtures: addresses, key prefix, users. */
export const e2eStateSchema = z.object({
  /** The dashboard, `http://127.0.0.1:<port>`. */
  baseURL: z.string().url(),
  redisPort: z.number().int(),
  /** BULLPEN_PREFIX of this run: every key it writes starts with it. */
  prefix: z.string(),
  /** BULLPEN_DATA_DIR of this run (a temp dir, removed at teardown). */
  dataDir: z.string(),
  /** The environment the worker and the dashboard run with. */
  env: z.record(z.string(), z.string()),
  /** The loopback control endpoint that stops and starts the worker (support/control-server.ts). */
  controlUrl: z.string().url(),
  /** Where the worker's and dashboard's output goes. */
  logDir: z.string(),
  users: z.object({ admin: credentials, operator: credentials, viewer: credentials }),
});
export type E2eState = z.infer<typeof e2eStateSchema>;
export type E2eRole = keyof E2eState['users'];

let cached: E2eState | undefined;

/** The state global setup wrote; throws with a hint when the suite runs without it. */
export function readE2eState(): E2eState {
  if (cached) return cached;
  const file = process.env[STATE_ENV];
  if (!file) throw new Error(`${STATE_ENV} is not set: run the e2e suite with \`npm run test:e2e\` (global setup starts the product)`);
  cached = e2eStateSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  return cached;
}
