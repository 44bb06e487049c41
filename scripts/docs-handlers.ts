/**
 * Rewrites the defaults table of docs/handlers.md from the registry, so the doc cannot
 * drift from the code (a unit test compares the two): `npm run docs:handlers`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { handlerDefaultsTable, replaceBetweenMarkers } from './docs-table';

const file = path.resolve(__dirname, '../docs/handlers.md');
writeFileSync(file, replaceBetweenMarkers(readFileSync(file, 'utf8'), handlerDefaultsTable()));
console.log('docs/handlers.md: defaults table rewritten');
