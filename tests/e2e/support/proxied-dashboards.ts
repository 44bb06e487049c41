import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { freePort } from '@/lib/redis/embedded-server';
import { NginxProxy } from '../../helpers/nginx-proxy';
import type { E2eState } from './e2e-state';
import { ManagedProcess, waitForHttp } from './managed-process';
import { productEnv } from './stack';

/**
 * The address nginx connects to the dashboards from (`proxy_bind` in the test's wrapper
 * config), and so the dashboards' TRUSTED_PROXIES. The browser and the test's direct
 * requests come from other loopback addresses, so "the proxy said" and "a client said"
 * are told apart on one machine.
 */
export const PROXY_ADDRESS = '127.0.0.2';

export interface DashboardInstance {
  /** `a` or `b`: the order of the shipped config's upstream servers. */
  name: string;
  port: number;
  /** `http://127.0.0.1:<port>`, the instance itself, not through the proxy. */
  url: string;
  /** How nginx's `$upstream_addr` names it. */
  upstream: string;
}

/**
 * Two dashboard instances (`scripts/web-server.ts`, what `npm run web` and the shipped
 * systemd unit run) on the same build, Redis and key prefix as the run's stack, sharing a
 * SESSION_SECRET of their own and trusting only the proxy, behind Debian's nginx running
 * the shipped deploy/nginx/bullpen.conf with its ports moved. The run's worker does the
 * jobs. Everything is stopped by PID in `stop()`.
 */
export class ProxiedDashboards {
  private constructor(
    readonly proxy: NginxProxy,
    readonly instances: [DashboardInstance, DashboardInstance],
    private readonly processes: ManagedProcess[],
    private readonly logDir: string,
  ) {}

  static async start(root: string, state: E2eState): Promise<ProxiedDashboards> {
    const secret = randomBytes(32).toString('base64url');
    const processes: ManagedProcess[] = [];
    let proxy: NginxProxy | undefined;
    try {
      const instances = [] as unknown as [DashboardInstance, DashboardInstance];
      for (const name of ['a', 'b']) {
        const port = await freePort();
        instances.push({ name, port, url: `http://127.0.0.1:${port}`, upstream: `127.0.0.1:${port}` });
        processes.push(
          ManagedProcess.start(`dashboard ${name}`, ['--import', 'tsx', path.join(root, 'scripts', 'web-server.ts')], {
            cwd: root,
            env: productEnv({
              ...state.env,
              PORT: String(port),
              HOST: '127.0.0.1',
              SESSION_SECRET: secret,
              TRUSTED_PROXIES: PROXY_ADDRESS,
            }),
            logFile: path.join(state.logDir, `dashboard-${name}.log`),
          }),
        );
      }
      await Promise.all(instances.map((inst, i) => waitForHttp(`${inst.url}/api/health`, { proc: processes[i], timeoutMs: 90_000 })));
      proxy = await NginxProxy.start({
        confFile: path.join(root, 'deploy', 'nginx', 'bullpen.conf'),
        listenPort: await freePort(),
        upstreamPorts: instances.map((i) => i.port),
        bindAddress: PROXY_ADDRESS,
      });
      return new ProxiedDashboards(proxy, instances, processes, state.logDir);
    } catch (err) {
      await proxy?.stop(state.logDir);
      for (const p of processes) await p.stop('SIGTERM', 15_000);
      throw err;
    }
  }

  /**
   * Which instance nginx sent each server action call to whose path starts with `pathname`,
   * in order, from the `from`-th logged request on (a test's own, when it noted the count first).
   */
  actionCalls(pathname: string, from = 0): string[] {
    return this.proxy
      .requests()
      .slice(from)
      .filter((r) => r.method === 'POST' && r.action !== '' && r.uri.startsWith(pathname))
      .map((r) => this.instances.find((i) => i.upstream === r.upstream)?.name ?? `unknown upstream ${r.upstream}`);
  }

  /** Hangs instance `index` (SIGSTOP): its open streams go silent, as a hung process's would. */
  pause(index: number): void {
    process.kill(this.processes[index].pid, 'SIGSTOP');
  }

  /** Lets instance `index` run again (SIGCONT). */
  resume(index: number): void {
    process.kill(this.processes[index].pid, 'SIGCONT');
  }

  /** Stops nginx (its logs are kept beside the dashboards' in the run's log dir), then both instances. */
  async stop(): Promise<void> {
    // A paused instance would not hear SIGTERM.
    for (const p of this.processes) if (p.running) process.kill(p.pid, 'SIGCONT');
    await this.proxy.stop(this.logDir);
    for (const p of this.processes) await p.stop('SIGTERM', 15_000);
  }
}
