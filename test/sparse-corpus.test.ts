// The premise of sparsity detection (src/api/sparse.ts) on real derivative code: a sweep seeded with NaN
// on one column per direction shows NaN wherever the Jacobian can be non-zero. On a sample of the corpus
// (every 8th case: loops, callbacks, classes, sorting, closures, typed arrays, …), the exactly detected
// pattern holds every entry the dense Jacobian, by unit tangents, shows non-zero at the same point; and
// through forward over reverse (every 16th case), every entry of the dense Hessian.
import { describe, expect, it } from 'vitest';
import { loadGenerated } from '../src/api/load.js';
import { detectPattern } from '../src/api/sparse.js';
import { generatedOf, independentCount, outputCount, packedSweep, tangentColumns } from '../src/api/sweeps.js';
import { corpus } from './corpus/index.js';
import { compileHvp } from '../src/api/hessian.js';
import { caseSources, compileCase, drawArgs } from './support/corpus.js';

const sample = corpus.filter((_, i) => i % 8 === 0);

describe('NaN-seeded detection on corpus derivative code', () => {
  it.each(sample.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const r = compileCase(c, { modes: ['tangent', 'vector'] });
    if (r.diagnostics.length) return; // (cases that are refused are the corpus tests' business)
    const mod = loadGenerated(r.code, r.runtimeNames);
    const args = drawArgs(c, 7);
    const params = r.manifest.find((m) => m.name === `${c.head}_d`)?.params.filter((p) => p.role === 'primal').map((p) => p.name) ?? [];
    const g = generatedOf(r.manifest, r.wrt, mod, params, args, { primal: c.head, tangent: `${c.head}_d`, vector: `${c.head}_dv` }, r.of);
    if (!g.tangent) return;
    const n = independentCount(g, args), m = outputCount(g, args);
    if (!n || !m) return;
    const { pattern } = detectPattern(packedSweep(g, args), m, n, true);
    const columns = tangentColumns(g, args, Array.from({ length: n }, (_, j) => j));
    for (let j = 0; j < n; j++)
      for (let i = 0; i < m; i++) {
        const d = columns[j][i];
        if (d === 0 || !Number.isFinite(d)) continue;
        const row = pattern.colIdx.subarray(pattern.rowPtr[i], pattern.rowPtr[i + 1]);
        expect(row.includes(j), `${c.name}: ∂out${i}/∂in${j} = ${d} but NaN did not reach it`).toBe(true);
      }
  });
});

describe('NaN-seeded detection on corpus Hessians (forward over reverse)', () => {
  it.each(corpus.filter((_, i) => i % 16 === 5).map((c) => [c.name, c] as const))('%s', (_, c) => {
    const first = compileCase(c, { modes: ['tangent'] });
    if (first.diagnostics.length) return;
    const r = compileHvp(caseSources(c.file), { head: c.head, wrt: first.wrt, js: true, runtimeImport: null });
    if (r.diagnostics.length) return; // (not a scalar function, or its gradient code cannot be differentiated again)
    const mod = loadGenerated(r.code, r.runtimeNames);
    const args = drawArgs(c, 11);
    const params = r.manifest.find((e) => e.name === `${c.head}_grad_d`)?.params.filter((p) => p.role === 'primal').map((p) => p.name) ?? [];
    const g = generatedOf(r.manifest, r.wrt, mod, params, args, { primal: `${c.head}_grad`, tangent: `${c.head}_grad_d`, vector: `${c.head}_grad_dv` });
    const n = independentCount(g, args);
    if (!n || !g.tangent) return;
    const { pattern } = detectPattern(packedSweep(g, args), n, n, true);
    const columns = tangentColumns(g, args, Array.from({ length: n }, (_, j) => j));
    for (let j = 0; j < n; j++)
      for (let i = 0; i < n; i++) {
        const d = columns[j][i];
        if (d === 0 || !Number.isFinite(d)) continue;
        const row = pattern.colIdx.subarray(pattern.rowPtr[i], pattern.rowPtr[i + 1]);
        expect(row.includes(j), `${c.name}: H[${i}][${j}] = ${d} but NaN did not reach it`).toBe(true);
      }
  });
});
