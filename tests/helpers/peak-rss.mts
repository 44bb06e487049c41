/**
 * Runs a module's `main(argv)` in this process, then writes the process's peak resident
 * set size on stderr (`peak-rss-kb <n>`, from process.resourceUsage().maxRSS) and exits
 * with main's code: `node --import tsx tests/helpers/peak-rss.mts scripts/dlq.ts list`.
 * The peak counts the whole process, tsx's loader thread included.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [modulePath, ...argv] = process.argv.slice(2);
const mod = (await import(pathToFileURL(path.resolve(modulePath)).href)) as { main(argv: string[]): Promise<number> };
const code = await mod.main(argv);
process.stderr.write(`\npeak-rss-kb ${process.resourceUsage().maxRSS}\n`);
process.exit(code);
