import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** A server action of the build, with the page it is posted from. */
export interface ActionTarget {
  id: string;
  name: string;
  /** `app/dead-letters/actions.ts`. */
  file: string;
  /** A page of the segment that defines it, with sample values for dynamic segments. */
  page: string;
}

/** Sample values for dynamic segments, so a page exists to post an action from. */
const SAMPLE_SEGMENT: Record<string, string> = { name: 'webhook-dispatch', id: '1' };

/** `app/queues/[name]/jobs/[id]` → `/queues/webhook-dispatch/jobs/1`. */
function pagePath(dir: string): string {
  const rel = path.relative('app', dir).split(path.sep).filter(Boolean);
  return `/${rel.map((s) => (s.startsWith('[') ? SAMPLE_SEGMENT[s.slice(1, -1)] : s)).join('/')}`;
}

/** Every server action the build knows (Next's server reference manifest). */
export function buildActions(root: string): ActionTarget[] {
  const manifest = JSON.parse(readFileSync(path.join(root, '.next', 'server', 'server-reference-manifest.json'), 'utf8')) as {
    node: Record<string, { filename: string; exportedName: string }>;
  };
  return Object.entries(manifest.node).map(([id, a]) => ({
    id,
    name: a.exportedName,
    file: a.filename,
    page: pagePath(path.dirname(a.filename)),
  }));
}

/** Every exported async function of every app/**\/actions.ts, as `file#name`: what the build must list. */
export function sourceActions(root: string): string[] {
  const out: string[] = [];
  for (const file of walk(path.join(root, 'app'))) {
    if (path.basename(file) !== 'actions.ts') continue;
    const rel = path.relative(root, file).split(path.sep).join('/');
    for (const m of readFileSync(file, 'utf8').matchAll(/^export async function (\w+)/gm)) out.push(`${rel}#${m[1]}`);
  }
  return out.sort();
}

/** A page or route handler of the app, as a URL pattern with its dynamic segment names. */
export interface RouteTarget {
  kind: 'page' | 'route';
  /** `/queues/[name]/jobs/[id]`. */
  pattern: string;
  segments: string[];
}

/** Every page.tsx and route.ts under app/ (new ones are picked up by themselves). */
export function appRoutes(root: string): RouteTarget[] {
  const out: RouteTarget[] = [];
  for (const file of walk(path.join(root, 'app'))) {
    const base = path.basename(file);
    if (base !== 'page.tsx' && base !== 'route.ts') continue;
    const rel = path.relative(path.join(root, 'app'), path.dirname(file)).split(path.sep).filter(Boolean);
    out.push({
      kind: base === 'page.tsx' ? 'page' : 'route',
      pattern: `/${rel.join('/')}`,
      segments: rel.filter((s) => s.startsWith('[')).map((s) => s.slice(1, -1)),
    });
  }
  return out.sort((a, b) => a.pattern.localeCompare(b.pattern));
}

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else yield p;
  }
}
