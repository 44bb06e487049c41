import 'server-only';
/** What a scan keeps: every test given must hold (AND). */
export interface ScanMatch {
  /** Exact job name. */
  name?: string;
  /** Tenant orgId of the envelope. */
  tenant?: string;
  /** A substring of the job's data as stored (its JSON text), case-sensitive. */
  contains?: string;
  /** A dotted path into the decoded data (`payload.user.id`; a number indexes an array) whose value, as text, equals `value`. */
  path?: string;
  value?: string;
}

/** Characters JSON writes as they are: a value made of them must appear verbatim in the text. */
const PLAIN_VALUE = /^[A-Za-z0-9 _.:@-]+$/;

/**
 * The data tests of a scan (tenant, substring, `path=value`) as one function of a job's
 * stored data, or undefined when the scan has none (a name filter alone reads no data).
 * This is the only definition of what a payload search matches. It runs in the
 * dashboard, not in Redis: decoding JSON inside a Lua script held Redis for the whole
 * decode (2.2 s for 1,000 jobs of 75 KB), so Redis only hands over the bytes
 * (job-scan.ts). Cheap substring tests reject most jobs before `JSON.parse` runs: the
 * tenant's `"orgId":"<id>"` as JSON.stringify writes it, and a plain value as it is.
 */
export function payloadMatcher(f: ScanMatch): ((data: string) => boolean) | undefined {
  const { tenant, contains, path } = f;
  if (!tenant && !contains && !path) return undefined;
  const needle = tenant ? `"orgId":${JSON.stringify(tenant)}` : undefined;
  const value = f.value ?? '';
  const plain = path && PLAIN_VALUE.test(value) ? value : undefined;
  const segments = path ? path.split('.') : [];
  return (data) => {
    if (contains && !data.includes(contains)) return false;
    if (needle && !data.includes(needle)) return false;
    if (plain && !data.includes(plain)) return false;
    if (!tenant && !path) return true;
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      return false;
    }
    if (tenant && field(field(parsed, 'tenant'), 'orgId') !== tenant) return false;
    return !path || asText(segments.reduce(field, parsed)) === value;
  };
}

/** `node[part]`: an array's element for a number, an object's own property; undefined otherwise. */
function field(node: unknown, part: string): unknown {
  if (typeof node !== 'object' || node === null) return undefined;
  if (Array.isArray(node)) return /^\d+$/.test(part) ? node[Number(part)] : undefined;
  return Object.hasOwn(node, part) ? (node as Record<string, unknown>)[part] : undefined;
}

/** A leaf as a search value reads it: strings as they are, numbers and booleans as JavaScript writes them, `null`. */
function asText(v: unknown): string | undefined {
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}
