/**
 * Prints the per-module mutation scores of the last `npm run mutation` from Stryker's
 * JSON report (reports/mutation/mutation.json), as the Markdown table docs/testing.md
 * quotes; `--survivors` also lists each surviving mutant with its line.
 * `node --import tsx scripts/mutation/scores.ts [--survivors] [report.json]`
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface Mutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
}
interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

/** Stryker's score: detected (killed or timed out) over the mutants that compiled and ran or could have. */
export function score(mutants: readonly Mutant[]) {
  const count = (...statuses: string[]) => mutants.filter((m) => statuses.includes(m.status)).length;
  const killed = count('Killed');
  const timeout = count('Timeout');
  const survived = count('Survived');
  const noCoverage = count('NoCoverage');
  const valid = killed + timeout + survived + noCoverage;
  return {
    killed,
    timeout,
    survived,
    noCoverage,
    invalid: count('CompileError', 'RuntimeError'),
    score: valid === 0 ? 100 : (100 * (killed + timeout)) / valid,
  };
}

function main(argv: string[]): void {
  const survivors = argv.includes('--survivors');
  const file = argv.find((a) => !a.startsWith('--')) ?? path.resolve(__dirname, '../../reports/mutation/mutation.json');
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  const rows = Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b));
  console.log('| module | score | killed | timed out | survived | no coverage | not compiled |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, { mutants }] of rows) {
    const s = score(mutants);
    console.log(`| \`${name}\` | ${s.score.toFixed(1)} % | ${s.killed} | ${s.timeout} | ${s.survived} | ${s.noCoverage} | ${s.invalid} |`);
  }
  const all = score(rows.flatMap(([, f]) => f.mutants));
  console.log(
    `| all | ${all.score.toFixed(1)} % | ${all.killed} | ${all.timeout} | ${all.survived} | ${all.noCoverage} | ${all.invalid} |`,
  );
  if (!survivors) return;
  for (const [name, { source, mutants }] of rows) {
    const lines = source.split('\n');
    for (const m of mutants.filter((x) => x.status === 'Survived' || x.status === 'NoCoverage')) {
      const { line, column } = m.location.start;
      console.log(`\n${m.status} ${name}:${line}:${column} ${m.mutatorName}`);
      console.log(`  - ${lines[line - 1].trim()}`);
      console.log(`  + ${(m.replacement ?? '').split('\n')[0].slice(0, 160)}`);
    }
  }
}

main(process.argv.slice(2));
