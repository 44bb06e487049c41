/** An error from a live endpoint, with its HTTP status (401 means the session ended). */
export class LiveFetchError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'LiveFetchError';
  }
}

/** GETs a live endpoint as JSON; a 401 sends the browser to sign in (the session expired mid-shift). */
export async function fetchJson<T>(url: string, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, { signal, headers: { accept: 'application/json' }, cache: 'no-store' });
  if (res.status === 401 && typeof window !== 'undefined') {
    window.location.assign(`/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }
  if (!res.ok) {
    const body = (await res.json().catch(() => ({}))) as { message?: string };
    throw new LiveFetchError(res.status, body.message ?? `HTTP ${res.status}`);
  }
  return (await res.json()) as T;
}

/** POSTs JSON to a live endpoint and reads its JSON answer; errors as fetchJson's. */
export async function postJson<T>(url: string, body: unknown, signal?: AbortSignal): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    signal,
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify(body),
    cache: 'no-store',
  });
  if (res.status === 401 && typeof window !== 'undefined') {
    window.location.assign(`/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }
  if (!res.ok) {
    const answer = (await res.json().catch(() => ({}))) as { message?: string };
    throw new LiveFetchError(res.status, answer.message ?? `HTTP ${res.status}`);
  }
  return (await res.json()) as T;
}
