/**
 * CPU time of the benchmark's processes, to say where a round's cores went: this
 * process (process.cpuUsage), another process by PID (Linux /proc/<pid>/stat: user +
 * system time of all its threads), the redis-server (INFO cpu), and what the hypervisor
 * took from this machine (steal time, /proc/stat).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Bullpen } from '@/lib/bullpen';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
    const n = Number(out.stdout?.trim());
    ticksPerSecond = Number.isFinite(n) && n > 0 ? n : 100;
  }
  return ticksPerSecond;
}

/** Seconds of CPU `pid` has used, or undefined where /proc cannot tell (not Linux, process gone). */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: the fields count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5), utime and stime; after the name, state is field 3 at index 0.
    return (Number(fields[11]) + Number(fields[12])) / clockTicks();
  } catch {
    return undefined;
  }
}

/** Seconds of CPU this process has used. */
export function ownCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** Seconds of CPU the redis-server has used (all its threads). */
export async function redisCpuSeconds(bullpen: Bullpen): Promise<number> {
  const info = await bullpen.redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/** Commands the redis-server has run since it started. */
export async function redisCommands(bullpen: Bullpen): Promise<number> {
  const info = await bullpen.redis.info('stats');
  return Number(/^total_commands_processed:(\d+)/m.exec(info)?.[1] ?? NaN);
}

/**
 * Seconds of CPU the hypervisor gave other guests while this machine's cores wanted to
 * run (the "steal" column of /proc/stat's first line, over all cores), or NaN where /proc cannot tell.
 */
export function machineStealSeconds(): number {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
    // cpu user nice system idle iowait irq softirq steal ...
    return cpu[0] === 'cpu' && cpu.length > 8 ? Number(cpu[8]) / clockTicks() : NaN;
  } catch {
    return NaN;
  }
}

/** Resident memory of `pid` in bytes (VmRSS in /proc/<pid>/status), or undefined where /proc cannot tell. */
export function processRssBytes(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
