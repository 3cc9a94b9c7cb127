// tsad differentiates the code it generated: tangent, vector tangent and adjoint of f_d (forward over
// forward, reverse over forward) and of f_b (forward over reverse, reverse over reverse), each checked
// like any other function (divided differences, dot-product test, empty tapes).
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { compile } from '../src/api/compile.js';
import { loadGenerated } from '../src/api/load.js';
import { clone, randomLike, rng, zeros } from '../src/api/values.js';
import { formatDiagnostic } from '../src/frontend/diagnostics.js';
import { corpus } from './corpus/index.js';
import { compileCase, drawArgs } from './support/corpus.js';

const cases = corpus.filter((c) => c.tags?.includes('nested'));

describe('nested differentiation of generated code', () => {
  it('has at least 10 cases', () => expect(cases.length).toBeGreaterThanOrEqual(10));
  for (const c of cases) {
    it(c.name, () => {
      const first = compileCase(c, { js: false, runtimeImport: 'tsad/runtime' });
      expect(first.diagnostics.map(formatDiagnostic)).toEqual([]);
      const args = drawArgs(c, 5);
      const r = rng(99);
      const paramsOf = (mode: string) => first.manifest.find((m) => m.of === c.head && m.mode === mode)!.params;
      const primalNames = paramsOf('tangent').filter((p) => p.role === 'primal').map((p) => p.name);
      const value = (name: string) => args[primalNames.indexOf(name)];

      // f_d: differentiate with respect to the primal independents and their tangents
      const dParams = paramsOf('tangent');
      const dArgs = dParams.map((p) => (p.role === 'tangent' ? randomLike(value(p.of!), r) : value(p.name)));
      const dWrt = dParams.filter((p) => p.role === 'tangent' || first.wrt.includes(p.name)).map((p) => p.name);
      // f_b: with respect to the primal independents; outputs: returned scalar adjoints and adjoint arrays
      const bEntry = first.manifest.find((m) => m.of === c.head && m.mode === 'reverse')!;
      // the seed is shaped like the result
      const y = loadGenerated(compileCase(c).code)[c.head](...clone(args));
      const bArgs = bEntry.params.map((p) => (p.role === 'adjoint' ? zeros(value(p.of!)) : p.role === 'seed' ? randomLike(y, r) : value(p.name)));
      const bOf = [...(bEntry.returns === 'void' ? [] : ['return']), ...bEntry.params.filter((p) => p.role === 'adjoint').map((p) => p.name)];
      for (const [head, wrt, of, hargs] of [
        [`${c.head}_d`, dWrt, ['return'], dArgs],
        [`${c.head}_b`, first.wrt, bOf, bArgs],
      ] as const) {
        const second = compile({ 'generated.ts': first.code }, { head, wrt: [...wrt], of: [...of], js: true, runtimeImport: null });
        expect(second.diagnostics.map(formatDiagnostic), head).toEqual([]);
        const rep = checkCompiled(second, second.code, head, [...hargs], { seed: 3 });
        if (!(rep.unstable && rep.tangentError > 1e-6)) expect(rep.messages, head).toEqual([]);
        expect(rep.tapeEmpty, head).toBe(true);
      }
    });
  }
});

// An adjoint whose sweeps record nothing takes a tape it never uses; differentiated again, that tape
// is passed as it is, with no shadow tape (src/analysis/idle-tapes.ts). A tape that is recorded on keeps one.
describe('idle tapes in nested adjoints', () => {
  const second = (src: string) => {
    const first = compile(src, { head: 'f', wrt: ['p'], modes: ['reverse'], runtimeImport: 'tsad/runtime' });
    expect(first.diagnostics.map(formatDiagnostic)).toEqual([]);
    const r = compile({ 'generated.ts': first.code }, { head: 'f_b', wrt: ['p'], of: ['pb'], js: true, runtimeImport: null });
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
    const p = [0.3, -0.8];
    const rep = checkCompiled(r, r.code, 'f_b', [p, [0, 0], 0.7, 1], { seed: 5 });
    expect(rep.messages).toEqual([]);
    expect(rep.tapeEmpty).toBe(true);
    return r.code;
  };

  it('a straight-line function: its inner tape gets no shadow', () => {
    const code = second(`export function f(p: number[], w: number): number {
  const dx = p[0] - 1;
  const dy = p[1] - w;
  return 1 / Math.sqrt(dx * dx + dy * dy) + w * Math.sin(p[0] * p[1]);
}`);
    expect(code).not.toMatch(/tapeb/);
  });

  it('forward over reverse: an idle tape gets no tangent either (it was zerosLike of the tape, a hang)', async () => {
    // kmeans' adjoint (GradBench's eval): sqDist's sweeps record nothing; the Hessian diagonal is its tangent
    const { kmeansAdjointSource } = await import('../evals/kmeans/derivatives.js');
    const r = compile({ 'kmeans_b.ts': kmeansAdjointSource() }, { head: 'kmeansCost_b', wrt: ['centroids'], of: ['centroidsb'], modes: ['tangent'], js: true, runtimeImport: null });
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
    expect(r.code).toMatch(/function sqDist_bwd_d\(tape, a,/);
    expect(r.code).not.toMatch(/zerosLike\(tape/);
  });

  it('a loop that records: its inner tape keeps a shadow', () => {
    const code = second(`export function f(p: number[], w: number): number {
  let s = p[0];
  for (let i = 0; i < 4; i++) s = Math.sin(s * w + p[1]);
  return s * s;
}`);
    expect(code).toMatch(/tapeb/);
  });
});
