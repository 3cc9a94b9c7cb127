// The Efficient Recomputation Algorithm (src/transform/effrec.ts) against the acceptance tests of
// the ERA design note (recompute.md, §7: AT-1 … AT-15, with their expected values copied into this file): the tagged structure of each adjoint and its
// gradient, against the note's values and central divided differences.
import { describe, expect, it } from 'vitest';
import { frontEnd } from '../src/api/compile.js';
import { eraAdjoint, eraPrimitives, type EraOptions, type EraResult } from '../src/transform/effrec.js';

type Run = (...args: unknown[]) => { adjoints: number[]; counts: { stmts: number; bodies: number; stores: number; restores: number } };

function era(src: string, head: string, opts: EraOptions = {}): EraResult & { run: Run; tags: string } {
  const r = eraAdjoint(frontEnd(src), head, opts);
  const run = (0, eval)(r.js) as Run;
  const tags = r.items.map((it) => `${it.tag.kind}${it.tag.forStmt}${it.tag.kind === 'E' || it.tag.kind === 'L' ? `.${it.tag.origStmt ?? '?'}` : ''}`).join(' ');
  return { ...r, run, tags };
}

/** central divided difference of the scalar function `f` of module `src` in its first argument */
function dd(src: string, head: string, args: unknown[], k = 0): number {
  const js = src.replace(/: number\[\]/g, '').replace(/: number/g, '').replace(/: readonly number\[\]/g, '').replace(/export /g, '');
  const f = new Function(`${js}; return ${head};`)() as (...a: unknown[]) => number;
  const h = 1e-6;
  const at = (d: number) => {
    const a = args.map((x) => (Array.isArray(x) ? [...x] : x));
    a[k] = (a[k] as number) + d;
    return f(...a);
  };
  return (at(h) - at(-h)) / (2 * h);
}

const FIG1 = `export function fig1(x: number): number {
  let y = 2 * x;
  const w = Math.cos(y);
  y = Math.sin(y);
  const z = y * w;
  return z;
}`;
// the note's blocks end with their dependent assigned; tsad's form returns it, so a last statement
// `__result = z` (number 5 here) carries the seed and its adjoint A5 comes first

describe('strategies on figure 1', () => {
  const x = 0.37;
  const want = 2 * Math.cos(4 * x);
  it('AT-1 SA: four stores, four restores', () => {
    const r = era(FIG1, 'fig1', { strategy: 'SA' });
    expect(r.items.filter((i) => i.tag.kind === 'S').length).toBe(5);
    expect(r.items.filter((i) => i.tag.kind === 'R').length).toBe(5);
    expect(r.run(x, 1).adjoints[0]).toBeCloseTo(want, 14);
  });
  it('AT-2 SM: only the store and restore of y before statement 3', () => {
    const r = era(FIG1, 'fig1', { strategy: 'SM' });
    expect(r.items.filter((i) => i.tag.kind === 'S' || i.tag.kind === 'R').map((i) => `${i.tag.kind}${i.tag.forStmt}`)).toEqual(['S3', 'R3']);
    expect(r.run(x, 1).adjoints[0]).toBeCloseTo(want, 14);
  });
  it('AT-3 RA: every adjoint statement preceded by the block before it (E3.2 and E2.1 included)', () => {
    const r = era(FIG1, 'fig1', { strategy: 'RA' });
    expect(r.tags).toBe('E5.1 E5.2 E5.3 E5.4 A5 E4.1 E4.2 E4.3 A4 E3.1 E3.2 A3 E2.1 A2 A1');
    expect(r.run(x, 1).adjoints[0]).toBeCloseTo(want, 14);
  });
  it('AT-4 ERA: B1 B2 B3 A4 E3.1 A3 E2.1 A2 A1, required {x}, gradient 2cos(4x)', () => {
    const r = era(FIG1, 'fig1');
    // z = y*w is not computed: the return's adjoint A5 is linear in it
    expect(r.tags).toBe('B1 B2 B3 A5 A4 E3.1 A3 E2.1 A2 A1');
    expect(r.required).toEqual(['x']);
    expect(r.run(x, 1).adjoints[0]).toBeCloseTo(0.18134324892861936, 14);
  });
  it('AT-5 extended ERA equals RM: no E2.1, and z = y*w is never recomputed', () => {
    const r = era(FIG1, 'fig1', { strategy: 'ERA+' });
    expect(r.tags).toBe('B1 B2 B3 A5 A4 E3.1 A3 A2 A1');
    expect(r.run(x, 1).adjoints[0]).toBeCloseTo(0.18134324892861936, 14);
  });
});

