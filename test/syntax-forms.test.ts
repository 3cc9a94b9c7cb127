// TypeScript spellings the front end accepts that lower to forms the IR census cannot tell apart
// (test/fuzz/syntax-forms.ts): the generator writes them (TsFormSpec), the coverage table counts them as
// `syntax.*` cells, and the fixed-seed fuzz run checks their programs in every mode. Here: the census
// tells them apart from what the generator wrote before, and the compound bitwise assignments the
// generator writes (`m &= 7`, `m ^= 2`, `m <<= 1`, `m >>= 1`, `m >>>= 0`) lower as their binary operators.
import { describe, expect, it } from 'vitest';
import { compile } from '../src/api/compile.js';
import { checkCompiled } from '../src/api/check.js';
import { loadGenerated } from '../src/api/load.js';
import { syntaxFormsOf } from './fuzz/syntax-forms.js';
import { typecheckModules } from './support/typecheck.js';

describe('syntax forms', () => {
  it('the census finds each spelling, and none in the spellings the generator wrote before', () => {
    const src = [
      'type Span = { lo: number; hi: number };',
      'interface Scaled extends P { k: number }',
      'function g(x: number, y?: number, k = 0): number {',
      "  if (!(x >= 0)) throw new RangeError('x');",
      "  const o = { u: x as number, v: 1, w: 2 } satisfies P;",
      "  o['v'] = (k & 1) + (y == null ? 0 : y) + Number.MAX_VALUE;",
      '  return new Uint16Array(2)[0] + o.v;',
      '}',
    ].join('\n');
    expect([...syntaxFormsOf(src)].sort()).toEqual(['syntax.bitwise', 'syntax.cast', 'syntax.extends', 'syntax.keyaccess', 'syntax.looseeq', 'syntax.number', 'syntax.throw', 'syntax.typealias', 'syntax.uint']);
    const before = 'const t = [] as number[];\nconst k = (x * 3) | 0;\nconst h = n >> 1;\nconst e = Number.EPSILON;\nif (a !== b && o.u === 1) t.push(o.v);\n';
    expect([...syntaxFormsOf(before)]).toEqual([]);
  });

  it('compound bitwise assignments on integers: the primal and its derivatives (refused before)', () => {
    const src = `export function f(x: number, a: number[]): number {
  let s = 0;
  for (let k = 0; k < 4; k++) {
    let m = k << 1;
    m |= k & 1;
    m ^= 2;
    m &= 7;
    m <<= 1;
    m >>= 1;
    m >>>= 0;
    s += a[m % a.length] * x * ((m & 1) === 1 ? 1 : 0.5);
  }
  return s;
}
`;
    const r = compile(src, { head: 'f', js: true, runtimeImport: null });
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
    const mod = loadGenerated(r.code, r.runtimeNames);
    const a = [1, 2, 3, 4, 5];
    let want = 0;
    for (let k = 0; k < 4; k++) {
      let m = k << 1;
      m |= k & 1;
      m ^= 2;
      m &= 7;
      m <<= 1;
      m >>= 1;
      m >>>= 0;
      want += a[m % a.length] * 0.7 * ((m & 1) === 1 ? 1 : 0.5);
    }
    expect((mod.f as (x: number, a: number[]) => number)(0.7, a)).toBe(want);
    const rep = checkCompiled(r, mod, 'f', [0.7, a]);
    expect(rep.ok, rep.messages.join('; ')).toBe(true);
  });

  // (found by the fixed-seed run with loose equality: the generated TypeScript declared `const n = 3` and
  // tsc --strict refused `n != 1`, a comparison of the literal types 3 and 1)
  it('a `const` declared wider than its literal (`const n: number = 3`) keeps its type in the generated code', () => {
    const src = `export function f(x: number): number {
  const n: number = 3;
  const m: number = -2;
  let s = x;
  for (let k = 0; k < 2; k++) s = Math.tanh(s + (n != 1 ? x : 0.5 * x) + (m === 0 ? 0.25 : 0));
  return s;
}
`;
    const r = compile(src, { head: 'f', runtimeImport: 'tsad/runtime' });
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(typecheckModules({ widened: r.code })).toEqual([]);
  });
});
