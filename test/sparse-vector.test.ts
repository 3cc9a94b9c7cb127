// The sparse vector mode (src/transform/sparse-vector.ts, `compile(…, { sparseVector: true })`): on the
// corpus, with directions that each seed a few of the independents (narrow direction intervals), the
// vector tangent against scalar tangents, and the scalar tangent against divided differences; its
// code type-checks and is deterministic; ht's Jacobian equals the dense vector mode's and the golden one.
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { readFileSync } from 'node:fs';
import { jacfwd } from '../src/index.js';
import { compile } from '../src/api/compile.js';
import { formatDiagnostic } from '../src/frontend/diagnostics.js';
import { loadGenerated } from '../src/api/load.js';
import { jacobianFlat } from '../evals/ht/derivatives.js';
import { prepare } from '../evals/ht/io.js';
import { loadGolden } from '../evals/golden.js';
import { corpus } from './corpus/index.js';
import { compileCase, drawArgs } from './support/corpus.js';
import { typecheckModules } from './support/typecheck.js';

const SEEDS = [11, 24];

describe('sparse vector mode: corpus, narrow directions, against scalar tangents', () => {
  for (const c of corpus) {
    it(c.name, () => {
      const r = compileCase(c, { modes: ['tangent', 'vector'], sparseVector: true });
      expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
      const mod = loadGenerated(r.code, r.runtimeNames);
      let checked = 0;
      for (let k = 0; checked < SEEDS.length && k < SEEDS.length + 6; k++) {
        const seed = SEEDS[k] ?? 1000 + k;
        const rep = checkCompiled(r, mod, c.head, drawArgs(c, seed), { seed, directions: 5, sparseDirections: true });
        if (rep.unstable && rep.tangentError > 1e-6) continue;
        expect(rep.messages, `seed ${seed}`).toEqual([]);
        expect(rep.vectorError, `seed ${seed}`).toBeLessThanOrEqual(1e-12);
        checked++;
      }
      expect(checked).toBe(SEEDS.length);
    });
  }
});

