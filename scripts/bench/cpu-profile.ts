/**
 * Reads a V8 CPU profile (`node --cpu-prof`'s .cpuprofile) and says where its time went:
 * each sample goes to the innermost frame of its stack that a rule names, so time spent
 * in zod under the processor is validation, and a timer set by the timeout is the
 * timeout's. Samples outside a time window (the process's start and stop) are left out.
 */

/** The parts of a .cpuprofile this reads (Chrome DevTools Protocol, Profiler.Profile). */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string }; children?: number[] }>;
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A cost the profile is split into: the frames it claims. */
export interface CostRule {
  id: string;
  /** Claims a frame by its script's URL (a file:// path or node:…) and function name. */
  claims(url: string, functionName: string): boolean;
}

export interface Attribution {
  /** µs of samples by rule id; `idle`, `gc`, `program` and `other` for the rest. */
  micros: Map<string, number>;
  /** µs by rule id and source file (relative to the repository), the largest first when listed. */
  files: Map<string, Map<string, number>>;
  /** µs of samples inside the window. */
  total: number;
}

/** V8's pseudo-frames: not code, but time the profile still accounts for. */
// A Map, not an object: a frame named `toString` or `constructor` must not find Object.prototype's.
const PSEUDO = new Map([
  ['(idle)', 'idle'],
  ['(garbage collector)', 'gc'],
  ['(program)', 'program'],
]);

/**
 * Splits the samples taken between `fromUs` and `toUs` (the profile's clock: process.hrtime
 * in µs) by `rules`, the first rule that claims a frame winning, walking each stack from
 * its leaf to its root. A stack no rule claims is `other` (the event loop, sockets, promise
 * jobs of Node itself).
 */
export function attribute(profile: CpuProfile, rules: CostRule[], fromUs: number, toUs: number, root = ''): Attribution {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const cache = new Map<number, { id: string; file: string }>();
  const classify = (nodeId: number): { id: string; file: string } => {
    const hit = cache.get(nodeId);
    if (hit) return hit;
    let result = { id: 'other', file: '' };
    const leaf = byId.get(nodeId);
    const pseudo = leaf && PSEUDO.get(leaf.callFrame.functionName);
    if (pseudo) result = { id: pseudo, file: '' };
    else {
      for (let at: number | undefined = nodeId; at !== undefined; at = parent.get(at)) {
        const f = byId.get(at)?.callFrame;
        if (!f) break;
        const rule = rules.find((r) => r.claims(f.url, f.functionName));
        if (rule) {
          result = { id: rule.id, file: sourceName(f.url, root) };
          break;
        }
      }
    }
    cache.set(nodeId, result);
    return result;
  };
  const micros = new Map<string, number>();
  const files = new Map<string, Map<string, number>>();
  let total = 0;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    // A sample's delta is the time since the previous one: the time it stands for.
    const dt = profile.timeDeltas[i] ?? 0;
    t += dt;
    if (t < fromUs || t > toUs) continue;
    const { id, file } = classify(profile.samples[i]);
    micros.set(id, (micros.get(id) ?? 0) + dt);
    if (file) {
      let perFile = files.get(id);
      if (!perFile) {
        perFile = new Map();
        files.set(id, perFile);
      }
      perFile.set(file, (perFile.get(file) ?? 0) + dt);
    }
    total += dt;
  }
  return { micros, files, total };
}

/** A frame's source as the table names it: a path in the repository, or a package's name. */
export function sourceName(url: string, root: string): string {
  const path = url.replace(/^file:\/\//, '');
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (pkg) return pkg[1];
  return root && path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}
