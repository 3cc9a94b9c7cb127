// Locating the repository root and the shared eval specs/golden/data directory.
//
// The shared directory lives next to the repository: <repo>/../shared/evals.
// It can be overridden with the environment variable TSAD_EVALS_DIR.
// The repo root is found by walking up from this file to the first directory
// holding a package.json, so this works both from evals/ (vitest, tsx) and
// from a compiled copy under dist/evals/.

import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** Absolute path of the shared evals directory (specs, golden/, data/). */
export const evalsDir: string = process.env['TSAD_EVALS_DIR'] ?? resolve(repoRoot, '../shared/evals');

/** Absolute path of the golden files directory, or of one eval's golden directory. */
export function goldenDir(evalName?: string): string {
  return evalName === undefined ? join(evalsDir, 'golden') : join(evalsDir, 'golden', evalName);
}

/** Absolute path of a file under the shared data directory, e.g. dataPath('ba', 'ba1_n49_m7776_p31843.txt'). */
export function dataPath(...parts: string[]): string {
  return join(evalsDir, 'data', ...parts);
}
