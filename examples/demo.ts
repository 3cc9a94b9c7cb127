// The demo: differentiate a small objective in every mode, print the gradient and its check.
import { checkCompiled } from '../src/api/check.js';
import { compile } from '../src/api/compile.js';
import { loadGenerated } from '../src/api/load.js';
import { grad } from '../src/api/runtime.js';

const source = `
/** Negative log-likelihood of a logistic regression on a few points. */
export function nll(w: number[], xs: number[][], ys: number[]): number {
  let total = 0;
  for (let i = 0; i < xs.length; i++) {
    let z = 0;
    for (let j = 0; j < w.length; j++) z += w[j] * xs[i][j];
    const p = 1 / (1 + Math.exp(-z));
    total -= ys[i] > 0.5 ? Math.log(p) : Math.log(1 - p);
  }
  return total;
}
`;

const w = [0.5, -0.25, 0.1];
const xs = [[1, 2, 0.5], [0.3, -1, 2], [-0.7, 0.4, 1.1], [2, 0.1, -0.3]];
const ys = [1, 0, 1, 0];

const ts = compile(source, { head: 'nll', wrt: ['w'] });
console.log('--- generated TypeScript (adjoint part) ---');
console.log(ts.code.slice(ts.code.indexOf('export function nll_fwd')));

const js = compile(source, { head: 'nll', wrt: ['w'], js: true, runtimeImport: null });
const m = loadGenerated(js.code);
const wb = [0, 0, 0];
m.nll_b(w, wb, xs, ys, 1);
console.log('gradient (adjoint, nll_b):  ', wb.map((v) => v.toFixed(10)).join('  '));
const [, dir] = m.nll_d(w, [1, 0, 0], xs, ys) as [number, number];
console.log('d nll / d w0 (tangent, nll_d):', dir.toFixed(10));

const report = checkCompiled(js, js.code, 'nll', [w, xs, ys]);
console.log(`check: tangent vs divided differences ${report.accuracy.tangent.toFixed(1)} digits, ` +
  `dot-product test ${report.accuracy.dot.toFixed(1)} digits, tape empty: ${report.tapeEmpty} -> ${report.ok ? 'PASSED' : 'FAILED'}`);

// the same from plain JavaScript, no build step
const sq = (v: number[]) => { let s = 0; for (let i = 0; i < v.length; i++) s += v[i] * v[i] * Math.sin(v[i]); return s; };
console.log('grad of a plain JS function:', (grad(sq)([0.1, 0.2, 0.3]) as number[]).map((v) => v.toFixed(6)).join('  '));
