/**
 * The import rules `npm test` checks (`npm run deps`): no cycle anywhere, and imports
 * run one way — app/, components/, worker/, scripts/ → the dashboard's server code
 * (dashboard/) and the registry of applications (applications.ts) → the applications
 * (jobs/, examples/mailer/) → lib/ — with only lib/ and dashboard/ talking to BullMQ and
 * Redis and nothing in lib/ knowing Next.js, the dashboard or any job type.
 * docs/architecture.md draws them; .dependency-cruiser-client.cjs holds the browser's side.
 * @type {import('dependency-cruiser').IConfiguration}
 */
/** The shipped application, its registry, and the test helpers that hand it to a test. */
const SHIPPED_APPLICATION =
  '^(jobs/|applications\\.ts$|tests/(unit|integration|fixtures|helpers)/app/|tests/helpers/(shipped-jobs|make-bullpen)\\.ts$)';

/**
 * Tests that may reach the shipped application: its own tests, the e2e specs (which run
 * the product), and its test helpers and fixtures. No runtime test is exempt by name.
 */
const RUNTIME_TESTS_EXEMPT = [
  '^tests/(e2e|unit/app|integration/app|fixtures/app|helpers/app)/',
  '^tests/helpers/(shipped-jobs|make-bullpen)\\.ts$',
].join('|');

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
      name: 'runtime-tests-on-the-test-table',
      severity: 'error',
      comment:
        "The runtime's tests run on tests/helpers/test-jobs.ts, so a team that replaces the shipped application keeps them as they are: only the application's tests (tests/unit/app/, tests/integration/app/), the e2e specs and the application's test helpers reach jobs/ or the registry.",
      from: { path: '^tests/', pathNot: RUNTIME_TESTS_EXEMPT },
      to: { path: SHIPPED_APPLICATION },
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
      name: 'components-only-through-the-client-part',
      severity: 'error',
      comment:
        "components/ take the dashboard and the runtime through dashboard/client/ only, a type-only import included (this config counts them): a read model's type is named in dashboard/client/read-models.ts, what they use of lib/ in dashboard/client/runtime-shared.ts.",
      from: { path: '^components/' },
      to: { path: '^(dashboard/(?!client/)|lib/)' },
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
