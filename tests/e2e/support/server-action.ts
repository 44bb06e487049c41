import type { APIRequestContext, APIResponse, Page, Route } from '@playwright/test';

/** A server action call as the browser sends it: `POST <page url>` with a `Next-Action` header. */
export interface CapturedAction {
  url: string;
  /** The action's id in this build (the `Next-Action` header). */
  id: string;
  contentType: string;
  body: string;
}

/**
 * Runs `trigger` (a click on a mutating control) and captures the server action call it
 * makes. The request is aborted in the browser, so the capture itself changes nothing.
 */
export async function captureServerAction(page: Page, trigger: () => Promise<void>, timeoutMs = 15_000): Promise<CapturedAction> {
  let resolve!: (a: CapturedAction) => void;
  const captured = new Promise<CapturedAction>((r) => (resolve = r));
  const handler = async (route: Route) => {
    const req = route.request();
    const headers = await req.allHeaders();
    if (req.method() === 'POST' && headers['next-action']) {
      resolve({
        url: req.url(),
        id: headers['next-action'],
        contentType: headers['content-type'] ?? 'text/plain;charset=UTF-8',
        body: req.postData() ?? '',
      });
      await route.abort('aborted');
      return;
    }
    await route.fallback();
  };
  await page.route('**/*', handler);
  try {
    await trigger();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no server action call within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([captured, timeout]);
    } finally {
      clearTimeout(timer);
    }
  } finally {
    await page.unroute('**/*', handler);
  }
}

/**
 * Sends a captured action call again from `request` (a context with someone else's
 * cookies, or none), the way a script would call the endpoint directly.
 */
export function postServerAction(request: APIRequestContext, origin: string, action: CapturedAction): Promise<APIResponse> {
  return request.post(action.url, {
    headers: {
      'next-action': action.id,
      'content-type': action.contentType,
      accept: 'text/x-component',
      origin,
    },
    data: action.body,
    maxRedirects: 0,
  });
}
