/**
 * A preload that writes the process's peak resident set size on stderr as it exits
 * (`peak-rss-kb <n>`, from process.resourceUsage().maxRSS), whatever ends it:
 * `node --import ./tests/helpers/peak-rss.mjs scripts/run-bundled.mjs scripts/dlq.ts list`.
 * The peak counts the whole process, as an operator's `ps` or the kernel's OOM killer does.
 */
import { writeSync } from 'node:fs';

process.on('exit', () => {
  writeSync(2, `\npeak-rss-kb ${process.resourceUsage().maxRSS}\n`);
});
