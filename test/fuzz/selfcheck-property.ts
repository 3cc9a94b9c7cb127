// The fuzz property `selfcheck`: the runtime API's self-check (src/api/selfcheck.ts) run on a generated
// program's tangent and adjoint, as the runtime API runs it on a caller's function: the same fixed-seed
// direction and seed, the same comparison and tolerance. A correct derivative must never trip it (a
// false alarm would stop a user's correct code), so any mismatch here is a finding.
import type { CompileResult, ManifestEntry } from '../../src/api/compile.js';
import type { LoadedModule } from '../../src/api/load.js';
import { selfCheck, type DotTest, type Probe } from '../../src/api/selfcheck.js';
import { clone, flatten } from '../../src/api/values.js';
import { zerosLike } from '../../src/runtime/arrays.js';

/**
 * A probe over the generated module's f_d and f_b, for dependents `of` (the result and/or array
 * parameters): the "result" it reports is the list of the dependents.
 */
function probeOf(js: CompileResult, mod: LoadedModule, head: string, params: string[], wrt: number[]): Probe | null {
  const eT = js.manifest.find((m) => m.of === head && m.mode === 'tangent');
  const eB = js.manifest.find((m) => m.of === head && m.mode === 'reverse');
  if (!eT || !eB) return null;
  const of = js.of;
  const outParams = of.filter((o) => o !== 'return');
  const at = (p: ManifestEntry['params'][number]) => params.indexOf(p.of ?? p.name);
  return {
    tangent(args0, dirs0) {
      const args = clone(args0), dirs = clone(dirs0);
      const call = eT.params.map((p) => {
        const j = at(p);
        if (p.role === 'primal') return args[j];
        const k = wrt.indexOf(j);
        return k >= 0 ? dirs[k] : zerosLike(args[j]);
      });
      const res = mod[eT.name](...call) as [unknown, unknown] | undefined;
      const y: unknown[] = of.includes('return') ? [res?.[0]] : [];
      const yd: unknown[] = of.includes('return') ? [res?.[1]] : [];
      for (const o of outParams) {
        const j = params.indexOf(o);
        const k = eT.params.findIndex((p) => p.role === 'tangent' && p.of === o);
        y.push(args[j]);
        // a dependent that depends on no independent has no tangent parameter: its tangent is zero
        yd.push(k >= 0 ? call[k] : zerosLike(args[j]));
      }
      return [y, yd];
    },
    adjoint(args0, seed) {
      const args = clone(args0), ybar = clone(seed) as unknown[];
      const adj = new Map<number, unknown>();
      const call = eB.params.map((p) => {
        const j = at(p);
        if (p.role === 'primal') return args[j];
        if (p.role === 'seed') return ybar[0];
        const k = outParams.indexOf(p.of!);
        const a = k >= 0 ? ybar[of.includes('return') ? k + 1 : k] : zerosLike(args[j]);
        adj.set(j, a);
        return a;
      });
      const ret = mod[eB.name](...call);
      // scalar adjoints come back in parameter order: one alone, several as an array
      // (a number left out, `y?: number`, still has its place among them)
      const scalars = params.map((_, j) => j).filter((j) => (typeof args[j] === 'number' || args[j] === undefined) && eT.params.some((p) => p.role === 'tangent' && p.of === params[j]));
      scalars.forEach((j, k) => adj.set(j, scalars.length === 1 ? ret : (ret as number[])[k]));
      return wrt.map((j) => adj.get(j) ?? zerosLike(args[j]));
    },
  };
}

/**
 * The self-check's verdict on one compiled program at one point (`null`: no tangent or no adjoint to
 * compare, or an output array the function shortens or grows: its seed, shaped like the output, does
 * not fit the shadow the adjoint takes, shaped like the argument — the runtime API has no such outputs).
 */
export function selfCheckProgram(js: CompileResult, mod: LoadedModule, head: string, args: unknown[]): DotTest | null {
  const eT = js.manifest.find((m) => m.of === head && m.mode === 'tangent');
  if (!eT) return null;
  const params = eT.params.filter((p) => p.role === 'primal').map((p) => p.name);
  const wrt = js.wrt.map((w) => params.indexOf(w));
  const probe = probeOf(js, mod, head, params, wrt);
  if (!probe) return null;
  const after = clone(args);
  (mod[head] as (...a: unknown[]) => unknown)(...after);
  if (js.of.some((o) => o !== 'return' && flatten(after[params.indexOf(o)]).length !== flatten(args[params.indexOf(o)]).length)) return null;
  return selfCheck(probe, args, wrt);
}
