// Reuse in the coarsened rules' code (issue 19, src/transform/coarsen/reuse.ts and its use in the
// adjoint rule's scatter loops): values carried from one iteration to the next, one reciprocal for
// several divisions by a denominator, shared parts of products, scatters into an element the loop does
// not move summed once after it. What each finds on terms, that nothing deciding (a comparison, an
// index) is computed otherwise, and that the rules' derivatives stay those of statement-level AD —
// on short arrays too, where the loop runs once or not at all.
import { describe, expect, it } from 'vitest';
import { compile, type CompileResult } from '../src/api/compile.js';
import { rng } from '../src/api/values.js';
import { formatDiagnostic } from '../src/frontend/diagnostics.js';
import { lowerTerms } from '../src/transform/coarsen/convert.js';
import { byLoop, carriedAcrossIterations, continuousNodes, invariantFactors, sharedProducts, sharedReciprocals } from '../src/transform/coarsen/reuse.js';
import * as T from '../src/transform/coarsen/terms.js';
import { Printer } from '../src/backend/print.js';
import type { Expr } from '../src/ir/types.js';
import { adjointAt, relDiff, tangentAt } from './support/coarsened.js';

const printExpr = (e: Expr) => new Printer({ js: true }).expr(e);
const i = T.sym('i', 'index');
const y = (e: T.Term) => T.at('y', e);
const next = T.add(T.num(1), i);
const nodes = (roots: T.Term[]) => byLoop(roots).flat();
const speed = (e: T.Term) => T.fn('Math.sqrt', T.add(T.num(0.001), T.mul(T.num(2), T.sym('g'), T.sub(y(T.num(0)), y(e)))));

describe('values carried across iterations', () => {
  it('a root of y[i] and the same root of y[i + 1]: the first carried from the iteration before, starting at y[lo]', () => {
    const roots = [T.div(T.num(1), T.add(speed(i), speed(next))), T.div(T.num(0.5), speed(next))];
    const c = carriedAcrossIterations(roots, i, T.num(0));
    expect(c.map((x) => [x.value, x.next])).toEqual([[speed(i), speed(next)]]);
    expect(c[0].first).toBe(speed(T.num(0)));
  });

  it('only the outermost of nested values, and not where its next is no longer computed', () => {
    const inv = (e: T.Term) => T.div(T.num(0.5), speed(e));
    // 0.5/√v(i) and 0.5/√v(i + 1) both needed, √v(i) only inside the first: the quotient is carried, not the root
    const c = carriedAcrossIterations([T.add(inv(i), inv(next))], i, T.num(0));
    expect(c.map((x) => x.value)).toEqual([inv(i)]);
    // √v(i + 1) computed only inside 0.5/√v(i + 1), which is carried itself: nothing left to hand on
    expect(carriedAcrossIterations([T.add(speed(i), inv(next))], i, T.num(0)).map((x) => x.value)).toEqual([speed(i)]);
  });

  it('no chains (the next of a carried value is computed), nothing cheap, no reads at other than integer indices', () => {
    const s2 = T.add(T.num(2), i);
    const c = carriedAcrossIterations([T.add(speed(i), speed(next), speed(s2))], i, T.num(0));
    expect(c.map((x) => x.next)).toEqual([speed(s2)]);
    expect(carriedAcrossIterations([T.add(y(i), y(next))], i, T.num(0))).toEqual([]);
    const half = (e: T.Term) => T.fn('Math.exp', T.at('y', T.mul(T.sym('h'), e)));
    expect(carriedAcrossIterations([T.add(half(i), half(next))], i, T.num(0))).toEqual([]);
  });
});

