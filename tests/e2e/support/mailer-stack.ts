import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { mailerApp } from '@/examples/mailer/app';
import { createAppBullpen } from '@/lib/app/create-app-bullpen';
import { generatePassword } from '@/dashboard/auth/password';
import { UserStore } from '@/dashboard/auth/user-store';
import type { Bullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/logging/logger';
import { readyClient } from '@/lib/redis/connection';
import { freePort } from '@/lib/redis/embedded-server';
import type { E2eState } from './e2e-state';
import { ManagedProcess, waitForHttp } from './managed-process';
import { productEnv } from './stack';

/**
 * The mailer example as a team would run its own application: `npm run worker` and
 * `npm run web` (the same build as the run's dashboard) with BULLPEN_APP=mailer, on the
 * run's redis-server under a key prefix of their own, so none of the shipped
 * application's queues or users are seen. An operator is made for it. Everything started
 * is stopped by PID in `stop()`.
 */
export class MailerStack {
  private constructor(
    /** `http://127.0.0.1:<port>`, the mailer's dashboard. */
    readonly url: string,
    readonly operator: { username: string; password: string },
    /** lib/ on the mailer's keys: what the test reads back. */
    readonly bullpen: Bullpen,
    private readonly processes: ManagedProcess[],
  ) {}

  static async start(root: string, state: E2eState): Promise<MailerStack> {
    const [webPort, metricsPort] = [await freePort(), await freePort()];
    const env: Record<string, string> = {
      ...state.env,
      BULLPEN_APP: 'mailer',
      BULLPEN_PREFIX: `e2e-mailer-${randomBytes(4).toString('hex')}`,
      PORT: String(webPort),
      METRICS_PORT: String(metricsPort),
      HOST: '127.0.0.1',
    };
    const bullpen = createAppBullpen(mailerApp, { config: loadConfig(env), logger: silentLogger });
    const processes: ManagedProcess[] = [];
    try {
      await readyClient(bullpen.redis);
      const operator = { username: 'mailer-operator', password: generatePassword() };
      await new UserStore(bullpen.redis, bullpen.keys).create({ ...operator, role: 'operator' });
      const start = (name: string, script: string) =>
        ManagedProcess.start(name, ['--import', 'tsx', path.join(root, script)], {
          cwd: root,
          env: productEnv(env),
          logFile: path.join(state.logDir, `${name.replace(/ /g, '-')}.log`),
        });
      processes.push(start('mailer worker', 'worker/main.ts'));
      await waitForHttp(`http://127.0.0.1:${metricsPort}/healthz`, { proc: processes[0], timeoutMs: 60_000 });
      processes.push(start('mailer dashboard', 'scripts/web-server.ts'));
      const url = `http://127.0.0.1:${webPort}`;
      await waitForHttp(`${url}/api/health`, { proc: processes[1], timeoutMs: 90_000 });
      return new MailerStack(url, operator, bullpen, processes);
    } catch (err) {
      for (const p of processes.reverse()) await p.stop('SIGTERM', 15_000);
      await bullpen.close();
      throw err;
    }
  }

  /** Stops the dashboard, then the worker (its running jobs finish first), and closes the test's connection. */
  async stop(): Promise<void> {
    for (const p of [...this.processes].reverse()) await p.stop('SIGTERM', 15_000);
    await this.bullpen.close();
  }
}
