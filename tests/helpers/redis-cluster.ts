import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Bullpen, type BullpenOptions, createBullpen } from '@/lib/bullpen';
import { loadConfig } from '@/lib/config';
import { silentLogger } from '@/lib/logging/logger';
import { freePort, startEmbeddedRedis, type EmbeddedRedis } from '@/lib/redis/embedded-server';
import { uniquePrefix } from './redis';
import { TEST_JOBS, TEST_SCHEDULES } from './test-jobs';

export interface TestCluster {
  /** `host:port` of each master. */
  nodes: string[];
  /** Each master and the slot ranges it serves, as `CLUSTER SHARDS` reports them. */
  shards(): ClusterShard[];
  /** The slot of a key, as `CLUSTER KEYSLOT` computes it. */
  keySlot(key: string): number;
  /** The master (`host:port`) that serves a slot. */
  masterOf(slot: number): string;
  /** The keys that match a glob pattern and are stored on this node (a SCAN of that node alone). */
  keysOn(node: string, pattern: string): string[];
  stop(): Promise<void>;
}

export interface ClusterShard {
  master: string;
  /** Inclusive `[first, last]` slot ranges. */
  ranges: Array<[number, number]>;
}

/** redis-cli's arguments for one node, not in cluster mode. */
function cliArgs(node: string, args: string[]): string[] {
  const [host, port] = node.split(':');
  return ['-h', host, '-p', port, ...args];
}

/** The error for a redis-cli run that failed or answered an error; undefined when it succeeded. */
function cliError(node: string, args: string[], failed: boolean, stdout: string, stderr: string): Error | undefined {
  if (!failed && !stdout.startsWith('ERR') && !stdout.startsWith('MOVED')) return undefined;
  return new Error(`redis-cli ${args.join(' ')} on ${node}: ${stderr || stdout}`);
}

/** Runs redis-cli against one node (not in cluster mode) and returns its output; throws on failure. */
export function cli(node: string, ...args: string[]): string {
  const out = spawnSync('redis-cli', cliArgs(node, args), { encoding: 'utf8' });
  const err = cliError(node, args, out.status !== 0, out.stdout, out.stderr);
  if (err) throw err;
  return out.stdout;
}

/**
 * `cli` without blocking the event loop, for a test that polls the cluster while it
 * times its own Redis calls; rejects on failure.
 */
export function cliAsync(node: string, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', cliArgs(node, args), { encoding: 'utf8' }, (failure, stdout, stderr) => {
      const err = cliError(node, args, failure !== null, stdout, stderr || (failure?.message ?? ''));
      if (err) reject(err);
      else resolve(stdout);
    });
  });
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
  const shards = (): ClusterShard[] => {
    const reply = JSON.parse(cli(nodes[0], '--json', 'cluster', 'shards')) as Array<{
      slots: number[];
      nodes: Array<{ ip: string; port: number; role: string }>;
    }>;
    return reply.map((shard) => {
      const master = shard.nodes.find((n) => n.role === 'master')!;
      const ranges: Array<[number, number]> = [];
      for (let i = 0; i < shard.slots.length; i += 2) ranges.push([shard.slots[i], shard.slots[i + 1]]);
      return { master: `${master.ip}:${master.port}`, ranges };
    });
  };
  return {
    nodes,
    shards,
    keySlot: (key) => Number(cli(nodes[0], 'cluster', 'keyslot', key).trim()),
    masterOf: (slot) => {
      const shard = shards().find((s) => s.ranges.some(([first, last]) => slot >= first && slot <= last));
      if (!shard) throw new Error(`no master serves slot ${slot}`);
      return shard.master;
    },
    keysOn: (node, pattern) => cli(node, '--scan', '--pattern', pattern).split('\n').filter(Boolean),
    stop: async () => void (await Promise.all(servers.map((s) => s.stop()))),
  };
}

/** A Bullpen for the test table (./test-jobs.ts) on `cluster` under a unique prefix, with quiet logs. */
export function clusterBullpen(cluster: TestCluster, tag: string, overrides: Partial<BullpenOptions> = {}): Bullpen {
  return createBullpen({
    jobs: TEST_JOBS,
    schedules: TEST_SCHEDULES,
    webhookJobType: 'notify',
    config: loadConfig({ REDIS_CLUSTER_NODES: cluster.nodes.join(','), LOG_LEVEL: 'silent' }),
    prefix: uniquePrefix(tag),
    logger: silentLogger,
    ...overrides,
  });
}
