// Locating the repository root and the eval golden/data directory.
//
// The golden files and the data files the tests and the default benchmarks read are kept in the
// repository: evals/golden/ and evals/data/ (provenance and licences: evals/golden/README.md). The
// environment variable TSAD_EVALS_DIR points elsewhere instead, at a directory with the same layout
// (golden/, data/), e.g. a fuller copy of the GradBench data for benchmarks of bigger sizes.
// The repo root is found by walking up from this file to the first directory holding a package.json,
// so this works both from evals/ (vitest, tsx) and from a compiled copy under dist/evals/.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

function findRepoRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`tsad: no package.json above ${start}`);
    dir = parent;
  }
}

/** Absolute path of the repository root (the directory holding package.json). */
export const repoRoot: string = findRepoRoot(dirname(fileURLToPath(import.meta.url)));

/** Absolute path of the evals directory holding golden/ and data/: the in-repo evals/ unless TSAD_EVALS_DIR is set. */
export const evalsDir: string = resolve(process.env['TSAD_EVALS_DIR'] ?? join(repoRoot, 'evals'));

/** Absolute path of the golden files directory, or of one eval's golden directory. */
export function goldenDir(evalName?: string): string {
  return evalName === undefined ? join(evalsDir, 'golden') : join(evalsDir, 'golden', evalName);
}

/** Absolute path of a file under the data directory, e.g. dataPath('ba', 'ba1_n49_m7776_p31843.txt'). */
export function dataPath(...parts: string[]): string {
  return join(evalsDir, 'data', ...parts);
}

/** Whether a golden or data file is there, as itself or gzip-compressed beside it (`<path>.gz`). */
export function evalFileExists(path: string): boolean {
  return existsSync(path) || existsSync(`${path}.gz`);
}

/**
 * The text of a golden or data file, or of its gzip-compressed copy `<path>.gz` (the bigger data files
 * are kept compressed, evals/data/README.md). A missing file gets a message naming what the repository
 * keeps and how to point at a fuller copy (the repository holds only the sizes its tests and benchmarks use).
 */
export function readEvalFile(path: string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8');
  if (existsSync(`${path}.gz`)) return gunzipSync(readFileSync(`${path}.gz`)).toString('utf8');
  const where = process.env['TSAD_EVALS_DIR'] === undefined ? 'the repository keeps only the sizes its tests and benchmarks use (evals/data/README.md)' : `TSAD_EVALS_DIR is ${evalsDir}`;
  throw new Error(`tsad evals: ${path} does not exist: ${where}; set TSAD_EVALS_DIR to a directory with the GradBench golden/ and data/ files of this size`);
}
