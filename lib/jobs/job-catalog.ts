import { z } from 'zod';
import { AppError } from '../errors/app-error';
import type { AnyJobDefinition, BackoffDefault, JobOutcome, JobTable } from './job-definition';
import { changedLockedFields, lockedFieldsFor } from './locked-fields';
import type { PriorityName } from './priority';

/** A queue name BullMQ and the key layout take as it is: no `:`, no spaces, no path. */
const JOB_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A definition with its defaults filled in, as the runtime reads it. */
export interface CatalogEntry extends AnyJobDefinition {
  priority: PriorityName;
  concurrency: number;
  critical: boolean;
  destructive: boolean;
  deadLetterOnCancel: boolean;
  backoff: BackoffDefault;
}

/**
 * The job table the runtime was handed, checked once and looked up by name. The
 * runtime, the dispatcher, the DLQ, the schedules and the dashboard read types from
 * here; none of them imports an application's types.
 */
export class JobCatalog {
  readonly names: readonly string[];
  /** Types with a handler in this build: the ones that may be dispatched. */
  readonly handled: ReadonlySet<string>;
  private readonly byName: ReadonlyMap<string, CatalogEntry>;

  constructor(table: JobTable) {
    const byName = new Map<string, CatalogEntry>();
    for (const def of table) {
      if (!JOB_NAME.test(def.name)) {
        throw new Error(`Job type name "${def.name}" must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit`);
      }
      if (byName.has(def.name)) throw new Error(`Job type "${def.name}" is declared twice`);
      if (!Number.isInteger(def.attempts) || def.attempts < 1) throw new Error(`Job type "${def.name}": attempts must be an integer >= 1`);
      if (!(def.timeoutMs > 0)) throw new Error(`Job type "${def.name}": timeoutMs must be > 0`);
      const concurrency = def.concurrency ?? 1;
      if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`Job type "${def.name}": concurrency must be an integer >= 1`);
      const example = def.schema.safeParse(def.example);
      if (!example.success)
        throw new Error(`Job type "${def.name}": its example does not fit its schema: ${z.prettifyError(example.error)}`);
      for (const field of Object.keys(def.resourceKinds ?? {})) {
        if (!def.resourceFields?.includes(field))
          throw new Error(`Job type "${def.name}": resourceKinds names ${field}, which is not in resourceFields`);
      }
      byName.set(def.name, {
        ...def,
        priority: def.priority ?? 'MEDIUM',
        concurrency,
        critical: def.critical ?? false,
        destructive: def.destructive ?? false,
        deadLetterOnCancel: def.deadLetterOnCancel ?? false,
      });
    }
    this.byName = byName;
    this.names = [...byName.keys()];
    this.handled = new Set(table.filter((d) => d.handler).map((d) => d.name));
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The definition of `name`; UNKNOWN_JOB_TYPE when the table has none. */
  get(name: string): CatalogEntry {
    const def = this.byName.get(name);
    if (!def) throw new AppError('UNKNOWN_JOB_TYPE', `Unknown job type "${name}"`, { type: name });
    return def;
  }

  /**
   * What a completed job of `name` reports, from its return value; undefined when its
   * type says nothing, or its summary throws on a shape it did not expect (the text is
   * cut to 300 characters: it is one line in a table).
   */
  outcomeOf(name: string, result: unknown): JobOutcome | undefined {
    const summarize = this.byName.get(name)?.summarize;
    if (!summarize || result === undefined || result === null) return undefined;
    try {
      const out = summarize(result);
      return out ? { text: String(out.text).slice(0, 300), partial: out.partial === true } : undefined;
    } catch {
      return undefined;
    }
  }

  /** The payload fields of `name` an edit-and-replay may not change (tenant ids and resource names). */
  lockedFieldsOf(name: string): string[] {
    return lockedFieldsFor(this.byName.get(name)?.resourceFields);
  }

  /**
   * The locked fields an edit of `original` into `edited` (already parsed by the type's
   * schema) would change. The original is read through the schema too, so a default the
   * schema fills in is no change; a field whose original value the schema refuses may
   * be fixed. The one check behind the replay, the duplicate and the editors.
   */
  lockedFieldEdits(name: string, original: unknown, edited: unknown): string[] {
    const before = this.get(name).schema.safeParse(original);
    const changed = changedLockedFields(before.success ? before.data : original, edited, this.lockedFieldsOf(name));
    if (before.success) return changed;
    // A field the original got wrong (a plain producer's bad job) named no tenant or
    // resource, so fixing it retargets nothing: only a valid value stays locked.
    const invalid = new Set(before.error.issues.map((i) => String(i.path[0] ?? '')));
    return changed.filter((f) => !invalid.has(f));
  }
}
