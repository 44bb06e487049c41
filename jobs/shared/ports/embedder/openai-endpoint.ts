/**
 * The URL of an OpenAI-compatible resource from a configured base. Operators paste
 * either the API root (`https://api.openai.com`), the versioned root (`.../v1`) or the
 * full endpoint (`.../v1/embeddings`); all three work.
 */
export function openAiEndpoint(base: string, resource: 'embeddings' | 'chat/completions'): string {
  const url = new URL(base);
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith(`/${resource}`)) return url.toString();
  url.pathname = path.endsWith('/v1') ? `${path}/${resource}` : `${path}/v1/${resource}`;
  return url.toString();
}
