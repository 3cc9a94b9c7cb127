// The recorded loop replayed from its closed form with certified decisions (issue 19;
// src/transform/coarsen/replay.ts): the trip count and exit the replay finds are the source's, so the
// coarsened gradient with the replay is bit for bit the one the recorded run gives (`replay: false`),
// and agrees with statement-level AD; a decision too close to call falls back to the recorded run.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compile, type CompileOptions, type CompileResult } from '../src/api/compile.js';
import { formatDiagnostic } from '../src/frontend/diagnostics.js';
import { adjointAt, relDiff } from './support/coarsened.js';

const opts = (head: string, coarsen: CompileOptions['coarsen'], wrt: string[]): CompileOptions => ({ head, wrt, js: true, runtimeImport: null, coarsen, modes: ['reverse'] });

/** the module with every fallback of the replay counted in globalThis.__replayFallbacks */
function counted(r: CompileResult): CompileResult {
  const code = r.code.replace(/(replayFailed\d*) = true;/g, '$1 = true; globalThis.__replayFallbacks = (globalThis.__replayFallbacks ?? 0) + 1;');
  return { ...r, code };
}
const fallbacks = (): number => (globalThis as { __replayFallbacks?: number }).__replayFallbacks ?? 0;

interface Three {
  plain: CompileResult;
  replayed: CompileResult;
  recorded: CompileResult;
}
function build(src: string, head: string, wrt = ['r']): Three {
  const plain = compile(src, opts(head, false, wrt));
  const replayed = counted(compile(src, opts(head, true, wrt)));
  const recorded = compile(src, opts(head, { replay: false }, wrt));
  for (const r of [plain, replayed, recorded]) expect(r.diagnostics.map(formatDiagnostic)).toEqual([]);
  return { plain, replayed, recorded };
}

/** the replay's gradient is the recorded run's, bit for bit, and statement-level AD's to rounding; returns the fallbacks taken */
function same(t: Three, head: string, args: unknown[], tol = 1e-9): number {
  const before = fallbacks();
  const a = adjointAt(t.replayed, head, args);
  const taken = fallbacks() - before;
  const b = adjointAt(t.recorded, head, args);
  expect(a.map(String), `bit for bit at ${JSON.stringify(args).slice(0, 200)}`).toEqual(b.map(String));
  expect(relDiff(a, adjointAt(t.plain, head, args))).toBeLessThan(tol);
  return taken;
}

const rand = (seed: number) => {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
};

const BGD = readFileSync(join(__dirname, '..', 'bench', 'workloads', 'coarsen-apps.ts'), 'utf8');
/** BGDHyperOpt with its threshold a parameter: near-ties can be set up */
const BGD_C = `export function bgd(r: number, x: number[], y: number[], T: number, c: number): number {
  const M = x.length;
  let w = 0;
  let k = 0;
  while (k < T) {
    k++;
    let d = 0;
    for (let i = 0; i < M; i++) d += 2 * x[i] * (y[i] - x[i] * w);
    d = d / M;
    if (d < c) break;
    w = w - r * d;
  }
  let e = 0;
  for (let j = 0; j < M; j++) e += (y[j] - x[j] * w) ** 2;
  return e ** 0.5 / M;
}`;
/** the source's d at each iteration (what the break tests) */
function bgdSteps(r: number, x: number[], y: number[], T: number, c: number): number[] {
  const M = x.length, ds: number[] = [];
  let w = 0, k = 0;
  while (k < T) {
    k++;
    let d = 0;
    for (let i = 0; i < M; i++) d += 2 * x[i] * (y[i] - x[i] * w);
    d = d / M;
    ds.push(d);
    if (d < c) break;
    w = w - r * d;
  }
  return ds;
}

