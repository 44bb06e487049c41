// @ts-check

/**
 * Extra hosts whose pages may call server actions (a reverse proxy that does not
 * forward the public host in x-forwarded-host). Same origin is always allowed; any
 * other Origin is refused by Next's CSRF check. Read at `next start`, so a deploy
 * can set it without a rebuild.
 */
const allowedOrigins = (process.env.DASHBOARD_ALLOWED_ORIGINS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native or Node-only packages stay out of the server bundle and load from node_modules.
  serverExternalPackages: [
    'bullmq',
    'ioredis',
    'usearch',
    'pino',
    'pino-pretty',
    'prom-client',
    'bullmq-otel',
    '@opentelemetry/api',
    'msgpackr',
  ],
  // NEXT_DIST_DIR lets a second build (a verification, the e2e suite) run beside the
  // usual `.next` without overwriting the chunks a running server is using.
  distDir: process.env.NEXT_DIST_DIR || '.next',
  // `npm test` runs tsc over the whole repository; a verification build may skip the
  // duplicate check with NEXT_SKIP_TYPECHECK=1. Default: type errors fail the build.
  typescript: { ignoreBuildErrors: process.env.NEXT_SKIP_TYPECHECK === '1' },
  poweredByHeader: false,
  reactStrictMode: true,
  // The repository root, so Turbopack does not look for a workspace above it.
  turbopack: { root: __dirname },
  experimental: {
    // unauthorized() / forbidden(): real 401 / 403 from pages, actions and route handlers.
    authInterrupts: true,
    serverActions: { allowedOrigins, bodySizeLimit: '1mb' },
  },
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          // The Content-Security-Policy (with frame-ancestors 'none') is set per request in proxy.ts.
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'same-origin' },
        ],
      },
    ];
  },
};

module.exports = nextConfig;