describe('ERA mechanics', () => {
  const AT6 = `export function at6(x: number): number {
  let v = x * x;
  let a = Math.sin(v);
  v = Math.cos(x);
  a = a * v;
  const z = a * a;
  return z;
}`;
  it("AT-6 the 'lost' loop: E4 = <1, 2, 3>; without it the gradient is wrong", () => {
    const r = era(AT6, 'at6');
    expect(r.tags).toBe('B1 B2 B3 B4 A6 A5 E4.1 E4.2 E4.3 A4 A3 E2.1 A2 A1');
    expect(r.run(0.37, 1).adjoints[0]).toBeCloseTo(0.161366557431, 11);
    expect(r.run(0.37, 1).adjoints[0]).toBeCloseTo(dd(AT6, 'at6', [0.37]), 7);
    const broken = era(AT6, 'at6', { noLostLoop: true });
    expect(broken.run(0.37, 1).adjoints[0]).toBeCloseTo(0.01298, 5);
  });

  const AT7 = `export function at7(x: number): number {
  let y = x * x;
  let z = 0;
  if (y > 1) {
    z = Math.sin(y);
  } else {
    z = 2 * y;
  }
  y = z * z;
  const r = y * z;
  return r;
}`;
  it('AT-7 control flow: the condition variable is recomputed before the adjoint IF', () => {
    const r = era(AT7, 'at7');
    // statement 3 is the IF (z = 0 before it is not needed): y = x*x is recomputed in front of it
    expect(r.tags).toBe('B1 B3 B4 A6 A5 A4 E3.1 A3 A2 A1');
    expect(r.run(0.37, 1).adjoints[0]).toBeCloseTo(0.3328509936, 9);
    expect(r.run(1.5, 1).adjoints[0]).toBeCloseTo(-3.42265492668, 9);
    expect(r.run(1.5, 1).adjoints[0]).toBeCloseTo(dd(AT7, 'at7', [1.5]), 6);
  });

  const AT8 = `export function at8(x: number): number {
  let p = 0.5;
  const y = p * x * x;
  p = 2;
  const z = p * y * y;
  return z;
}`;
  it('AT-8 passive required variable: p = 0.5 is recomputed, passive statements get no adjoint', () => {
    const r = era(AT8, 'at8', { passive: ['p'] });
    expect(r.tags).toBe('B1 B2 B3 A5 A4 E2.1 A2');
    expect(r.run(0.7, 1).adjoints[0]).toBeCloseTo(0.686, 12);
  });

  it('AT-9 linear code: no forward or recomputation statement at all', () => {
    const r = era(`export function at9(x: number): number {
  const y = 2 * x;
  const z = y + 3 * x;
  return z;
}`, 'at9');
    expect(r.items.every((i) => i.tag.kind === 'A')).toBe(true);
    expect(r.run(0.4, 1).adjoints[0]).toBe(5);
  });

  it('AT-10 single assignment: a B prefix and no E', () => {
    const r = era(`export function at10(x: number): number {
  const a = Math.sin(x);
  const b = a * x;
  const z = b * a;
  return z;
}`, 'at10');
    expect(r.tags).toBe('B1 B2 A4 A3 A2 A1');
    const x = 0.6;
    expect(r.run(x, 1).adjoints[0]).toBeCloseTo(2 * Math.sin(x) * Math.cos(x) * x + Math.sin(x) ** 2, 14);
  });

  const AT12 = `export function at12(x: number): number {
  const y = Math.sin(x);
  x = x * y;
  const z = x * x;
  return z;
}`;
  it('ERA and extended ERA agree with divided differences at random points (every scalar example)', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    for (const [src, head] of [[FIG1, 'fig1'], [AT6, 'at6'], [AT7, 'at7'], [AT8, 'at8'], [AT12, 'at12']] as const)
      for (const strategy of ['ERA', 'ERA+', 'SA', 'SM', 'RA'] as const) {
        if (head === 'at7' && strategy !== 'ERA' && strategy !== 'ERA+') continue;
        const r = era(src, head, { strategy, passive: head === 'at8' ? ['p'] : [] });
        for (let k = 0; k < 4; k++) {
          const x = 0.2 + 1.6 * rand();
          const g = r.run(x, 1).adjoints[0];
          expect(Math.abs(g - dd(src, head, [x])) / Math.max(1, Math.abs(g)), `${head} ${strategy} at ${x}`).toBeLessThan(1e-6);
        }
      }
  });

  it('AT-12 an overwritten independent is saved in a prologue and restored by E slices', () => {
    const r = era(AT12, 'at12');
    expect(r.tags).toBe('P0 B1 B2 A4 A3 E2.-1 A2 E1.-1 A1');
    expect(r.run(0.7, 1).adjoints[0]).toBeCloseTo(1.06389336766, 10);
    const plus = era(AT12, 'at12', { strategy: 'ERA+' });
    expect(plus.tags).toBe('P0 B1 B2 A4 A3 E2.-1 A2 A1');
    expect(plus.run(0.7, 1).adjoints[0]).toBeCloseTo(1.06389336766, 10);
    // x is never written in figure 1: nothing is saved there
    expect(era(FIG1, 'fig1').items.some((i) => i.tag.kind === 'P')).toBe(false);
  });
});

