/**
 * The browser's side of the import rules (`npm run deps` runs it after
 * .dependency-cruiser.cjs). components/ ship to the browser, so what they import at run
 * time (type-only imports are erased, hence `tsPreCompilationDeps: false`) comes from the
 * dashboard's client-safe part, dashboard/client/ (lib/ modules both the runtime and the
 * browser use are reached through dashboard/client/runtime-shared.ts); and nothing they
 * import leads, however indirectly, to
 * Redis, BullMQ, a job table or a server-only module. That components/ import nothing of
 * dashboard/ outside dashboard/client/, type-only imports included, is checked by
 * .dependency-cruiser.cjs, which counts them.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const base = require('./.dependency-cruiser.cjs');

/** Server code and server-only packages: what no client-safe module may reach. */
const SERVER =
  '^(node_modules/(bullmq|ioredis|server-only|pino|prom-client)/|jobs/|examples/|applications\\.ts$|app/|dashboard/(?!client/)|lib/redis/|lib/bullpen\\.ts$)';

module.exports = {
  forbidden: [
    {
      name: 'components-import-only-the-client-part',
      severity: 'error',
      comment:
        'components/ take the dashboard and the runtime through dashboard/client/ only (lib/ modules both sides use: dashboard/client/runtime-shared.ts): move the constant, parser or pure function a component needs there.',
      from: { path: '^components/' },
      to: { path: '^(dashboard|lib)/', pathNot: '^dashboard/client/' },
    },
    {
      name: 'components-stay-client-safe',
      severity: 'error',
      comment: 'A client component reached server code: move the constant or type it needs into a client-safe module.',
      from: { path: '^components/' },
      to: { path: SERVER, reachable: true },
    },
    {
      name: 'client-part-stays-client-safe',
      severity: 'error',
      comment: 'dashboard/client/ ships to the browser: it reaches no server module, however indirectly.',
      from: { path: '^dashboard/client/' },
      to: { path: SERVER, reachable: true },
    },
  ],
  options: { ...base.options, tsPreCompilationDeps: false },
};
