// The cost of the runtime API's self-check (src/api/selfcheck.ts), against `check: false` in the same
// run: the first call of grad on a fresh function (compile + check + gradient against compile +
// gradient) and later calls (the check has passed: they should cost the same, within noise).
//
// Two sizes of one function: n = 1000, where the first call is dominated by compiling, and n = 1e6,
// where it is dominated by evaluating (the check adds about one tangent and one adjoint evaluation).
// Each first-call sample compiles a fresh function object (the cache is per function object);
// variants are interleaved, rotating their order each round (harness.measure).
import { grad } from '../src/api/runtime.js';
import { fmtMs, measure, table, type Stats } from './harness.js';
import { uniform } from '../evals/random.js';

/** the workload: a smooth sum over an array (log-sum of a quadratic form's terms) */
const SOURCE = `function logQuad(x, a) {
  let s = 0;
  for (let i = 0; i < x.length; i++) {
    const t = x[i] * x[i] + a * x[i];
    s += Math.log(1 + t * t);
  }
  return s;
}`;

/** a new function object with the same source: the runtime API compiles it anew */
const freshFunction = () => new Function(`return (${SOURCE});`)() as (x: number[], a: number) => number;

export interface SelfCheckSize {
  n: number;
  firstChecked: Stats;
  firstUnchecked: Stats;
  laterChecked: Stats;
  laterUnchecked: Stats;
  /** medians: first call with the check / without; later calls with the check / without */
  firstRatio: number;
  laterRatio: number;
}

function measureSize(n: number, rounds: { first: number; later: number; warmups: number }): SelfCheckSize {
  const rand = uniform(20_251_125);
  const x = Array.from({ length: n }, () => 2 * rand() - 1);
  const a = 0.5;
  const firstCall = (check: boolean) => () => (grad(freshFunction(), { check })(x, a) as number[])[0];
  const first = measure([{ name: 'checked', run: firstCall(true) }, { name: 'unchecked', run: firstCall(false) }], rounds.warmups, rounds.first);
  // later calls: one wrapper each, its first call made (and checked) before timing
  const gc = grad(freshFunction());
  const gu = grad(freshFunction(), { check: false });
  gc(x, a);
  gu(x, a);
  const later = measure([{ name: 'checked', run: () => (gc(x, a) as number[])[0] }, { name: 'unchecked', run: () => (gu(x, a) as number[])[0] }], rounds.warmups, rounds.later);
  const s = (m: Map<string, Stats>, k: string) => m.get(k)!;
  return {
    n,
    firstChecked: s(first, 'checked'),
    firstUnchecked: s(first, 'unchecked'),
    laterChecked: s(later, 'checked'),
    laterUnchecked: s(later, 'unchecked'),
    firstRatio: s(first, 'checked').median / s(first, 'unchecked').median,
    laterRatio: s(later, 'checked').median / s(later, 'unchecked').median,
  };
}

export function selfCheckBench(quick: boolean): SelfCheckSize[] {
  return [
    measureSize(1000, quick ? { first: 3, later: 20, warmups: 1 } : { first: 9, later: 200, warmups: 2 }),
    measureSize(quick ? 100_000 : 1_000_000, quick ? { first: 3, later: 5, warmups: 1 } : { first: 7, later: 21, warmups: 2 }),
  ];
}

export function selfCheckTable(sizes: SelfCheckSize[]): string {
  const rows = sizes.flatMap((r) => [
    [`n = ${r.n}`, 'first call (compile + grad)', fmtMs(r.firstChecked.median), fmtMs(r.firstUnchecked.median), `${r.firstRatio.toFixed(3)}×`, `${r.firstChecked.n}`],
    ['', 'later calls', fmtMs(r.laterChecked.median), fmtMs(r.laterUnchecked.median), `${r.laterRatio.toFixed(3)}×`, `${r.laterChecked.n}`],
  ]);
  return table(['runtime API self-check', 'grad call', 'checked', 'check: false', 'ratio', 'samples'], rows);
}
