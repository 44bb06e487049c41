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

/**
 * The dashboard's own server (scripts/web-server.ts, run by `npm run web` and `npm start`)
 * sets this before it loads Next.js: the token that stamps the client's address on every
 * request (dashboard/http/client-header.ts). A bare `next start` has none, so the app would
 * never know its client: the audit log would say `unknown`, sign-in throttling would be
 * one bucket for everyone and cookies would never be `Secure` behind TLS. Such a start is
 * refused (docs/security.md, "Running behind a proxy").
 */
const CLIENT_TOKEN_ENV = 'BULLPEN_CLIENT_TOKEN';

/**
 * Refuses to serve the production build without the client-address token.
 * @param {string} phase
 * @param {NodeJS.ProcessEnv} env
 */
function requireDashboardServer(phase, env) {
  if (phase !== 'phase-production-server' || env[CLIENT_TOKEN_ENV]) return;
  throw new Error(
    'Refusing to start: serve the dashboard with `npm run web` (or `npm start`), not a bare `next start`. ' +
      "Only the dashboard's own server (scripts/web-server.ts) knows the client's address; without it the audit " +
      'log would record "unknown", sign-in throttling would treat every client as one, and cookies would never ' +
      `be Secure. (${CLIENT_TOKEN_ENV} is not set.)`,
  );
}

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

/** @param {string} phase */
module.exports = (phase) => {
  requireDashboardServer(phase, process.env);
  return nextConfig;
};