describe('directives, loops, calls, arrays', () => {
  const FIG1_STORE = FIG1.replace('  y = Math.sin(y);', '  // $ad store y\n  y = Math.sin(y);');
  it('AT-11 a STORE before statement 3: stored in the forward prefix, restored instead of recomputed; ERA+ gives SM', () => {
    const r = era(FIG1_STORE, 'fig1');
    // the directive is statement 3 (as in the note's listing 5.2(c)): y = sin(y) is 4, z = y*w 5
    expect(r.tags).toBe('B1 B2 store3 B4 A6 A5 restore4 A4 E2.1 A2 A1');
    expect(r.run(0.37, 1).adjoints[0]).toBeCloseTo(0.18134324892861936, 14);
    const plus = era(FIG1_STORE, 'fig1', { strategy: 'ERA+' });
    expect(plus.tags).toBe('B1 B2 store3 B4 A6 A5 restore4 A4 A2 A1');
    expect(plus.run(0.37, 1).adjoints[0]).toBeCloseTo(0.18134324892861936, 14);
  });

  it('AT-13a independent iterations: a local B slice in the adjoint loop, no recomputation loop, no forward sweep', () => {
    const src = `export function at13a(x: number): number {
  let z = 0;
  for (let k = 1; k < 4; k++) {
    const t = Math.sin(x * k);
    z = z + t * t;
  }
  return z;
}`;
    const r = era(src, 'at13a', { instrument: true });
    expect(r.tags).toBe('A3 A2 A1');
    expect(r.items[1].text).toMatch(/for \(let k = 4 - 1; k >= 1; k--\) \{\n\s+t = Math\.sin\(\(x \* k\)\);/);
    expect(r.items[1].text).not.toMatch(/k_/);
    const x = 0.8;
    const want = [1, 2, 3].reduce((s, k) => s + 2 * Math.sin(x * k) * Math.cos(x * k) * k, 0);
    expect(r.run(x, 1).adjoints[0]).toBeCloseTo(want, 14);
  });

  const AT13 = (store: string) => `export function at13(x: number, n: number): number {
  let y = x;
  for (let k = 0; k < n; k++) {
    ${store}
    y = y * Math.sin(y);
  }
  const z = y * y;
  return z;
}`;
  it('AT-13b a loop-carried value: a leading recomputation loop, n(n+1)/2 body executions', () => {
    const r = era(AT13(''), 'at13', { instrument: true, wrt: ['x'] });
    expect(r.tags).toBe('B1 B2 A4 A3 A2 A1');
    expect(r.items.find((i) => i.tag.forStmt === 2 && i.tag.kind === 'A')!.text).toMatch(/for \(k_ = 0; k_ < k; k_\+\+\)/);
    const out = r.run(1.3, 3, 1);
    expect(out.adjoints[0]).toBeCloseTo(5.32681606574, 10);
    expect(out.counts.bodies).toBe(6);
    expect(r.run(1.3, 10, 1).counts.bodies).toBe(55);
  });

  it('AT-13c with a keyed STORE: stores in the forward loop, restores in the adjoint loop, no recomputation loop', () => {
    const r = era(AT13('// $ad store y'), 'at13', { instrument: true, wrt: ['x'] });
    const loopAdj = r.items.find((i) => i.tag.forStmt === 2 && i.tag.kind === 'A')!.text;
    expect(loopAdj).toMatch(/y = __T_y\[k\];/);
    expect(loopAdj).not.toMatch(/k_/);
    expect(r.items.find((i) => i.tag.kind === 'B' && i.tag.forStmt === 2)!.text).toMatch(/__T_y\[k\] = y;/);
    const out = r.run(1.3, 3, 1);
    expect(out.adjoints[0]).toBeCloseTo(5.32681606574, 10);
    const ten = r.run(1.3, 10, 1).counts;
    expect([ten.stores, ten.restores, ten.bodies]).toEqual([10, 10, 10]);
  });

  const AT14 = `function sub(a: number, w: number[]): void {
  w[0] = Math.sin(a);
  w[1] = a * a;
}
export function at14(x: number, w: number[]): number {
  sub(x, w);
  const z = w[0] * w[1];
  w[0] = z * w[0];
  const r = w[0] * w[1];
  return r;
}`;
  it('AT-14 calls: the whole call re-runs as E slices (no routine slicing); ERA+ needs one fewer', () => {
    const r = era(AT14, 'at14', { wrt: ['x'] });
    expect(r.tags).toBe('B1 B2 B3 A5 A4 E3.1 A3 E2.1 A2 A1');
    const g = r.run(0.8, [0, 0], [0, 0], 1).adjoints[0];
    expect(g).toBeCloseTo(1.46332565864, 10);
    const plus = era(AT14, 'at14', { wrt: ['x'], strategy: 'ERA+' });
    expect(plus.tags).toBe('B1 B2 B3 A5 A4 E3.1 A3 A2 A1');
    expect(plus.run(0.8, [0, 0], [0, 0], 1).adjoints[0]).toBeCloseTo(1.46332565864, 10);
  });

  const AT15 = `export function at15(x: number, a: number[]): number {
  a[1] = x * x;
  const b = Math.sin(a[1]);
  a[2] = 2 * x;
  const z = b * a[2];
  return z;
}`;
  it('AT-15 arrays: whole-array kills recompute a[1] needlessly; element regions do not; same gradient', () => {
    const whole = era(AT15, 'at15', { wrt: ['x'] });
    expect(whole.tags).toBe('B1 B2 B3 A5 A4 A3 E2.1 A2 A1');
    const regions = era(AT15, 'at15', { wrt: ['x'], regions: true });
    expect(regions.tags).toBe('B1 B2 B3 A5 A4 A3 A2 A1');
    const x = 0.6;
    const want = 2 * Math.cos(x * x) * 2 * x * x + 2 * Math.sin(x * x);
    expect(whole.run(x, [0, 0, 0], [0, 0, 0], 1).adjoints[0]).toBeCloseTo(want, 13);
    expect(regions.run(x, [0, 0, 0], [0, 0, 0], 1).adjoints[0]).toBeCloseTo(want, 13);
  });

  it('placement invariants: B slices before the first adjoint statement, adjoints in reverse order, each E right before its A', () => {
    for (const [src, head] of [[FIG1, 'fig1'], [AT14, 'at14']] as const) {
      const r = era(src, head);
      const firstA = r.items.findIndex((i) => i.tag.kind === 'A');
      expect(r.items.slice(firstA).some((i) => i.tag.kind === 'B')).toBe(false);
      const order = r.items.filter((i) => i.tag.kind === 'A').map((i) => i.tag.forStmt);
      expect(order).toEqual([...order].sort((a, b) => b - a));
      r.items.forEach((it, k) => {
        if (it.tag.kind !== 'E') return;
        const next = r.items.slice(k).find((i) => i.tag.kind === 'A')!;
        expect(next.tag.forStmt).toBe(it.tag.forStmt);
      });
    }
  });
});

describe('data-flow primitives (recompute.md §7, on figure 1)', () => {
  it('USE, KILL, GEN, SLICE and the uses of adjoint statements', () => {
    const p = eraPrimitives(frontEnd(FIG1), 'fig1');
    expect(p.use(1, 4)).toEqual(['x']);
    expect(p.kill(1, 4)).toEqual(['w', 'y', 'z']);
    expect(p.gen(1, 4)).toEqual(['w', 'y', 'z']);
    expect(p.use(3, 3)).toEqual(['y']);
    expect(p.slice(1, 2, ['y'])).toEqual([1]);
    expect(p.slice(1, 3, ['w'])).toEqual([1, 2]);
    expect(p.slice(1, 4, ['y', 'w'])).toEqual([1, 2, 3]);
    expect(p.slice(1, 4, ['z'])).toEqual([1, 2, 3, 4]);
    expect(p.adjointUse(4)).toEqual(['w', 'y']);
    expect(p.adjointUse(3)).toEqual(['y']);
    expect(p.adjointUse(2)).toEqual(['y']);
    expect(p.adjointUse(1)).toEqual([]);
  });
  it('may and must: a definition in one arm kills without generating; an element write too', () => {
    const p = eraPrimitives(frontEnd(`export function f(x: number, a: number[]): number {
  let v = 0;
  if (x > 0) {
    v = x;
  }
  a[0] = x;
  return v;
}`), 'f');
    expect(p.kill(2, 2)).toEqual(['v']);
    expect(p.gen(2, 2)).toEqual([]);
    expect(p.kill(3, 3)).toEqual(['a']);
    expect(p.gen(3, 3)).toEqual([]);
  });
});
