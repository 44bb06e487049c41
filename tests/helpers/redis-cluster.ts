import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, startEmbeddedRedis, type EmbeddedRedis } from '@/lib/redis/embedded-server';

export interface TestCluster {
  nodes: string[];
  stop(): Promise<void>;
}

/** Three cluster-enabled redis-servers on loopback joined into one cluster, no replicas. */
export async function startTestCluster(): Promise<TestCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-cluster-'));
  const servers: EmbeddedRedis[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    servers.push(
      await startEmbeddedRedis({
        port,
        args: ['--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '5000'],
      }),
    );
  }
  const nodes = servers.map((s) => `127.0.0.1:${s.port}`);
  const created = spawnSync('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'], {
    encoding: 'utf8',
  });
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stderr || created.stdout}`);
  // Wait until every node agrees the cluster is up.
  const deadline = Date.now() + 20_000;
  for (const s of servers) {
    for (;;) {
      const info = spawnSync('redis-cli', ['-p', String(s.port), 'cluster', 'info'], { encoding: 'utf8' }).stdout;
      if (info.includes('cluster_state:ok')) break;
      if (Date.now() > deadline) throw new Error(`cluster not ok on ${s.port}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { nodes, stop: async () => void (await Promise.all(servers.map((s) => s.stop()))) };
}
