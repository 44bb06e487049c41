import type { Queue } from 'bullmq';

// BullMQ answers an unknown CLIENT command with a placeholder entry; ACL'd users get NOPERM.
const PLACEHOLDER = /does not support client list/i;

/**
 * Workers connected to a queue (BullMQ parses CLIENT LIST), or null when the server
 * forbids CLIENT LIST (managed Redis): the UI says "unknown", it does not fail.
 */
export async function countWorkers(queue: Queue): Promise<{ count: number; names: string[] } | null> {
  try {
    const workers = await queue.getWorkers();
    if (workers.some((w) => PLACEHOLDER.test(w.name ?? '') && !w.addr)) return null;
    // rawname is `<prefix>:<queue b64>:w:<worker name>`; the worker name identifies the process.
    const names = workers.map((w) => (w.rawname ?? '').split(':w:')[1] ?? w.addr ?? '');
    return { count: workers.length, names };
  } catch {
    return null;
  }
}
