// dist/ for the tests that run the built CLI or import `tsad/runtime` as an installed package would.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const BUILT_CLI = join(ROOT, 'dist/src/cli/main.js');

/** the latest modification time of any file under `dir` */
export function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return t;
}

/** Builds dist/ if the CLI or the runtime is missing or older than any source file. */
export function ensureDistBuilt(): void {
  const built = [BUILT_CLI, join(ROOT, 'dist/src/runtime/index.js')];
  const fresh = built.every((f) => existsSync(f)) && Math.min(...built.map((f) => statSync(f).mtimeMs)) >= newestMtime(join(ROOT, 'src'));
  if (fresh) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: ROOT, encoding: 'utf8' });
  // tsc emits even with type errors (the sources may be mid-edit); only a missing output is fatal
  if (!existsSync(BUILT_CLI)) throw new Error(`build failed:\n${r.stdout}\n${r.stderr}`);
}
