import 'server-only';
/**
 * Whether a server action's body is something the dashboard's own pages could have sent,
 * checked before React's decoder sees it (proxy.ts): a body that decoder cannot take
 * fails inside Next with a 500, where the answer is a 400 (docs/security.md).
 *
 * React encodes action arguments as a JSON array in which a string starting with `$` is a
 * reference (`$1`, `$@1`, `$K1`, `$Q1`, ...) to another part of a multipart body; a user's
 * own `$` is escaped as `$$`. The pages send three shapes:
 * - a text body (the arguments of a call with plain values): no other parts, so no reference;
 * - a multipart body from a `<form action>` after hydration: the arguments in the field `0`,
 *   whose only reference is `$K<id>`, the form's fields (`_<id>_<name>`);
 * - a multipart body from a form posted before hydration: `$ACTION_ID_<action>`, or
 *   `$ACTION_REF_<n>` with the descriptor `$ACTION_<n>:0` (`{"id":…,"bound":"$@1"}`) and
 *   the bound arguments in `$ACTION_<n>:1`.
 * Scalars React encodes as strings (`$undefined`, `$NaN`, `$Infinity`, `$-Infinity`, `$-0`,
 * `$n<digits>`, `$D<ISO date>`) are allowed anywhere. Anything else is refused, and so is a
 * body past the bounds below, which no page comes near and which React's decoder would
 * take recursively (a deep nesting) or refuse with an error (a BigInt past 300 digits).
 */
const SCALAR = /^\$(?:undefined|NaN|Infinity|-Infinity|-0|n-?\d{1,300}|D\d{4}-\d{2}-\d{2}T[\d:.]+Z)$/;

/** `$K<id>`: the FormData of the fields named `_<id>_…`. */
const FORM_DATA_REFERENCE = /^\$K[0-9a-f]{1,8}$/;

/** `$@<id>`: a promise of the part `<id>` (hexadecimal), as a descriptor's bound arguments. */
const PROMISE_REFERENCE = /^\$@([0-9a-f]{1,8})$/;

/** Values (array elements, object fields, scalars) in one action's arguments; the largest page sends a few thousand. */
export const MAX_ACTION_VALUES = 20_000;

/** Nesting of arrays and objects in one action's arguments; the pages send at most four levels. */
export const MAX_ACTION_DEPTH = 32;

/**
 * Bytes of one action's body: what Next.js takes (`serverActions.bodySizeLimit` in
 * next.config.js, checked equal by tests/unit/action-body.test.ts). Past it Next answers
 * 500; the proxy answers 413 first.
 */
export const MAX_ACTION_BODY_BYTES = 1024 * 1024;

/** A multipart body's fields in order: text as it is, a file as `null`. */
export type ActionFormFields = ReadonlyArray<readonly [name: string, value: string | null]>;

/** A text body (`Next-Action` with any content type but multipart or URL-encoded). */
export function isPlainActionBody(text: string): boolean {
  return isArguments(parseJson(text), () => false);
}

/**
 * A multipart body. `fetch`: sent by the client router (a `Next-Action` header); otherwise a
 * form posted before hydration, which is an action only when it has `$ACTION_` fields.
 */
export function isMultipartActionBody(fields: ActionFormFields, fetch: boolean): boolean {
  if (fetch) {
    const roots = fields.filter(([name]) => name === '0');
    if (roots.length !== 1 || roots[0][1] === null) return false;
    return isArguments(parseJson(roots[0][1]), (ref) => FORM_DATA_REFERENCE.test(ref));
  }
  for (const [name] of fields) {
    if (name.startsWith('$ACTION_REF_') && !isBoundDescriptor(fields, `$ACTION_${name.slice('$ACTION_REF_'.length)}:`)) return false;
  }
  return true;
}

/** `<prefix>0` is `{"id":"…","bound":null|"$@<id>"}`, and the bound arguments are plain. */
function isBoundDescriptor(fields: ActionFormFields, prefix: string): boolean {
  const descriptor = single(fields, `${prefix}0`);
  if (descriptor === undefined) return false;
  const meta = parseJson(descriptor);
  if (meta === NOT_JSON || meta === null || typeof meta !== 'object' || Array.isArray(meta)) return false;
  const { id, bound } = meta as { id?: unknown; bound?: unknown };
  if (typeof id !== 'string') return false;
  if (bound === null || bound === undefined) return true;
  const ref = typeof bound === 'string' ? PROMISE_REFERENCE.exec(bound) : null;
  if (!ref) return false;
  const args = single(fields, `${prefix}${Number.parseInt(ref[1], 16)}`);
  return args !== undefined && isArguments(parseJson(args), () => false);
}

/** The one text value of a field, or undefined when it is missing, repeated or a file. */
function single(fields: ActionFormFields, name: string): string | undefined {
  const found = fields.filter(([n]) => n === name);
  return found.length === 1 && found[0][1] !== null ? found[0][1] : undefined;
}

const NOT_JSON = Symbol('not JSON');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}

/**
 * An arguments array within the bounds whose `$` strings are escapes, scalars or what
 * `reference` allows. Iterative: a deep nesting is refused, never recursed into.
 */
function isArguments(value: unknown, reference: (text: string) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  const stack: Array<[unknown, number]> = [[value, 0]];
  let values = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (++values > MAX_ACTION_VALUES || depth > MAX_ACTION_DEPTH) return false;
    if (typeof v === 'string') {
      if (v.startsWith('$') && !v.startsWith('$$') && !SCALAR.test(v) && !reference(v)) return false;
    } else if (v !== null && typeof v === 'object') {
      // One at a time: spreading a large array into push() overflows the call stack.
      for (const child of Array.isArray(v) ? v : Object.values(v)) {
        if (stack.length + values >= MAX_ACTION_VALUES) return false;
        stack.push([child, depth + 1]);
      }
    }
  }
  return true;
}