describe('reciprocals and products shared in partials', () => {
  const [a, b, d, s] = ['a', 'b', 'd', 's'].map((n) => T.sym(n));
  it('two divisions by d share 1/d; one division, or a division by a number, stays', () => {
    const roots = [T.div(a, d), T.div(b, d), T.div(a, b), T.div(a, T.num(3)), T.div(b, T.num(3))];
    expect([...sharedReciprocals(nodes(roots), continuousNodes(roots))]).toEqual([[d, T.div(T.num(1), d)]]);
  });

  it('nothing under a comparison, an index or a step function is computed otherwise', () => {
    const q = T.div(a, d);
    const roots = [T.sel(T.cmp('<', q, T.num(1)), T.div(b, d), T.num(0)), T.at('x', T.fn('Math.floor', T.div(b, d)))];
    const cont = continuousNodes(roots);
    expect(cont.has(q)).toBe(false);
    expect(cont.has(T.div(b, d))).toBe(false); // (also under the floor)
    expect(sharedReciprocals(nodes(roots), cont).size).toBe(0);
    const p1 = T.mul(T.num(4), a, b, s), p2 = T.mul(T.num(4), a, d, s);
    const test = [T.cmp('<', p1, p2)];
    expect(sharedProducts(nodes(test), continuousNodes(test)).size).toBe(0);
  });

  it('4·a·c·s and 4·b·c·s: the shared 4·c·s once; lowered, the reciprocal and the shared part are temporaries', () => {
    const c = T.sym('c');
    const p1 = T.mul(T.num(4), a, c, s), p2 = T.mul(T.num(4), b, c, s);
    const plan = sharedProducts(nodes([p1, p2]), continuousNodes([p1, p2]));
    const part = T.mul(T.num(4), c, s);
    expect(plan.get(p1)).toEqual([a, part]);
    expect(plan.get(p2)).toEqual([b, part]);
    let k = 0;
    const low = lowerTerms([p1, p2, T.div(a, d), T.div(b, d)], (h) => `${h}${k++}`, { partials: true });
    const text = [...low.stmts.map((x) => (x.k === 'decl' ? `${x.name} = ${printExpr(x.init!)}` : '?')), ...low.values.map((e) => printExpr(e))];
    expect(text.map((l) => l.replace('4 * s * c', '4 * c * s'))).toEqual(['t0 = 4 * c * s', 't1 = 1 / d', 'a * t0', 'b * t0', 'a * t1', 'b * t1']);
    // (without `partials`, as the replay's and the decisions' code is lowered: as written)
    const plain = lowerTerms([p1, p2, T.div(a, d), T.div(b, d)], (h) => h, {});
    expect(plain.values.map((e) => printExpr(e))).toEqual([p1, p2].map((p) => (p as Extract<T.Term, { k: 'mul' }>).args.map((f) => (f.k === 'num' ? String(f.v) : (f as { name: string }).name)).join(' * ')).concat(['a / d', 'b / d']));
  });
});

describe('factors of a product free of the loop’s index', () => {
  const [a, b, d, s, k] = ['a', 'b', 'd', 's', 'k'].map((n) => T.sym(n));
  const xi = T.at('x', i);
  const varies = (t: T.Term) => T.dependsOn(t, i);
  it('4·(x[i] − d)·(0.5/√x[i])·s: the seed product 2·s before the loop, divided by the root in it', () => {
    const root = T.fn('Math.sqrt', xi);
    const diff = T.sub(xi, d);
    const split = invariantFactors(T.mul(T.num(4), diff, T.div(T.num(0.5), root), s), varies)!;
    expect(split.invariant).toBe(T.mul(T.num(2), s));
    expect(split.product(T.sym('P'))).toBe(T.mul(diff, T.div(T.sym('P'), root)));
    // (a numerator that varies takes nothing: a·s·k·(x[i]/b) → (a·s·k)·…, one product before the loop)
    const q = invariantFactors(T.mul(s, k, xi, T.div(xi, b)), varies)!;
    expect(q.invariant).toBe(T.mul(s, k));
    expect(q.product(T.sym('P'))).toBe(T.mul(xi, T.div(xi, b), T.sym('P')));
  });

  it('nothing where nothing is saved, nor where the folded coefficient would overflow or underflow', () => {
    expect(invariantFactors(T.mul(s, xi, T.at('x', next)), varies)).toBeNull(); // (one factor free of i: as it is)
    expect(invariantFactors(T.mul(T.num(3), xi), varies)).toBeNull();
    expect(invariantFactors(T.mul(s, k), varies)).toBeNull(); // (free of i entirely: hoisted whole, elsewhere)
    expect(invariantFactors(T.mul(T.num(1e300), xi, T.div(T.num(1e300), xi)), varies)).toBeNull();
    expect(invariantFactors(T.mul(T.num(1e-300), xi, T.div(T.num(1e-300), xi)), varies)).toBeNull();
    expect(invariantFactors(T.mul(T.num(4), xi, T.div(T.num(0.25), xi)), varies)!.invariant).toBe(T.num(1));
  });
});

const opts = (head: string, wrt: string[], coarsen: boolean) => ({ head, wrt, js: true, runtimeImport: null, coarsen });

