/**
 * Whether a server action's text body is something the dashboard's own pages could have
 * sent. React encodes action arguments as JSON in which a string starting with `$` is a
 * reference (`$1`, `$@1`, `$K1`, `$Q1`, ...) to another part of a multipart body; a
 * user's own `$` is escaped as `$$`. A text/plain body has no other parts, so any
 * reference in it is malformed: React's decoder then fails inside Next with a 500. The
 * proxy answers 400 first (docs/security.md). Scalars React encodes this way in a plain
 * body (`$undefined`, `$NaN`, `$Infinity`, `$-Infinity`, `$-0`, `$n<digits>`, `$D<ISO date>`)
 * stay allowed.
 */
const SCALAR = /^\$(?:undefined|NaN|Infinity|-Infinity|-0|n-?\d{1,400}|D\d{4}-\d{2}-\d{2}T[\d:.]+Z)$/;

export function isPlainActionBody(text: string): boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return false;
  }
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.startsWith('$') && !v.startsWith('$$') && !SCALAR.test(v)) return false;
    } else if (Array.isArray(v)) {
      stack.push(...v);
    } else if (v !== null && typeof v === 'object') {
      stack.push(...Object.values(v));
    }
  }
  return true;
}
