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

// Reverse over reverse, particle-style: a simulation calls the gradient tsad generated for an inner
// function (stage 1), and the simulation is differentiated again (stage 2). The inner adjoint's
// linearization temporaries (`temp = Math.sqrt(…)`, `partial = -temp0 / temp`, the guarded `tempb`)
// are final values of its sweep: differentiated again, they are evaluated again at the start of the
// backward sweep from the other final values instead of being pushed and popped (record.ts
// arithDefAtEnd). The derivative is checked against divided differences and against forward over forward.
describe('lean nested adjoints', () => {
  const INNER = `export function potential(p: number[], w: number): number {
  const dx1 = p[0] - 10;
  const dy1 = p[1] - (10 - w);
  const dx2 = p[0] - 10;
  const dy2 = p[1];
  return 1 / Math.sqrt(dx1 * dx1 + dy1 * dy1) + w / Math.sqrt(dx2 * dx2 + dy2 * dy2);
}`;
  const SIM = (inner: 'f' | 'r') => `${
    inner === 'r'
      ? `import { potential_b } from './inner.js';
export function gradPotential(p: number[], w: number): number[] {
  const pb = [0, 0];
  potential_b(p, pb, w, 1);
  return pb;
}`
      : `import { potential_d } from './inner.js';
export function gradPotential(p: number[], w: number): number[] {
  const d0 = potential_d(p, [1, 0], w);
  const d1 = potential_d(p, [0, 1], w);
  return [d0[1], d1[1]];
}`
  }
export function simulate(w: number): number {
  let p0 = 0;
  let p1 = 8;
  let v0 = 0.75;
  let v1 = 0;
  for (let i = 0; i < 40; i++) {
    const g = gradPotential([p0, p1], w);
    p0 = p0 + 0.1 * v0;
    p1 = p1 + 0.1 * v1;
    v0 = v0 - 0.1 * g[0];
    v1 = v1 - 0.1 * g[1];
  }
  return p0 * p0 + p1 * v1;
}`;
  const stage2 = (outer: 'f' | 'r', inner: 'f' | 'r', options: Parameters<typeof compile>[1] = {}) => {
    const first = compile({ 'inner.ts': INNER }, { head: 'potential', wrt: ['p'], modes: [inner === 'f' ? 'tangent' : 'reverse'], runtimeImport: 'tsad/runtime' });
    expect(first.diagnostics.map(formatDiagnostic)).toEqual([]);
    const r = compile({ 'inner.ts': first.code, 'simulate.ts': SIM(inner) }, { head: 'simulate', wrt: ['w'], modes: [outer === 'f' ? 'tangent' : 'reverse'], js: true, runtimeImport: null, ...options });
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
    return r;
  };

  it('reverse over reverse: checked, equal to forward over forward, no linearization temporary on the tape', () => {
    const rr = stage2('r', 'r');
    const rep = checkCompiled(rr, rr.code, 'simulate', [0.3], { seed: 7 });
    expect(rep.messages).toEqual([]);
    expect(rep.tapeEmpty).toBe(true);
    const ff = stage2('f', 'f');
    const dff = (loadGenerated(ff.code)['simulate_d'] as (w: number, wd: number) => [number, number])(0.3, 1)[1];
    const drr = (loadGenerated(rr.code)['simulate_b'] as (w: number, s: number) => number)(0.3, 1);
    expect(Math.abs(drr - dff)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(dff)));
    // the inner adjoint's forward sweep, differentiated again, records none of its temporaries
    const fwd = /function potential_bwd_fwd\([^]*?\n}/.exec(rr.code)![0];
    expect(fwd).not.toMatch(/pushF\((temp|partial)/);
    const bwd = /function potential_bwd_bwd\([^]*?\n}/.exec(rr.code)![0];
    expect(bwd).toMatch(/temp0 = 1 \/ temp;/);
    // potential_b's tape is idle (its sweeps record nothing): its sweeps, differentiated, take the
    // caller's tape instead of a tape of their own kept until the backward sweep
    const bFwd = /function potential_b_fwd\([^]*?\n}/.exec(rr.code)![0];
    expect(bFwd).not.toMatch(/Tape\.acquire|pushR/);
    expect(bFwd).toMatch(/potential_bwd_fwd\(tape0, tape0,/);
    // without recomputation they are recorded, and the derivative is the same, bit for bit
    const naive = stage2('r', 'r', { adjoint: { recompute: false } });
    expect(/function potential_bwd_fwd\([^]*?\n}/.exec(naive.code)![0]).toMatch(/pushF\(temp0\)/);
    expect((loadGenerated(naive.code)['simulate_b'] as (w: number, s: number) => number)(0.3, 1)).toBe(drr);
  });

  it('first order: the final values of a helper are evaluated again from its other final values', () => {
    const src = `function g(x: number, y: number): number {
  const r = Math.sqrt(x * x + y * y);
  const s = 1 / r;
  const t = s * s - x;
  return t * y + Math.exp(s);
}
export function f(xs: number[], y: number): number {
  let acc = 0;
  for (let i = 0; i < xs.length; i++) acc += g(xs[i], y * acc);
  return acc;
}`;
    const r = compile(src, { head: 'f', modes: ['reverse'], js: true, runtimeImport: null });
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
    const rep = checkCompiled(r, r.code, 'f', [[0.3, -0.7, 1.1], 0.4], { seed: 2 });
    expect(rep.messages).toEqual([]);
    expect(rep.tapeEmpty).toBe(true);
    const gFwd = /function g_fwd\([^]*?\n}/.exec(r.code)![0];
    expect(gFwd).not.toMatch(/pushF\((r|s|t)\)/);
  });
});

describe('f_b of a forward sweep that only computes the result', () => {
  const rev = (src: string) => {
    const r = compile(src, { head: 'f', modes: ['reverse'], js: true, runtimeImport: null });
    expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
    return r;
  };
  it('is not run: f_b calls the backward sweep alone', () => {
    const r = rev(`export function f(p: number[], w: number): number {
  const dx = p[0] - 1;
  const dy = p[1] - w;
  return w / Math.sqrt(dx * dx + dy * dy) + (dx > 0 ? dx : -dy);
}`);
    const fb = /function f_b\([^]*?\n}/.exec(r.code)![0];
    expect(fb).not.toMatch(/f_fwd\(/);
    const rep = checkCompiled(r, r.code, 'f', [[0.3, -0.8], 0.7], { seed: 4 });
    expect(rep.messages).toEqual([]);
    expect(rep.tapeEmpty).toBe(true);
  });
  it('is run where it records, loops or writes an array', () => {
    for (const src of [
      `export function f(x: number[]): number { let s = 0; for (let i = 0; i < x.length; i++) s = Math.sin(s + x[i]); return s; }`,
      `export function f(x: number[]): number { x[0] = x[0] * x[1]; return x[0] * x[0]; }`,
    ]) {
      const r = rev(src);
      expect(/function f_b\([^]*?\n}/.exec(r.code)![0]).toMatch(/f_fwd\(/);
      const rep = checkCompiled(r, r.code, 'f', [[0.3, -0.8, 0.4]], { seed: 4 });
      expect(rep.messages).toEqual([]);
    }
  });
});
