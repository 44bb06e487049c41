/**
 * The browser's side of the import rules (`npm run deps` runs it after
 * .dependency-cruiser.cjs). components/ ship to the browser, so what they import at run
 * time (type-only imports are erased, hence `tsPreCompilationDeps: false`) may not lead,
 * however indirectly, to Redis, BullMQ, a job table or a server-only module: the
 * client-safe types and constants live in modules of their own.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const base = require('./.dependency-cruiser.cjs');

module.exports = {
  forbidden: [
    {
      name: 'components-stay-client-safe',
      severity: 'error',
      comment: 'A client component reached server code: move the constant or type it needs into a client-safe module.',
      from: { path: '^components/' },
      to: {
        path: '^(node_modules/(bullmq|ioredis|server-only|pino|prom-client)/|jobs/|examples/|app/_lib/|lib/redis/|lib/bullpen\\.ts$)',
        reachable: true,
      },
    },
  ],
  options: { ...base.options, tsPreCompilationDeps: false },
};
