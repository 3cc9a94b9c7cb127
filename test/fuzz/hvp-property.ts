// The fuzz property `hvp`: second derivatives of a generated program with a scalar result, forward over
// reverse (src/api/hessian.ts compiles `<head>_grad`, `<head>_grad_d`, `<head>_grad_dv`). At a point where
// the first-order checks were stable:
//   - `<head>_grad` is the gradient: ⟨∇f, v⟩ equals the first-order tangent f_d along v (the gradient
//     code is the adjoint compiled again as TypeScript, with other adjoint options);
//   - H·v from `<head>_grad_d` matches central divided differences of `<head>_grad` (checkCompiled on the
//     gradient, confirmed at two more step sizes as the first-order tangent is);
//   - the vector mode `<head>_grad_dv` equals repeated `<head>_grad_d` (checkCompiled);
//   - uᵀHv = vᵀHu for random u, v (symmetry: a wrong cross term shows here even where differences are noisy).
// A refusal ("second derivatives of 'f' are not available") is counted, not a finding.
import { checkCompiled, type CheckReport } from '../../src/api/check.js';
import type { CompileResult } from '../../src/api/compile.js';
import type { LoadedModule } from '../../src/api/load.js';
import { clone, flatten, randomLike, rng } from '../../src/api/values.js';
import { zerosLike } from '../../src/runtime/arrays.js';
import { truncationConverges, type Finding } from './checks.js';

export interface HvpOutcome {
  findings: Finding[];
  /** whether anything was compared (false at a point where the gradient's differences are unstable) */
  checked: boolean;
}

/** the refusal compileHvp gives for gradient code it cannot differentiate again (not a bug) */
export const HVP_REFUSAL = /^second derivatives of '\w+' are not available: /;

/** H·v from `<head>_grad_d`, flattened: independents' tangents from `v`, every other tangent zero */
function hessianTimes(hvp: CompileResult, mod: LoadedModule, head: string, params: string[], args: unknown[], v: unknown[]): number[] {
  const e = hvp.manifest.find((m) => m.name === `${head}_grad_d`)!;
  const call = e.params.map((p) => {
    const j = params.indexOf(p.of ?? p.name);
    if (p.role === 'primal') return clone(args[j]);
    const w = hvp.wrt.indexOf(p.of!);
    return w >= 0 ? clone(v[w]) : zerosLike(args[j]);
  });
  const [, hv] = mod[e.name](...call) as [unknown, unknown];
  return flatten(hv);
}

/** the gradient `<head>_grad` returns, flattened */
function gradientOf(hvp: CompileResult, mod: LoadedModule, head: string, params: string[], args: unknown[]): number[] {
  // (`<head>_grad` is a primal of the second compilation: its parameters are its tangent's primal ones)
  const e = hvp.manifest.find((m) => m.name === `${head}_grad_d`)!;
  const call = e.params.filter((p) => p.role === 'primal').map((p) => clone(args[params.indexOf(p.name)]));
  return flatten(mod[`${head}_grad`](...call));
}

/** a = b to `tol` of `scale` (the sum of the absolute terms of the inner products compared) */
const close = (a: number, b: number, tol: number, scale: number) => a === b || (a !== a && b !== b) || Math.abs(a - b) <= tol * Math.max(1, scale, Math.abs(a) + Math.abs(b));

/** the first-order tangent f_d of the (scalar) result along `v` (over `wrt`) */
function tangentAlong(js: CompileResult, gen: LoadedModule, head: string, params: string[], args: unknown[], wrt: string[], v: unknown[]): number {
  const e = js.manifest.find((m) => m.of === head && m.mode === 'tangent')!;
  const call = e.params.map((p) => {
    const j = params.indexOf(p.of ?? p.name);
    if (p.role === 'primal') return clone(args[j]);
    const w = wrt.indexOf(p.of!);
    return w >= 0 ? clone(v[w]) : zerosLike(args[j]);
  });
  return (gen[e.name](...call) as [number, number])[1];
}

/** The checks above at `args`; `js`, `gen` are the first-order module (its tangent checks the gradient). */
export function checkHvp(hvp: CompileResult, mod: LoadedModule, js: CompileResult, gen: LoadedModule, head: string, params: string[], args: unknown[], seed: number): HvpOutcome {
  const findings: Finding[] = [];
  const R = rng(seed);
  // (an independent left out, `y?: number` passed undefined, has the gradient entry 0 and the direction 0)
  const direction = (w: string) => (args[params.indexOf(w)] === undefined ? 0 : randomLike(args[params.indexOf(w)], R));
  const u = hvp.wrt.map(direction);
  const v = hvp.wrt.map(direction);
  const dotted = (a: unknown[], hb: number[]) => a.flatMap((x) => flatten(x)).reduce((s, x, i) => s + x * hb[i], 0);
  const absDotted = (a: unknown[], hb: number[]) => a.flatMap((x) => flatten(x)).reduce((s, x, i) => s + Math.abs(x * hb[i]), 0);
  const g = gradientOf(hvp, mod, head, params, args);
  const gv = dotted(v, g);
  const fd = tangentAlong(js, gen, head, params, args, hvp.wrt, v);
  if (Number.isFinite(gv) && Number.isFinite(fd) && !close(gv, fd, 1e-9, absDotted(v, g)))
    findings.push({ prop: 'hvp', message: `${head}_grad is not the gradient: ⟨∇f, v⟩ differs from the tangent along v`, observed: `⟨∇f, v⟩ = ${gv}`, expected: `f_d = ${fd}`, args });
  const rep = checkCompiled(hvp, mod, `${head}_grad`, args, { seed });
  if (rep.vectorError > 1e-12) findings.push({ prop: 'hvp', message: `${head}_grad_dv differs from repeated ${head}_grad_d`, observed: `relative error ${rep.vectorError.toExponential(2)}`, expected: '≤ 1e-12', args });
  const Hv = hessianTimes(hvp, mod, head, params, args, v);
  const Hu = hessianTimes(hvp, mod, head, params, args, u);
  const uHv = dotted(u, Hv);
  const vHu = dotted(v, Hu);
  if (rep.unstable) return { findings, checked: findings.length > 0 };
  if (Number.isFinite(uHv) && Number.isFinite(vHu) && !close(uHv, vHu, 1e-8, absDotted(u, Hv) + absDotted(v, Hu)))
    findings.push({ prop: 'hvp', message: 'the Hessian is not symmetric: uᵀHv ≠ vᵀHu', observed: `uᵀHv = ${uHv}`, expected: `vᵀHu = ${vHu}`, args });
  if (rep.tangentError > 1e-6) {
    // as the first-order tangent: a correct H·v agrees with some stable divided difference of the gradient
    const alt: CheckReport[] = [1e-5, 1e-7].map((h) => checkCompiled(hvp, mod, `${head}_grad`, args, { seed, h }));
    if (!alt.some((r) => !r.unstable && r.tangentError <= 1e-6) && !truncationConverges([alt[0].tangentError, rep.tangentError, alt[1].tangentError]))
      findings.push({ prop: 'hvp', message: 'H·v differs from central divided differences of the gradient', observed: `relative error ${rep.tangentError.toExponential(2)} (h = 1e-6), ${alt.map((r) => r.tangentError.toExponential(2)).join(', ')} (h = 1e-5, 1e-7)`, expected: '≤ 1e-6', args });
  }
  return { findings, checked: true };
}
