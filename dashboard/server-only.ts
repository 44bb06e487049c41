/**
 * `import 'server-only'` outside Next's bundler. Next resolves 'server-only' itself and
 * fails `next build` when a client component reaches a module that imports it (checked by
 * hand: a 'use client' file importing the dashboard's composition root failed the build
 * with "'server-only' cannot be imported from a Client Component module"). Everything else
 * that loads the dashboard's server modules (the dashboard's own server and CLIs under tsx,
 * Playwright's setup, vitest, dependency-cruiser) resolves the name here, through the
 * `paths` entry of tsconfig.json (vitest: its alias): a module with nothing in it.
 */
export {};