describe('sparse vector mode: generated code', () => {
  it('type-checks under tsc --strict (one batched program)', () => {
    const modules: Record<string, string> = {};
    for (const c of corpus) modules[c.name] = compileCase(c, { js: false, runtimeImport: 'tsad/runtime', modes: ['vector'], sparseVector: true }).code;
    expect(typecheckModules(modules)).toEqual([]);
  });

  it('is deterministic', () => {
    for (const c of corpus.slice(0, 40)) {
      const opts = { js: false, runtimeImport: 'tsad/runtime', modes: ['vector' as const], sparseVector: true };
      expect(compileCase(c, opts).code).toBe(compileCase(c, opts).code);
    }
  });

  it('narrows most of the corpus (a pass that fell back to dense everywhere would pass every check above)', () => {
    // (the dense mode's own code is held byte for byte by test/adjoint-snapshot.test.ts)
    const cases = corpus.slice(0, 40);
    const narrowed = cases.filter((c) => compileCase(c, { modes: ['vector'], sparseVector: true }).code !== compileCase(c, { modes: ['vector'] }).code);
    expect(narrowed.length).toBeGreaterThanOrEqual(cases.length / 2);
  });

  it('is refused without the vector mode (it would change nothing, silently)', () => {
    expect(() => compile({ 'f.ts': 'export function f(x: number): number { return x * x; }' }, { head: 'f', modes: ['reverse'], sparseVector: true })).toThrow(/sparseVector is a form of the vector mode, which options.modes \(reverse\) leaves out/);
  });

  it('narrows the direction loops of ht', () => {
    const src = readFileSync(new URL('../evals/ht/objective.ts', import.meta.url), 'utf8');
    const code = compile({ 'ht.ts': src }, { head: 'htObjectiveSimple', wrt: ['theta'], modes: ['vector'], sparseVector: true }).code;
    const body = (f: string) => code.slice(code.indexOf(`function ${f}_dv(`), code.indexOf('\n}\n', code.indexOf(`function ${f}_dv(`)));
    for (const f of ['boneAngles', 'eulerRotation', 'angleAxisRotation', 'skinningTransforms', 'posedVertices', 'htObjectiveSimpleInto']) {
      // every direction loop but the scans of what the function receives runs over an interval
      const loops = body(f).match(/for \(let nd = [^;]*;/g) ?? [];
      const scans = body(f).match(/directions of \w+ that may be non-zero/g) ?? [];
      expect(loops.filter((l) => l === 'for (let nd = 0;').length, f).toBe(scans.length);
      expect(loops.length, f).toBeGreaterThan(scans.length);
    }
  });
});

// Forms the corpus meets rarely: zero weights (a weighted increment's rows skipped), rows narrowed
// again by reassignment, guarded neighbours, helpers writing arrays, a row read in all directions.
const FORMS = `
function blend(out: Float64Array, x: Float64Array, k: number): number {
  out[k] = x[k] * x[(k + 1) % x.length];
  return out[k] * 2;
}
export function forms(x: Float64Array, w: Float64Array): Float64Array {
  const n = x.length;
  const out = new Float64Array(n);
  let t = 0;
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < n; j++) s += w[(i + j) % n] * Math.sin(x[j]);
    t = i % 2 === 0 ? x[i] * x[i] : 3 * t;
    const left = i > 0 ? out[i - 1] : 0;
    out[i] = s + t + left * 0.5 + blend(out, x, i);
  }
  return out;
}`;

describe('sparse vector mode: forms', () => {
  const dense = compile({ 'f.ts': FORMS }, { head: 'forms', wrt: ['x'], modes: ['tangent', 'vector'], js: true, runtimeImport: null });
  const sparse = compile({ 'f.ts': FORMS }, { head: 'forms', wrt: ['x'], modes: ['tangent', 'vector'], js: true, runtimeImport: null, sparseVector: true });
  it('narrows them', () => {
    expect(sparse.code).toContain('temp0 !== 0 ? xdLo[j] : nbdirs'); // (temp0 = w[(i + j) % n])
    expect(sparse.code).toContain('branch0 ? outdLo[i - 1] : nbdirs'); // (branch0 = i > 0)
    // x's tangent is scanned once, on entry: blend writes out, not x
    expect(sparse.code.match(/directions of xd /g)?.length).toBe(2); // (forms_dv and blend_dv)
  });
  for (const seed of [3, 4, 5]) {
    it(`agrees with the dense vector mode and scalar tangents (seed ${seed})`, () => {
      const n = 7;
      const r = (k: number) => Math.sin(seed * 17 + k * 3.1);
      const x = Float64Array.from({ length: n }, (_, k) => r(k));
      // (weights: zeros at every third index)
      const w = Float64Array.from({ length: n }, (_, k) => (k % 3 === 0 ? 0 : r(k + n)));
      const d = loadGenerated(dense.code), sp = loadGenerated(sparse.code);
      // each float of x in one direction of 4, the last direction none
      const nb = 5;
      const xd = new Float64Array(n * nb);
      for (let k = 0; k < n; k++) xd[k * nb + ((k + seed) % (nb - 1))] = 1 + k;
      const [, want] = d.forms_dv(x, xd, w, nb) as [Float64Array, Float64Array];
      const [, got] = sp.forms_dv(x, xd, w, nb) as [Float64Array, Float64Array];
      expect(Array.from(got).filter((v, i) => !(v === want[i]))).toEqual([]);
      const rep = checkCompiled(sparse, sp, 'forms', [x, w], { seed, directions: 5, sparseDirections: true });
      expect(rep.messages).toEqual([]);
    });
  }
});

describe('sparse vector mode: the runtime API', () => {
  it("jacfwd with { sparseVector: true } gives jacfwd's Jacobian", () => {
    // a banded map: each output depends on three inputs
    function band(x: number[]): Float64Array {
      const y = new Float64Array(x.length);
      for (let i = 0; i < x.length; i++) y[i] = Math.sin(x[i]) * (i > 0 ? x[i - 1] : 1) + (i + 1 < x.length ? x[i + 1] * x[i + 1] : 0);
      return y;
    }
    const x = Array.from({ length: 9 }, (_, k) => Math.cos(k));
    // (the same numbers, a zero's sign aside: +0 outside every interval where the dense mode gives −0)
    const sparse = jacfwd(band, { sparseVector: true })(x), dense = jacfwd(band)(x);
    expect(sparse.flatMap((row, i) => row.filter((v, j) => !(v === dense[i][j])))).toEqual([]);
    // (its vector tangent is the sparse one)
    const code = compile({ 'band.ts': `export ${band.toString().replace('function band(x)', 'function band(x: number[]): Float64Array')}` }, { head: 'band', modes: ['vector'], sparseVector: true }).code;
    expect(code).toContain('xdLo[i - 1]');
  });
});

describe('sparse vector mode: ht', () => {
  for (const g of loadGolden('ht')) {
    it(`${g.name}: the Jacobian equals the dense vector mode's and the golden one`, () => {
      const a = prepare(g.input);
      const sparse = jacobianFlat(a, true);
      const dense = jacobianFlat(a, false);
      // (bit for bit, up to the sign of zeros: a direction outside every interval stays +0 where the dense mode computes −0)
      const differ = Array.from(sparse.jac).filter((x, i) => !(x === dense.jac[i]));
      expect(differ).toEqual([]);
      const want = (g.outputs as { jacobian: number[][] }).jacobian.flat();
      for (let i = 0; i < want.length; i++) expect(Math.abs(sparse.jac[i] - want[i])).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(want[i])));
    });
  }
});