describe('BGDHyperOpt replayed', () => {
  it('the rules replay the loop (no O(M·K) run) unless a decision is too close to call', () => {
    const t = build(BGD, 'bgdError');
    expect(t.replayed.code).toMatch(/replayFailed/);
    expect(t.recorded.code).not.toMatch(/replayFailed/);
  });

  it("the benchmark's three configurations: the source's trip count and exit, no fallback", () => {
    const t = build(BGD, 'bgdError');
    for (const m of [200, 1000, 2000]) {
      const r = rand(m);
      const x = Array.from({ length: m }, () => r() * 2 - 1);
      const y = x.map((v) => 1.5 * v + 0.1 * (r() - 0.5));
      expect(same(t, 'bgdError', [-0.05, x, y, 100])).toBe(0);
    }
  });

  it("the report's §6.3 cases (every exit of the 3-ary exit φ)", () => {
    const t = build(BGD, 'bgdError');
    const cases: [number, number[], number[], number][] = [
      [0.01, [1, 2, 3], [2, 4, 5], 5],
      [0.01, [1, 2, 3], [-2, -4, -5], 5],
      [0.01, [1, 2, 3], [2, 4, 5], 0],
      [0.001, [0.5, -1, 2, 1.5], [1, -2.5, 3.5, 2], 10],
      [-0.05, [1, 2, 3], [2, 4, 5], 100],
      [-0.02, [0.5, -1, 2, 1.5], [1, -2.5, 3.5, 2], 50],
    ];
    for (const c of cases) same(t, 'bgdError', c);
  });

  it('random inputs: the same derivative as the recorded run, fallbacks rare', () => {
    const t = build(BGD, 'bgdError');
    const r = rand(7);
    let taken = 0;
    const n = 300;
    for (let j = 0; j < n; j++) {
      const m = 1 + Math.floor(r() * 300);
      const x = Array.from({ length: m }, () => (r() * 2 - 1) * 10 ** (r() * 4 - 2));
      const slope = r() * 4 - 2;
      const y = x.map((v) => slope * v + (r() - 0.5) * r());
      const rate = (r() - 0.7) * 0.2;
      taken += same(t, 'bgdError', [rate, x, y, Math.floor(r() * 120)], 1e-7);
    }
    expect(taken).toBeLessThan(n / 20);
  });

  it('a break test that is a tie (the threshold is the source’s d at some iteration): the replay falls back, the derivative is the source’s', () => {
    const t = build(BGD_C, 'bgd');
    const r = rand(11);
    let taken = 0, ties = 0;
    for (let j = 0; j < 40; j++) {
      const m = 5 + Math.floor(r() * 200);
      const x = Array.from({ length: m }, () => r() * 2 - 1);
      const y = x.map((v) => 1.5 * v + 0.1 * (r() - 0.5));
      const rate = -0.05;
      const ds = bgdSteps(rate, x, y, 60, -Infinity);
      const at = Math.floor(r() * ds.length);
      // the threshold exactly the source's d at iteration `at` (d < c false there), or one ulp above (true)
      const c = j % 2 ? ds[at] : ds[at] + Math.abs(ds[at]) * 2 ** -52;
      if (!(ds.slice(0, at).every((d) => d >= c + Math.abs(c) * 1e-6))) continue;
      ties++;
      taken += same(t, 'bgd', [rate, x, y, 60, c]);
    }
    expect(ties).toBeGreaterThan(10);
    expect(taken).toBe(ties);
  });
});

describe('other loops the replay covers', () => {
  const programs: [string, string, (r: () => number) => unknown[], string[]][] = [
    [
      'a for loop with two carried values and a break on either side',
      `export function f(h: number, x: number[], y: number[], n: number, c: number): number {
  let a = 0.5;
  let b = 1;
  for (let k = 0; k < n; k++) {
    let s = 0;
    for (let i = 0; i < x.length; i++) s += x[i] * a - y[i] / 2;
    let q = 0;
    for (let i = 0; i < x.length; i++) q -= y[i] * x[i] * 0.25;
    const g = s / x.length + q * b;
    if (g > c) break;
    if (g < -c) break;
    a = a - h * g;
    b = b * 0.5 + h;
  }
  return a * a + b * h;
}`,
      (r) => {
        const m = 2 + Math.floor(r() * 40);
        return [r() * 0.3, Array.from({ length: m }, () => r() * 2 - 1), Array.from({ length: m }, () => r() * 2 - 1), Math.floor(r() * 30), 0.5 + r()];
      },
      ['h'],
    ],
    [
      'a do … while with a condition of two tests (&&), one on Math.abs of a carried value',
      `export function f(r: number, x: number[], T: number, tol: number): number {
  let w = 1;
  let g = 1;
  let k = 0;
  do {
    k++;
    let d = 0;
    for (let i = 0; i < x.length; i++) d += x[i] * (x[i] * w - 1);
    g = d / x.length;
    w = w - r * g;
  } while (k < T && Math.abs(g) > tol);
  return w * w;
}`,
      (r) => {
        const m = 1 + Math.floor(r() * 30);
        return [r() * 0.5, Array.from({ length: m }, () => r() * 2 - 1), Math.floor(r() * 40), r() * 0.01];
      },
      ['r'],
    ],
  ];
  for (const [what, src, gen, wrt] of programs)
    it(what, () => {
      const head = 'f';
      const t = build(src, head, wrt);
      expect(t.replayed.code).toMatch(/replayFailed/);
      const r = rand(3);
      for (let j = 0; j < 100; j++) same(t, head, gen(r), 1e-7);
    });
});

