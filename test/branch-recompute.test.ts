// Branches the backward sweep reverses by evaluating their condition again (traverse.ts,
// conditionHoldsInBwd): arithmetic over parameters the function never assigns and indices of enclosing
// counted loops records nothing; a condition on anything that may have changed keeps its control code
// on the tape. Each program is checked in every mode at a point (divided differences, the dot-product
// test, an empty tape).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkCompiled } from '../src/api/check.js';
import { compile } from '../src/api/compile.js';
import { checkedCode } from './support/checked.js';

/** the body of the generated function `name` */
function fnText(code: string, name: string): string {
  const start = code.indexOf(`function ${name}(`);
  expect(start, name).toBeGreaterThanOrEqual(0);
  const next = code.indexOf('\nexport function ', start + 1);
  return code.slice(start, next < 0 ? undefined : next);
}

describe('branch conditions evaluated again in the backward sweep', () => {
  it("det's column test (a parameter bit mask and the loop index): no control code per column", () => {
    const src = readFileSync(new URL('../evals/det/objective.ts', import.meta.url), 'utf8');
    const A = [0.3, -1.2, 0.8, 2.1, 0.4, -0.6, 1.5, 0.9, -0.2, 0.7, 1.1, -0.8, 0.5, 0.35, -1.4, 0.6];
    // (with respect to A: ell is a size)
    const r = compile(src, { head: 'det', wrt: ['A'], js: true, runtimeImport: null });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const rep = checkCompiled(r, r.code, 'det', [A, 4]);
    expect(rep.messages).toEqual([]);
    expect(rep.ok).toBe(true);
    const code = r.code;
    const bwd = fnText(code, 'detMinor_bwd');
    expect(bwd).toContain('if ((removed >> j0 & 1) === 0) {');
    expect(bwd).toContain('if (row === ell - 1) {');
    // (the early return's flags are locals: still recorded)
    expect(bwd.match(/tape\.popI\(\)/g)?.length).toBe(3);
  });

  it('a parameter the function assigns, a local, the index of a loop that is not counted: recorded', () => {
    const src = `export function f(x: number[], n: number, k: number): number {
  let s = 0;
  let m = k * 2;
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) s += x[i] * x[i];
    if (m > 3) s += Math.sin(x[i]);
  }
  let j = 0;
  while (j < n) {
    if (j > 1) s += x[j] * s;
    j += 1 + (x[j] > 0 ? 0 : 0);
  }
  n = n - 1;
  if (n > 1) s *= x[0];
  return s;
}`;
    const code = checkedCode(src, 'f', [[0.4, -0.3, 1.2, 0.8, -0.5], 5, 2]);
    const bwd = fnText(code, 'f_bwd');
    // i % 2 over the counted loop's index: evaluated again; m (a local), j (a while loop's), n (assigned): recorded
    expect(bwd).toContain('if (i % 2 === 0) {');
    expect(bwd).not.toMatch(/if \(m > 3\)/);
    expect(bwd).not.toMatch(/if \(j > 1\)/);
    expect(bwd).not.toMatch(/if \(n > 1\)/);
  });

  it('a condition on a parameter read through an array element is recorded (the element may change)', () => {
    const src = `export function g(x: number[], flags: number[]): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    if (flags[i] > 0) s += x[i] * x[i];
    flags[i] = -flags[i];
  }
  return s;
}`;
    const code = checkedCode(src, 'g', [[0.4, -0.3, 1.2], [1, -1, 1]]);
    expect(fnText(code, 'g_bwd')).not.toMatch(/if \(flags\[i\] > 0\)/);
  });
});
