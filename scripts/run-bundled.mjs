/**
 * Runs a TypeScript CLI's `main(argv)` from a bundle that plain `node` loads:
 * `node scripts/run-bundled.mjs scripts/dlq.ts list --limit 5` (what `npm run dlq` runs).
 *
 * tsx compiles every module of the import graph at start, in a loader thread of its own:
 * the DLQ CLI peaked at 130-145 MiB under it before it read a letter, 77 MiB from the
 * bundle with the V8 options `npm run dlq` adds (docs/dead-letters.md#payloads). esbuild
 * bundles the entry's own sources into node_modules/.cache/bullpen/ (the packages stay
 * imports, resolved from node_modules), and the bundle is built again when one of the
 * sources it was made from, package.json or tsconfig.json changed since. Exit codes are
 * main's; an error it throws exits 1.
 */
import { readFileSync, renameSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'bullpen');
/** Besides the bundle's own inputs: what changes how esbuild resolves them. */
const CONFIG_FILES = ['package.json', 'tsconfig.json'];

/** The last change of `file` in ms, or Infinity when it is gone (a removed source rebuilds too). */
function mtime(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** The bundle's path, built or rebuilt first when it is missing or older than a source. */
async function bundleOf(entry) {
  const name = path
    .relative(ROOT, entry)
    .replace(/\.[cm]?ts$/, '')
    .replace(/[\\/]/g, '__');
  const out = path.join(CACHE, `${name}.mjs`);
  const inputsFile = path.join(CACHE, `${name}.inputs.json`);
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(inputsFile, 'utf8'));
  } catch {
    inputs = undefined;
  }
  const built = Math.min(mtime(out), mtime(inputsFile));
  const fresh =
    Array.isArray(inputs) && Number.isFinite(built) && [...inputs, ...CONFIG_FILES].every((f) => mtime(path.join(ROOT, f)) <= built);
  if (fresh) return out;

  // Only a rebuild pays for esbuild's module (its compiler runs in a process of its own).
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    write: false,
    metafile: true,
    logLevel: 'warning',
  });
  mkdirSync(CACHE, { recursive: true });
  // Written aside and renamed: two runs rebuilding at once never load a half-written file.
  const tmp = `.${process.pid}.tmp`;
  writeFileSync(out + tmp, result.outputFiles[0].contents);
  writeFileSync(inputsFile + tmp, JSON.stringify(Object.keys(result.metafile.inputs)));
  renameSync(out + tmp, out);
  renameSync(inputsFile + tmp, inputsFile);
  return out;
}

const [entryArg, ...argv] = process.argv.slice(2);
if (!entryArg) {
  process.stderr.write('usage: node scripts/run-bundled.mjs <entry.ts> [args...]\n');
  process.exit(2);
}
try {
  const mod = await import(pathToFileURL(await bundleOf(path.resolve(ROOT, entryArg))).href);
  process.exitCode = await mod.main(argv);
} catch (err) {
  process.stderr.write(`${path.basename(entryArg, path.extname(entryArg))}: ${err?.stack ?? err}\n`);
  process.exitCode = 1;
}
// main closed its connections; an exit here also ends what a library left scheduled.
process.exit();