function agree(src: string, head: string, wrt: string[], args: unknown[][]): CompileResult {
  const plain = compile(src, opts(head, wrt, false));
  const coarse = compile(src, opts(head, wrt, true));
  expect(plain.diagnostics.map(formatDiagnostic)).toEqual([]);
  expect(coarse.diagnostics.map(formatDiagnostic)).toEqual([]);
  expect(coarse.coarsening!.chosen.map((c) => c.soi)).toContain(head);
  const r = rng(7);
  for (const a of args) {
    expect(relDiff(adjointAt(coarse, head, a), adjointAt(plain, head, a)), JSON.stringify(a)).toBeLessThan(1e-12);
    const dirs = new Map<string, unknown>();
    const dir = (name: string) => {
      if (!dirs.has(name)) {
        const k = coarse.manifest.find((m) => m.name === `${head}_d`)!.params.filter((p) => p.role !== 'tangent').findIndex((p) => p.name === name);
        dirs.set(name, Array.isArray(a[k]) ? (a[k] as number[]).map(() => r() - 0.5) : r() - 0.5);
      }
      return dirs.get(name);
    };
    expect(relDiff(tangentAt(coarse, head, a, dir), tangentAt(plain, head, a, dir)), JSON.stringify(a)).toBeLessThan(1e-12);
  }
  return coarse;
}

