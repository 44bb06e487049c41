/**
 * Signing in over HTTP as a browser without JavaScript does: GET /sign-in, then POST
 * its form (the server action's hidden fields, the name and the password) as
 * multipart/form-data. The answer is the action's redirect with the sealed session
 * cookie; nothing here seals or opens a session itself, so the cookie is exactly the
 * one the product hands out, through its rate limiter and password check.
 */
import { SESSION_COOKIE } from '@/dashboard/auth/session-options';

const ENTITIES: Record<string, string> = { '&quot;': '"', '&amp;': '&', '&#x27;': "'", '&#39;': "'", '&lt;': '<', '&gt;': '>' };

function decodeEntities(s: string): string {
  return s.replace(/&(?:quot|amp|#x27|#39|lt|gt);/g, (e) => ENTITIES[e]);
}

/** The hidden inputs of the sign-in form, in page order, as name/value pairs. */
export function hiddenFields(html: string): Array<[string, string]> {
  const form = /<form[^>]*data-testid="sign-in-form"[\s\S]*?<\/form>/.exec(html)?.[0];
  if (!form) throw new Error('GET /sign-in shows no sign-in form');
  const fields: Array<[string, string]> = [];
  for (const [input] of form.matchAll(/<input\b[^>]*>/g)) {
    const attr = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(input)?.[1];
    if (attr('type') !== 'hidden') continue;
    const name = attr('name');
    if (name) fields.push([decodeEntities(name), decodeEntities(attr('value') ?? '')]);
  }
  if (!fields.some(([name]) => name.startsWith('$ACTION'))) throw new Error('the sign-in form carries no server action fields');
  return fields;
}

/** Signs `username` in through the dashboard's sign-in form; returns the `Cookie` header value of the session. */
export async function signInOverHttp(baseUrl: string, username: string, password: string): Promise<string> {
  const page = await fetch(`${baseUrl}/sign-in`, { redirect: 'manual' });
  if (page.status !== 200) throw new Error(`GET /sign-in answered ${page.status}`);
  const form = new FormData();
  for (const [name, value] of hiddenFields(await page.text())) form.append(name, value);
  form.append('username', username);
  form.append('password', password);
  // A browser sends its Origin with a form POST; Next.js refuses a server action from another origin.
  const res = await fetch(`${baseUrl}/sign-in`, { method: 'POST', body: form, redirect: 'manual', headers: { origin: baseUrl } });
  await res.arrayBuffer();
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';', 1)[0])
    .find((c) => c.startsWith(`${SESSION_COOKIE}=`) && c.length > SESSION_COOKIE.length + 1);
  if (res.status !== 303 || !cookie) {
    throw new Error(`signing ${username} in answered ${res.status} ${cookie ? 'with' : 'without'} a session cookie`);
  }
  return cookie;
}
