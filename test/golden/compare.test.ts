// The golden comparator itself: what it equates and what it tells apart.
import { describe, expect, it } from 'vitest';
import { compareFunctions, userNamesOf } from './compare.js';

const users = userNamesOf('function f(x: number, y: number[], n: number): number { return x * y[n]; }');
const same = (a: string, b: string, commutative = false) => compareFunctions(a, b, 'f_d', { userNames: users, commutative }).equal;

describe('golden comparator', () => {
  it('ignores formatting, comments, parentheses, literal spelling, types and assignment sugar', () => {
    expect(same(
      'export function f_d(x: number, xd: number): [number, number] { xd = xd * 2.0; /* c */ return [x, xd]; }',
      'function f_d(x, xd) {\n  // tangent\n  xd *= (2);\n  return [(x), xd];\n}',
    )).toBe(true);
    expect(same('function f_d(i: number) { for (let k = 0; k < i; k++) i = i + 1; }', 'function f_d(i: number) { for (let k = 0; k < i; k += 1) { i++; } }')).toBe(true);
  });

  it('equates consistent renamings of fresh names, not of user names', () => {
    expect(same('function f_d(x: number) { const temp = x * x; const tempb = temp + 1; return tempb; }', 'function f_d(x: number) { const t1 = x * x; const t2 = t1 + 1; return t2; }')).toBe(true);
    // inconsistent: two fresh names on one side, one on the other
    expect(same('function f_d(x: number) { const t1 = x; const t2 = x; return t1 + t2; }', 'function f_d(x: number) { const t1 = x; const t2 = x; return t1 + t1; }')).toBe(false);
    // user names are kept: x and xd are not interchangeable
    expect(same('function f_d(x: number, xd: number) { return x; }', 'function f_d(x: number, xd: number) { return xd; }')).toBe(false);
    // property names are never renamed
    expect(same('function f_d(tape: Tape) { tape.pushF(1); }', 'function f_d(tape: Tape) { tape.pushI(1); }')).toBe(false);
  });

  it('ignores hoisted pure declarations at the top and reads declarations as assignments', () => {
    expect(same(
      'function f_d(x: number, xd: number) { let temp = 0; let i = 0; let r!: number; for (i = 0; i < 3; i++) { temp = x * x; } return temp; }',
      'function f_d(x: number, xd: number) { let temp: number; for (let i = 0; i < 3; i++) { const temp = x * x; } return temp; }',
    )).toBe(true);
    // a zero assignment that is not a leading declaration is a statement like any other
    expect(same('function f_d(x: number, xd: number) { x = 1; let t = 0; return t; }', 'function f_d(x: number, xd: number) { x = 1; return t; }')).toBe(false);
  });

  it('tells apart operand order, association, extra statements and different temporaries', () => {
    expect(same('function f_d(x: number, y: number[]) { return x * y[0]; }', 'function f_d(x: number, y: number[]) { return y[0] * x; }')).toBe(false);
    expect(same('function f_d(x: number, y: number[]) { return x * y[0]; }', 'function f_d(x: number, y: number[]) { return y[0] * x; }', true)).toBe(true);
    expect(same('function f_d(x: number, n: number) { return (x + n) + 1; }', 'function f_d(x: number, n: number) { return x + (n + 1); }', true)).toBe(false);
    expect(same('function f_d(x: number) { return -x * x; }', 'function f_d(x: number) { return -(x * x); }')).toBe(false);
    expect(same('function f_d(x: number) { return x * x; }', 'function f_d(x: number) { const t = x; return t * t; }')).toBe(false);
    expect(same('function f_d(x: number, xd: number) { xd = 0; x = 5; }', 'function f_d(x: number, xd: number) { x = 5; }')).toBe(false);
  });

  it('orders commuted operands independently of fresh names', () => {
    expect(same('function f_d(x: number) { const t = x; return t * x + x; }', 'function f_d(x: number) { const u = x; return x + x * u; }', true)).toBe(true);
  });

  it('reports the first difference with the source text of both sides', () => {
    const r = compareFunctions('function f_d(x: number, xd: number) { xd = 0; x = 5; }', 'function f_d(x: number, xd: number) { x = 5; }', 'f_d', { userNames: users });
    expect(r.difference).toContain('expected `x = 5;`');
    expect(r.difference).toContain('tsad `xd = 0;`');
  });
});
