// Independent numeric helpers for the runtime API's tests: values flattened in the API's documented
// order (arrays by index, object fields by sorted name), deep copies, and central divided differences.

import { expect } from 'vitest';

export type AnyFn = (...args: any[]) => any;

/** tsad's numbers against divided differences: equal length, each within tol of the largest magnitude (at least 1) */
export function close(actual: number[], expected: number[], what: string, tol = 1e-6): void {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  const scale = Math.max(1, ...expected.map(Math.abs));
  actual.forEach((a, i) => {
    if (!(Math.abs(a - expected[i]) <= tol * scale)) expect.fail(`${what}[${i}]: tsad ${a}, divided differences ${expected[i]} (tsad ${JSON.stringify(actual)}, divided differences ${JSON.stringify(expected)})`);
  });
}

/** floats of a value: arrays by index, object fields by sorted name, or with `own` in the object's own key order (jacobian's) */
export function flat(v: unknown, out: number[] = [], own = false): number[] {
  if (typeof v === 'number') out.push(v);
  else if (v instanceof Float64Array) out.push(...v);
  else if (Array.isArray(v)) for (const x of v) flat(x, out, own);
  else if (v && typeof v === 'object') for (const k of own ? Object.keys(v) : Object.keys(v).sort()) flat((v as Record<string, unknown>)[k], out, own);
  return out;
}

/** a deep copy; an instance of a class stays one (its methods are on its prototype) */
export function deepClone<T>(v: T): T {
  if (v instanceof Float64Array) return Float64Array.from(v) as T;
  if (Array.isArray(v)) return v.map(deepClone) as T;
  if (v && typeof v === 'object') return Object.assign(Object.create(Object.getPrototypeOf(v)), Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepClone(x)]))) as T;
  return v;
}

/** the value with float number k (flat order, with `own` flat's own-key order) replaced by g(old) */
export function mapAt<T>(v: T, k: number, g: (x: number) => number, own = false): T {
  let i = 0;
  const walk = (x: unknown): unknown => {
    if (typeof x === 'number') return i++ === k ? g(x) : x;
    if (x instanceof Float64Array) return x.map((e) => (i++ === k ? g(e) : e));
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') {
      const r: Record<string, unknown> = {};
      const keys = own ? Object.keys(x) : Object.keys(x).sort();
      for (const key of keys) r[key] = walk((x as Record<string, unknown>)[key]);
      return Object.assign(Object.create(Object.getPrototypeOf(x)), Object.fromEntries(Object.keys(x).map((key) => [key, r[key]])));
    }
    return x;
  };
  return walk(v) as T;
}

/**
 * Central divided differences: J[i][j] = ∂ flat(f)_i / ∂ (the wrt arguments' floats)_j (with `own`, objects in their own key order: as jacobian orders them), with step
 * `rel`·max(1, |x|); f runs on copies.
 */
export function dividedJacobian(f: AnyFn, args: unknown[], wrt: number[], rel: number, own = false): number[][] {
  const fl = (v: unknown) => flat(v, [], own);
  const m = fl(f(...deepClone(args))).length;
  const cols: number[][] = [];
  for (const a of wrt) {
    const n = fl(args[a]).length;
    for (let j = 0; j < n; j++) {
      const h = rel * Math.max(1, Math.abs(fl(args[a])[j]));
      const plus = deepClone(args), minus = deepClone(args);
      plus[a] = mapAt(plus[a], j, (x) => x + h, own);
      minus[a] = mapAt(minus[a], j, (x) => x - h, own);
      const fp = fl(f(...plus)), fm = fl(f(...minus));
      cols.push(fp.map((_, i) => (fp[i] - fm[i]) / (2 * h)));
    }
  }
  return Array.from({ length: m }, (_, i) => cols.map((c) => c[i]));
}
