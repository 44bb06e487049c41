import { z } from 'zod';
import type { JobCatalog } from '@/lib/jobs/job-catalog';

/**
 * Pure checks behind the payload editor: the browser runs them as the operator types,
 * and the server runs the same schema again (DeadLetterStore.replay) before enqueueing.
 * Only zod and the registry's schemas: safe to bundle for the client.
 */

/** Largest edited payload accepted, in characters (server actions take bodies up to 1 MB, and JSON text can be 4 bytes a character). */
export const MAX_PAYLOAD_TEXT = 256 * 1024;

export type JsonTextCheck =
  | { ok: true; value: unknown }
  | {
      ok: false;
      message: string;
      /** 1-based position of the error, when the parser gave one. */
      line?: number;
      column?: number;
    };

/** Parses JSON text and, on failure, says where: "line 3, column 7: Unexpected token }". */
export function parseJsonText(text: string): JsonTextCheck {
  if (text.length > MAX_PAYLOAD_TEXT) {
    return { ok: false, message: `The JSON is longer than ${MAX_PAYLOAD_TEXT.toLocaleString('en')} characters` };
  }
  if (!text.trim()) return { ok: false, message: 'The JSON is empty' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const raw = err instanceof Error ? err.message : String(err);
    // Engines word their errors differently and some give no position: find it ourselves.
    const offset = locateJsonError(text);
    const message = raw
      .replace(/^JSON\.parse: /, '')
      .replace(/\s*\(line \d+ column \d+\)/, '')
      .replace(/ in JSON at position \d+/, '')
      .replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, '');
    if (offset === undefined) return { ok: false, message };
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    return { ok: false, message: `line ${line}, column ${column}: ${message}`, line, column };
  }
}

/**
 * The offset of the first character at which `text` stops being JSON (the text's
 * length for a premature end), or undefined when it is valid. A small recursive
 * descent over the grammar of RFC 8259, used only to place an error.
 */
export function locateJsonError(text: string): number | undefined {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text[i] !== ch) fail();
      i++;
    }
  };
  const string = () => {
    i++; // opening quote
    while (i < text.length && text[i] !== '"') {
      const c = text.charCodeAt(i);
      if (c < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          for (let k = 0; k < 4; k++) {
            i++;
            if (!/[0-9a-fA-F]/.test(text[i] ?? '')) fail();
          }
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const number = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m?.[0] || m[0] === '-') fail();
    i += (m as RegExpExecArray)[0].length;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') return void i++;
        else fail();
      }
    }
    if (ch === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') return void i++;
        else fail();
      }
    }
    if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) number();
    else fail();
  };
  try {
    value();
    ws();
    return i < text.length ? i : undefined;
  } catch (at) {
    // A RangeError (nesting deeper than the stack) cannot be placed.
    return typeof at === 'number' ? Math.min(at, text.length) : undefined;
  }
}

export interface PayloadIssue {
  /** The field, as a dotted path (`items.0.text`); empty for the payload itself. */
  path: string;
  message: string;
}

export type PayloadCheck =
  | { ok: true; value: unknown }
  | { ok: false; stage: 'json'; message: string; line?: number; column?: number }
  | { ok: false; stage: 'schema'; message: string; issues: PayloadIssue[] }
  | { ok: false; stage: 'locked'; message: string; fields: string[] }
  | { ok: false; stage: 'type'; message: string };

/**
 * Validates a payload against its job type's zod schema, field by field; with
 * `original` (an edit-and-replay), also refuses a change to a locked field, as
 * DeadLetterStore.replay does on the server.
 */
export function checkPayloadValue(jobs: JobCatalog, type: string, value: unknown, original?: unknown): PayloadCheck {
  if (!jobs.has(type)) {
    return { ok: false, stage: 'type', message: `"${type}" is not a job type this build knows; it cannot be replayed` };
  }
  const schema = jobs.get(type).schema;
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
    return { ok: false, stage: 'schema', message: z.prettifyError(parsed.error), issues };
  }
  if (original !== undefined) {
    const fields = jobs.lockedFieldEdits(type, original, parsed.data);
    if (fields.length > 0) {
      return { ok: false, stage: 'locked', message: `Locked, an edit may not change: ${fields.join(', ')}`, fields };
    }
  }
  return { ok: true, value };
}

/** JSON text → parsed and checked against the type's schema (and `original`'s locked fields): what the editor shows live. */
export function checkPayloadText(jobs: JobCatalog, type: string, text: string, original?: unknown): PayloadCheck {
  const json = parseJsonText(text);
  if (!json.ok) return { stage: 'json', ...json };
  return checkPayloadValue(jobs, type, json.value, original);
}

/** The payload fields of `type` an edit may not change; empty for a type this build does not know. */
export function lockedPayloadFields(jobs: JobCatalog, type: string): string[] {
  return jobs.has(type) ? jobs.lockedFieldsOf(type) : [];
}

/** A payload as the editor first shows it: pretty JSON, two-space indent. */
export function payloadToText(value: unknown): string {
  return JSON.stringify(value ?? null, null, 2) ?? 'null';
}

/** A live payload check as the editors send it: the type, the text typed, and for an edit-and-replay the original. */
export const payloadCheckRequestSchema = z
  .object({
    type: z.string().min(1).max(64),
    text: z.string().max(MAX_PAYLOAD_TEXT),
    /** The original payload as JSON text: its locked fields may not change. */
    original: z.string().max(MAX_PAYLOAD_TEXT).optional(),
  })
  .strict();
export type PayloadCheckRequest = z.infer<typeof payloadCheckRequestSchema>;

/** The answer to a live check request: the text checked against the type's schema (and the original's locked fields). */
export function answerPayloadCheck(jobs: JobCatalog, req: PayloadCheckRequest): PayloadCheck & { lockedFields: string[] } {
  const original = req.original === undefined ? undefined : parseJsonText(req.original);
  const check = checkPayloadText(jobs, req.type, req.text, original?.ok ? original.value : undefined);
  return { ...check, lockedFields: lockedPayloadFields(jobs, req.type) };
}