const vjpOf = (c: CompileResult, head: string) => /function \w+_coarse_vjp\([^)]*\)[^{]*\{[\s\S]*?\n\}/.exec(c.code)![0];
const lengths = (n: number, r = rng(n + 1)) => Array.from({ length: n }, () => 0.2 + r());

describe('the adjoint rule with reuse: the derivatives of statement-level AD', () => {
  it('segments timed at the mean of their end speeds (the Brachistochrone): one root per point carried (in every loop of both rules), y[0]’s adjoint summed once', () => {
    const src = `
export function time(y: number[], g: number): number {
  let t = 0;
  for (let i = 0; i + 1 < y.length; i++) {
    const v0 = Math.sqrt(2 * g * (y[0] - y[i]) + 0.5);
    const v1 = Math.sqrt(2 * g * (y[0] - y[i + 1]) + 0.5);
    t += Math.sqrt(0.01 + (y[i + 1] - y[i]) ** 2) / (v0 + v1);
  }
  return t;
}`;
    const down = (n: number) => Array.from({ length: n }, (_, k) => 1 - k / Math.max(1, n));
    const c = agree(src, 'time', ['y', 'g'], [[down(0), 9.8], [down(1), 9.8], [down(2), 9.8], [down(3), 9.8], [down(40), 9.8]]);
    const vjp = vjpOf(c, 'time');
    expect(vjp).toMatch(/let carried = /);
    expect(vjp).toMatch(/yb\[0\] \+= ybSum;/);
    // (the tangent rule's Σ loops and the scalar adjoint's carry too)
    expect(/function time_coarse_jvp[\s\S]*?let carried = [\s\S]*?\n\}/.test(c.code)).toBe(true);
    // (g's adjoint is a sum of its own; the scatter loop: two roots per point, the first speed before it)
    const scatter = vjp.slice(vjp.indexOf('if (yb0 !== 0'));
    expect(scatter.match(/Math\.sqrt/g)!.length).toBe(3);
    expect(vjp).toMatch(/if \(yb0 !== 0 && 0 <= last\d*\)/);
  });

  it('a chain of springs: the spring’s shared factor once, contributions of opposite signs subtracted', () => {
    const src = `
export function energy(p: number[], rest: number[], k: number): number {
  let e = 0;
  for (let i = 0; i + 1 < rest.length; i++) {
    const dx = p[2 * i + 2] - p[2 * i];
    const dy = p[2 * i + 3] - p[2 * i + 1];
    const d = Math.sqrt(dx * dx + dy * dy) - rest[i];
    e += 0.5 * k * d * d;
  }
  return e;
}`;
    const r = rng(3);
    const pts = (n: number) => Array.from({ length: 2 * n }, (_, j) => (j % 2 === 0 ? j / 2 : 0) + 0.3 * (r() - 0.5));
    const c = agree(src, 'energy', ['p', 'k'], [[pts(0), [], 3], [pts(1), [1], 3], [pts(2), [1, 1], 3], [pts(12), lengths(12), 3]]);
    const vjp = vjpOf(c, 'energy');
    expect(vjp).toMatch(/pb\[\w+\] -= (\w+);[\s\S]*pb\[\w+\] \+= \1;|pb\[\w+\] \+= (\w+);\s*pb\[\w+\] -= \2;/);
    // (per spring one root and one division, squares as products, 2·(0.5·k·yb) once before the loop:
    // (d − r)·(2t/d) for 4·(d − r)·(0.5/d)·t)
    const loop = vjp.slice(vjp.lastIndexOf('for (')); // (k's adjoint, a sum, comes first)
    expect(vjp).not.toMatch(/\*\* 2/);
    expect(loop.match(/Math\.sqrt/g)!.length).toBe(1);
    expect(loop.match(/ \/ /g)!.length).toBe(1);
    expect(loop).toMatch(/\((\w+) - rest\[\w+\]\) \* \((\w+) \/ \1\)/);
    const seed = /const (\w+) = 0\.5 \* k \* yb;/.exec(vjp)![1];
    const twice = new RegExp(`const (\\w+) = 2 \\* ${seed};`).exec(vjp.slice(0, vjp.lastIndexOf('for (')))![1];
    expect(loop).toMatch(new RegExp(`\\(\\w+ - rest\\[\\w+\\]\\) \\* \\(${twice} \\/ \\w+\\)`));
  });

  it('nested loops: values carried in the inner one, an element only the outer index moves summed per outer iteration', () => {
    const src = `
export function f(a: number[], w: number[], m: number): number {
  let s = 0;
  for (let j = 0; j < m; j++) {
    for (let i = 0; i + 1 < a.length; i++) s += w[j] * Math.exp(a[i] * w[j]) * Math.exp(a[i + 1] * w[j]);
  }
  return s;
}`;
    const r = rng(9);
    const vec = (n: number) => Array.from({ length: n }, () => r() - 0.5);
    const c = agree(src, 'f', ['a', 'w'], [[vec(0), vec(2), 2], [vec(1), vec(2), 2], [vec(2), vec(3), 3], [vec(7), vec(3), 3], [vec(5), vec(1), 0]]);
    const vjp = vjpOf(c, 'f');
    expect(vjp).toMatch(/let carried = Math\.exp/);
    expect(vjp).toMatch(/wb\[\w+\] \+= wbSum;/);
  });

  it('neighbours in other shapes: from 1, downward, through exp, log and a quotient — wherever something is carried, as statement-level AD', () => {
    const shapes = [
      'for (let i = 0; i + 1 < a.length; i++) s += Math.exp(a[i] * c) * Math.exp(a[i + 1] * c);',
      'for (let i = 0; i + 1 < a.length; i++) s += Math.log(1 + a[i] * a[i] * c) / Math.log(1 + a[i + 1] * a[i + 1] * c);',
      'for (let i = 1; i < a.length; i++) s += Math.sqrt(1 + a[i - 1] ** 2) * Math.sqrt(1 + a[i] ** 2) * c;',
      'for (let i = a.length - 1; i > 0; i--) s += Math.sqrt(c + a[i] ** 2) / Math.sqrt(c + a[i - 1] ** 2);',
      'for (let i = 0; i + 2 < a.length; i++) s += Math.exp(a[i]) * Math.exp(a[i + 1]) * Math.exp(a[i + 2]) * c;',
    ];
    const r = rng(11);
    const vec = (n: number) => Array.from({ length: n }, () => r() - 0.5);
    let carrying = 0;
    for (const body of shapes) {
      const src = `export function f(a: number[], c: number): number {\n  let s = 0;\n  ${body}\n  return s;\n}`;
      const c = agree(src, 'f', ['a', 'c'], [0, 1, 2, 3, 4, 31].map((n) => [vec(n), 1.5 + r()]));
      if (/let carried/.test(c.code)) carrying++;
    }
    expect(carrying).toBe(4); // (not the downward loop: it is replayed, no Σ)
  });

  it('a branch on a product of the loop: decided as the source computes it, whatever the partials share', () => {
    const src = `
export function f(x: number[], c: number): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const q = x[i] * c * 3;
    s += q > 1 ? Math.sqrt(q) * x[i] * c : q * x[i] * c / 7;
  }
  return s;
}`;
    // (q exactly at the threshold 1: c·3·x = 1 for x = 1/3, c = 1)
    agree(src, 'f', ['x', 'c'], [[[1 / 3, 0.5, 2, 0.1], 1], [[0.2, 0.7, 1.3], 1.5], [[], 2]]);
  });
});
