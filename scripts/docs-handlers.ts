/**
 * Rewrites the generated part of docs/handlers.md (defaults, groups, example payloads)
 * from the shipped job table, so the doc cannot drift from the code (a unit test
 * compares the two): `npm run docs:handlers`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { handlersReference, replaceBetweenMarkers } from './docs-table';

const file = path.resolve(__dirname, '../docs/handlers.md');
writeFileSync(file, replaceBetweenMarkers(readFileSync(file, 'utf8'), handlersReference()));
console.log('docs/handlers.md: rewritten from the job table');