describe("the fuzz generator's descent helper (test/fuzz/generator.ts DescentSpec), every form", () => {
  it('coarsened, replayed, bit for bit the recorded run; the exact tie of `d <= d0` always falls back', async () => {
    const { DESCENT_BODY } = await import('./fuzz/generator.js');
    let replayed = 0, taken = 0, calls = 0, ties = 0, tiesTaken = 0;
    for (let form = 0; form < 4; form++)
      for (let body = 0; body < 4; body++)
        for (let test = 0; test < 5; test++) {
          const src = DESCENT_BODY({ form, body, test, rate: 0, cap: 30, thr: 0, n: 3, loop: 0, e: { k: 'lit', v: 0 } }).join('\n');
          const t = build(src, 'gdDescent');
          expect(t.replayed.coarsening!.chosen.length, src).toBe(1);
          if (!/replayFailed/.test(t.replayed.code)) continue;
          replayed++;
          const r = rand(form * 100 + body * 10 + test);
          for (let j = 0; j < 12; j++) {
            const n = 1 + Math.floor(r() * 12);
            const x = Array.from({ length: n }, () => Math.round((r() * 2 - 1) * 100) / 100);
            const y = x.map((v) => Math.round((1.5 * v + 0.2 * (r() - 0.5)) * 100) / 100);
            const k = same(t, 'gdDescent', [[0.05, -0.05, 0.2, -0.3][j % 4] * (1 + 0.25 * (r() - 0.5)), x, y, [0.001, 0.05, -0.01, 0.3][(j >> 2) % 4]], 1e-7);
            calls++;
            taken += k;
            if (test === 4) {
              ties++;
              tiesTaken += k;
            }
          }
        }
    // every shape the helper takes is replayed (none refused)
    expect(replayed).toBe(80);
    // the tie `d <= d0` of the first iteration falls back each time (unless the loop never starts: cap ≥ 1, so it does)
    expect(tiesTaken).toBe(ties);
    // elsewhere the fallback is rare
    expect(taken - tiesTaken).toBeLessThan((calls - ties) / 20);
  });
});

describe('what the replay leaves to the recorded run', () => {
  it('a test through an operation without an error bound (Math.sqrt of a reduction): no replay, the loop runs recorded', () => {
    const src = `export function f(r: number, x: number[], T: number, c: number): number {
  let w = 1;
  let k = 0;
  while (k < T) {
    k++;
    let d = 0;
    for (let i = 0; i < x.length; i++) d += x[i] * (x[i] * w - 1);
    if (Math.sqrt(Math.abs(d)) < c) break;
    w = w - r * d;
  }
  return w * w;
}`;
    const t = build(src, 'f');
    expect(t.replayed.coarsening!.chosen.length).toBe(1);
    expect(t.replayed.code).not.toMatch(/replayFailed/);
    const r = rand(5);
    for (let j = 0; j < 20; j++) same(t, 'f', [r() * 0.3, Array.from({ length: 1 + Math.floor(r() * 20) }, () => r() * 2 - 1), Math.floor(r() * 30), r() * 0.1], 1e-7);
  });
});
