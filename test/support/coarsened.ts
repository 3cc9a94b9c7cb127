// Shared by the coarsening tests: run a compiled module's adjoint and tangent by its manifest, so the
// derivatives of a coarsened compile can be compared with those of the statement-level one.
import type { CompileResult } from '../../src/api/compile.js';
import { loadGenerated } from '../../src/api/load.js';
import { clone, flatten } from '../../src/api/values.js';
import { zerosLike } from '../../src/runtime/arrays.js';

/** the gradient of the head at `args` by its adjoint (seed 1): returned adjoints, then array adjoints, flattened */
export function adjointAt(r: CompileResult, head: string, args: unknown[]): number[] {
  const mod = loadGenerated(r.code, r.runtimeNames);
  const entry = r.manifest.find((m) => m.name === `${head}_b`);
  if (!entry) throw new Error(`no ${head}_b`);
  const names = entry.params.filter((p) => p.role === 'primal').map((p) => p.name);
  const byName = new Map(names.map((n, i) => [n, clone([args[i]])[0]]));
  const adjoints: unknown[] = [];
  const call = entry.params.map((p) => {
    if (p.role === 'seed') return 1;
    if (p.role === 'adjoint') {
      const z = zerosLike(byName.get(p.of!));
      adjoints.push(z);
      return z;
    }
    return byName.get(p.name);
  });
  const out = mod[`${head}_b`](...call);
  return [...flatten(out), ...adjoints.flatMap((a) => flatten(a))];
}

/** the tangent of the head at `args` along `dirs` (one direction per primal parameter that takes one) */
export function tangentAt(r: CompileResult, head: string, args: unknown[], dirs: (name: string) => unknown): number[] {
  const mod = loadGenerated(r.code, r.runtimeNames);
  const entry = r.manifest.find((m) => m.name === `${head}_d`);
  if (!entry) throw new Error(`no ${head}_d`);
  const primals = entry.params.filter((p) => p.role !== 'tangent');
  const byName = new Map(primals.map((p, i) => [p.name, clone([args[i]])[0]]));
  const call = entry.params.map((p) => (p.role === 'tangent' ? clone([dirs(p.of!)])[0] : byName.get(p.name))); // (a write into an argument writes its tangent too)
  return flatten(mod[`${head}_d`](...call));
}

/** |a − b| relative to their size, over the longer of two lists (a missing entry counts as a mismatch) */
export function relDiff(a: number[], b: number[]): number {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    if (Number.isNaN(a[i]) && Number.isNaN(b[i])) continue;
    if (a[i] === b[i]) continue;
    worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(a[i]), Math.abs(b[i])));
  }
  return worst;
}
