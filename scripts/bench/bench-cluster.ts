/**
 * A three-master Redis Cluster for the scale-out benchmark: cluster-enabled
 * redis-servers on loopback ports, no persistence, joined with `redis-cli --cluster
 * create` (the default slot ranges 0–5460, 5461–10922, 10923–16383), stopped by their
 * PIDs. The benchmark's own, as the tests have theirs (tests/helpers/redis-cluster.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type EmbeddedRedis, freePort, startEmbeddedRedis } from '@/lib/redis/embedded-server';

export interface BenchCluster {
  /** `127.0.0.1:<port>` of each master. */
  nodes: string[];
  /** Each master's redis-server PID, in the order of `nodes`. */
  pids: number[];
  /** The master (`host:port`) that serves a key, from CLUSTER KEYSLOT and CLUSTER SHARDS. */
  masterOf(key: string): string;
  stop(): Promise<void>;
}

function cli(node: string, ...args: string[]): string {
  const [host, port] = node.split(':');
  const out = spawnSync('redis-cli', ['-h', host, '-p', port, ...args], { encoding: 'utf8' });
  if (out.status !== 0) throw new Error(`redis-cli ${args.join(' ')} on ${node}: ${out.stderr || out.stdout}`);
  return out.stdout;
}

export async function startBenchCluster(masters = 3): Promise<BenchCluster> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bullpen-bench-cluster-'));
  const servers: EmbeddedRedis[] = [];
  const stop = async () => {
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < masters; i++) {
      const port = await freePort();
      servers.push(
        await startEmbeddedRedis({
          port,
          args: ['--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, `nodes-${port}.conf`)],
        }),
      );
    }
    const nodes = servers.map((s) => `127.0.0.1:${s.port}`);
    const created = spawnSync('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '0', '--cluster-yes'], {
      encoding: 'utf8',
    });
    if (created.status !== 0) throw new Error(`redis-cli --cluster create: ${created.stderr || created.stdout}`);
    const deadline = Date.now() + 30_000;
    for (const node of nodes) {
      while (!cli(node, 'cluster', 'info').includes('cluster_state:ok')) {
        if (Date.now() > deadline) throw new Error(`cluster not ok on ${node}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const masterOf = (key: string): string => {
      const slot = Number(cli(nodes[0], 'cluster', 'keyslot', key).trim());
      const shards = JSON.parse(cli(nodes[0], '--json', 'cluster', 'shards')) as Array<{
        slots: number[];
        nodes: Array<{ ip: string; port: number; role: string }>;
      }>;
      for (const shard of shards) {
        for (let i = 0; i < shard.slots.length; i += 2) {
          if (slot >= shard.slots[i] && slot <= shard.slots[i + 1]) {
            const m = shard.nodes.find((n) => n.role === 'master')!;
            return `${m.ip}:${m.port}`;
          }
        }
      }
      throw new Error(`no master serves slot ${slot}`);
    };
    return { nodes, pids: servers.map((s) => s.child!.pid!), masterOf, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
