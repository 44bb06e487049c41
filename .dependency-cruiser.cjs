/**
 * The import rules `npm test` checks (`npm run deps`): no cycle anywhere, and imports
 * run one way — app/, components/, worker/, scripts/ → the dashboard's server code
 * (dashboard/) and the registry of applications (applications.ts) → the applications
 * (jobs/, examples/mailer/) → lib/ — with only lib/ and dashboard/ talking to BullMQ and
 * Redis and nothing in lib/ knowing Next.js, the dashboard or any job type.
 * docs/architecture.md draws them; .dependency-cruiser-client.cjs holds the browser's side.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes two modules one: break it with a type or a port of its own.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'lib-not-upward',
      severity: 'error',
      comment: 'lib/ is the runtime the processes are built from; it never imports them, nor the dashboard.',
      from: { path: '^lib/' },
      to: { path: '^((app|components|dashboard|worker|scripts)/|proxy\\.ts$|applications\\.ts$)' },
    },
    {
      name: 'lib-knows-no-application',
      severity: 'error',
      comment: 'lib/ is the runtime: it is handed a job table (createBullpen({ jobs })) and imports no application code.',
      from: { path: '^lib/' },
      to: { path: '^(jobs|examples)/' },
    },
    {
      name: 'application-not-upward',
      severity: 'error',
      comment:
        'An application (jobs/, examples/*) is built on lib/ and chosen from applications.ts by app/, dashboard/, worker/ and scripts/; it never imports them.',
      from: { path: '^(jobs|examples)/' },
      to: { path: '^((app|components|dashboard|worker|scripts)/|proxy\\.ts$|applications\\.ts$)' },
    },
    {
      name: 'dashboard-not-upward',
      severity: 'error',
      comment: "dashboard/ is the dashboard's server code that app/ routes and pages call; it never imports them, the worker or the CLIs.",
      from: { path: '^dashboard/' },
      to: { path: '^((app|components|worker|scripts)/|proxy\\.ts$)' },
    },
    {
      name: 'examples-not-to-source-app',
      severity: 'error',
      comment: 'An example app proves the runtime works without the shipped job types: it imports none of them.',
      from: { path: '^examples/' },
      to: { path: '^jobs/' },
    },
    {
      name: 'lib-no-next',
      severity: 'error',
      comment: 'lib/ runs in the worker and the CLIs too: no Next.js in it.',
      from: { path: '^lib/' },
      to: { path: '^node_modules/next/' },
    },
    {
      name: 'only-lib-drives-redis',
      severity: 'error',
      comment: 'BullMQ and ioredis are reached through lib/ (and the read models of dashboard/) only; no BullMQ object past them.',
      from: { path: '^(app|components|worker|jobs|examples)/|^proxy\\.ts$' },
      to: { path: '^node_modules/(bullmq|ioredis)/' },
    },
    {
      name: 'components-not-to-redis-services',
      severity: 'error',
      comment: 'Client components read through the dashboard read models, never the Redis services.',
      from: { path: '^components/' },
      to: { path: '^lib/(bullpen\\.ts|redis/|jobs/queues\\.ts|dlq/dead-letter-store\\.ts)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(\\.next|\\.data|test-results|playwright-report)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
