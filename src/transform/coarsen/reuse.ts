// Reuse the lowering of partials can make beyond structural CSE (issue 19, code generation): values
// carried from one iteration of a loop to the next, one reciprocal for several divisions by the same
// denominator, parts shared by several products, and a product's factors free of a loop's indices
// multiplied once before it.
//
// Carrying is exact: the value computed at iteration i for i + 1 is the same expression on the same
// operands. A division a/b lowered as a·(1/b), and a product associated otherwise, round differently:
// that is for derivative code only,
// never a value the source returns, a branch decision, an index or a loop bound — `continuous` says
// which nodes feed values only through operations continuous in them, where a rounding difference
// stays a rounding difference.
import { simplify } from './simplify.js';
import * as T from './terms.js';
import type { Term } from './terms.js';

type Sym = Extract<Term, { k: 'sym' }>;

/** intrinsics whose result jumps at some arguments: an operand rounded otherwise may land on the other side */
const STEPS = new Set(['%', 'Math.floor', 'Math.ceil', 'Math.round', 'Math.trunc', 'Math.sign']);

/** the nodes of the roots' DAG (not entering Σ/Π) */
function nodesOf(roots: readonly Term[]): Set<Term> {
  const seen = new Set<Term>();
  const go = (x: Term): void => {
    if (seen.has(x)) return;
    seen.add(x);
    if (x.k !== 'sum' && x.k !== 'prod') T.children(x).forEach(go);
  };
  roots.forEach(go);
  return seen;
}

/**
 * The nodes reached from the roots only as operands of continuous operations: not under a comparison,
 * a select's condition, an index, a Σ/Π bound or a step function (those decide something, and must be
 * computed as written).
 */
export function continuousNodes(roots: readonly Term[]): Set<Term> {
  const smooth = new Set<Term>();
  const decides = new Set<Term>();
  const go = (x: Term, deciding: boolean): void => {
    const into = deciding ? decides : smooth;
    if (into.has(x)) return;
    into.add(x);
    switch (x.k) {
      case 'cmp':
        go(x.a, true);
        go(x.b, true);
        return;
      case 'sel':
        go(x.c, true);
        go(x.a, deciding);
        go(x.b, deciding);
        return;
      case 'at':
        go(x.index, true);
        return;
      case 'sum':
      case 'prod':
        go(x.lo, true);
        go(x.hi, true);
        go(x.body, deciding);
        return;
      case 'fn':
        x.args.forEach((a) => go(a, deciding || STEPS.has(x.fn)));
        return;
      default:
        T.children(x).forEach((c) => go(c, deciding));
    }
  };
  for (const r of roots) go(r, false);
  for (const x of decides) smooth.delete(x);
  return smooth;
}

/**
 * The nodes of the roots' DAG, Σ/Π bodies included, grouped by the Σ/Π indices they read: the nodes one
 * loop body computes on each iteration (or, without indices, once). Sharing stays within a group, so a
 * value shared is computed where the values sharing it are.
 */
export function byLoop(roots: readonly Term[]): Term[][] {
  const keys = new Map<Term, string>();
  const key = (x: Term): string => {
    let k = keys.get(x);
    if (k !== undefined) return k;
    let ids: Set<number>;
    if (x.k === 'sym') ids = new Set(x.role === 'index' ? [x.id] : []);
    else if (x.k === 'sum' || x.k === 'prod') {
      ids = new Set([x.lo, x.hi, x.body].flatMap((c) => idsOf(key(c))));
      ids.delete(x.i.id);
    } else ids = new Set(T.children(x).flatMap((c) => idsOf(key(c))));
    k = [...ids].sort((a, b) => a - b).join(',');
    keys.set(x, k);
    return k;
  };
  const idsOf = (k: string): number[] => (k ? k.split(',').map(Number) : []);
  const groups = new Map<string, Term[]>();
  const seen = new Set<Term>();
  const go = (x: Term): void => {
    if (seen.has(x)) return;
    seen.add(x);
    T.children(x).forEach(go);
    const k = key(x);
    const g = groups.get(k);
    if (g) g.push(x);
    else groups.set(k, [x]);
  };
  roots.forEach(go);
  return [...groups.values()];
}

/**
 * Denominators of two or more divisions among `nodes` (one loop body's), each with its reciprocal 1/b:
 * those divisions become products with it (one division instead of several). Only divisions in
 * `continuous` count, and not divisions by a number (the machine divides by a constant as fast, and
 * a/2 is exact).
 */
export function sharedReciprocals(nodes: Iterable<Term>, continuous: ReadonlySet<Term>): Map<Term, Term> {
  const divisions = new Map<Term, number>();
  for (const x of nodes) if (x.k === 'div' && x.b.k !== 'num' && continuous.has(x)) divisions.set(x.b, (divisions.get(x.b) ?? 0) + 1);
  const out = new Map<Term, Term>();
  for (const [b, n] of divisions) if (n >= 2) out.set(b, T.div(T.num(1), b));
  return out;
}

/** an operation costly enough to carry its value to the next iteration rather than compute it again */
const costly = (x: Term): boolean => x.k === 'div' || (x.k === 'fn' && x.fn !== '%') || (x.k === 'pow' && !(x.exp.k === 'num' && Number.isInteger(x.exp.v) && Math.abs(x.exp.v) <= 2));

export interface Carried {
  /** the value at iteration i… */
  value: Term;
  /** …is this one's at iteration i − 1 */
  next: Term;
  /** the value at the loop's first iteration (computed before the loop) */
  first: Term;
}

/** an integer: sums and products of integers, Σ indices, trip counts and array lengths (exact arithmetic) */
function integral(t: Term): boolean {
  if (t.k === 'num') return Number.isInteger(t.v) && Math.abs(t.v) <= 2 ** 31;
  if (t.k === 'sym') return t.role !== 'var' || t.name.endsWith('.length');
  return (t.k === 'add' || t.k === 'mul') && t.args.every(integral);
}

/** every element read of t at an integer index (so its index expressions can be simplified exactly) */
function integralReads(t: Term): boolean {
  let ok = true;
  T.mapTerm(t, (x) => {
    if (x.k === 'at' && !integral(x.index)) ok = false;
    return x;
  });
  return ok;
}

/** t with index i replaced by e, its index expressions simplified */
function at(t: Term, i: Sym, e: Term): Term {
  return T.mapTerm(T.subst(t, i, e), (x) => (x.k === 'at' ? T.at(x.arr, simplify(x.index)) : x));
}

/**
 * The costly values of a loop body (the roots, over index i from lo in steps of 1) that the body also
 * computes for i + 1: each can be carried from the iteration before instead of computed again (the
 * Brachistochrone's speed at a segment's start is the one at the previous segment's end). Exact: the
 * value carried is the same expression on the same operands (its reads' indices are integers, their
 * arithmetic exact), and the first is the term at i = lo.
 * Only the outermost of nested ones are carried, and only where the body still computes the next one
 * when the carried ones are read instead (no chains: the next of a carried value is computed).
 */
export function carriedAcrossIterations(roots: readonly Term[], i: Sym, lo: Term): Carried[] {
  const nodes = nodesOf(roots);
  const nextOf = new Map<Term, Term>();
  for (const x of nodes) {
    if (!costly(x) || !T.dependsOn(x, i) || !integralReads(x)) continue;
    const next = at(x, i, T.add(T.num(1), i));
    if (next !== x && nodes.has(next)) nextOf.set(x, next);
  }
  let carried = new Set(nextOf.keys());
  for (;;) {
    for (const x of carried) if (carried.has(nextOf.get(x)!)) carried.delete(x);
    // what the body computes when the carried values are read, not computed
    const reached = new Set<Term>();
    const walk = (x: Term): void => {
      if (reached.has(x)) return;
      reached.add(x);
      if (!carried.has(x) && x.k !== 'sum' && x.k !== 'prod') T.children(x).forEach(walk);
    };
    roots.forEach(walk);
    const kept = new Set([...carried].filter((x) => reached.has(x) && reached.has(nextOf.get(x)!)));
    if (kept.size === carried.size) break;
    carried = kept;
  }
  return [...carried].sort((a, b) => a.id - b.id).map((x) => ({ value: x, next: nextOf.get(x)!, first: at(x, i, lo) }));
}

/** the factors common to two lists (as multisets), in a's order */
function common(a: readonly Term[], b: readonly Term[]): Term[] {
  const left = new Map<Term, number>();
  for (const x of b) left.set(x, (left.get(x) ?? 0) + 1);
  const out: Term[] = [];
  for (const x of a) {
    const n = left.get(x) ?? 0;
    if (n > 0) {
      out.push(x);
      left.set(x, n - 1);
    }
  }
  return out;
}

/** `part` is a sub-multiset of `list`: the rest of list, or null */
function without(list: readonly Term[], part: readonly Term[]): Term[] | null {
  const rest = [...list];
  for (const x of part) {
    const k = rest.indexOf(x);
    if (k < 0) return null;
    rest.splice(k, 1);
  }
  return rest;
}

/** bodies with more products than this are left as written (the search is quadratic), and so is what
 * is left after this many parts shared */
const MAX_PRODUCTS = 200;
const MAX_SHARED = 64;

/**
 * Products among `nodes` (one loop body's, in `continuous`) that share two or more factors: each gets the
 * list of factors to multiply, the shared part as one product of its own (computed once, a term of its
 * own) — `4·a·c·d·s` and `4·b·c·d·s` become `a·q` and `b·q`, q = 4·c·d·s. Greedy: the part saving the
 * most multiplications first, again until none saves one. The products round differently from the
 * terms' left-to-right order: derivative code only.
 */
export function sharedProducts(nodes: Iterable<Term>, continuous: ReadonlySet<Term>): Map<Term, Term[]> {
  const present = new Set(nodes);
  const lists = new Map<Term, Term[]>();
  for (const x of present) if (x.k === 'mul' && x.args.length > 2 && continuous.has(x)) lists.set(x, [...x.args]);
  if (lists.size < 2 || lists.size > MAX_PRODUCTS) return new Map();
  for (let round = 0; round < MAX_SHARED; round++) {
    let best: { part: Term[]; saves: number } | null = null;
    const entries = [...lists];
    for (let a = 0; a < entries.length; a++)
      for (let b = a + 1; b < entries.length; b++) {
        const part = common(entries[a][1], entries[b][1]);
        if (part.length < 2) continue;
        const users = entries.filter(([, l]) => without(l, part) !== null).length;
        const saves = (users - 1) * (part.length - 1);
        if (saves > 0 && (!best || saves > best.saves)) best = { part, saves };
      }
    if (!best) break;
    const shared = T.mul(...best.part);
    for (const [x, l] of entries) {
      if (x === shared) continue;
      const rest = without(l, best.part);
      if (rest) lists.set(x, [...rest, shared]);
    }
    // (a product the body computes already keeps its own factors: it may decide something)
    if (!present.has(shared)) lists.set(shared, best.part);
  }
  for (const [x, l] of lists) if (x.k === 'mul' && l.length === x.args.length && l.every((f, j) => f === x.args[j])) lists.delete(x);
  return lists;
}

const MIN_NORMAL = 2 ** -1022;

/** a product in a loop body split into what is computed once before the loop and the rest */
export interface InvariantFactors {
  /** the product of the factors free of the loop's indices, its numbers folded into one */
  invariant: Term;
  /** the product from the invariant's value (a term free of the loop's indices) */
  product: (value: Term) => Term;
}

/**
 * A product c·I₁…Iₘ·V₁…Vₙ in a loop body (c a number, the I's free of the loop's indices, the V's not:
 * `varies` says which) as V₁…Vₙ·P, P = c·I₁…Iₘ computed once before the loop — or, where a V is a
 * division N/b with N free of the indices, with that division (P·N)/b: one division instead of a
 * division and a multiplication in each iteration (`4·(r − d)·(0.5/d)·s` → `(r − d)·((2·s)/d)`, the
 * seed product 2·s hoisted). Null where nothing is saved (fewer than two factors to multiply once, and
 * no division to take them). The products are associated otherwise and a numerator moves into a
 * quotient, so they round differently: for derivative code only, in `continuous` (as sharedProducts).
 */
export function invariantFactors(x: Term, varies: (t: Term) => boolean): InvariantFactors | null {
  if (x.k !== 'mul') return null;
  let c = 1;
  const fixed: Term[] = [];
  const rest: Term[] = [];
  for (const f of x.args) {
    if (f.k === 'num') c *= f.v;
    else (varies(f) ? rest : fixed).push(f);
  }
  // (a coefficient folded to ±∞, 0 or a subnormal loses what the factors kept apart)
  const folded = (v: number): Term[] | null => (v === 1 ? [] : Number.isFinite(v) && Math.abs(v) >= MIN_NORMAL ? [T.num(v)] : null);
  const numbers = folded(c);
  if (!rest.length || !numbers) return null;
  const k = rest.findIndex((f) => f.k === 'div' && !varies(f.a));
  if (k >= 0 && (c !== 1 || fixed.length)) {
    const d = rest[k] as Extract<Term, { k: 'div' }>;
    const numerator = d.a.k === 'num' ? folded(c * d.a.v) : [...numbers, d.a];
    if (!numerator) return null;
    const others = rest.filter((_, j) => j !== k);
    return { invariant: T.mul(...numerator, ...fixed), product: (v) => T.mul(...others, T.div(v, d.b)) };
  }
  if (numbers.length + fixed.length < 2) return null;
  return { invariant: T.mul(...numbers, ...fixed), product: (v) => T.mul(...rest, v) };
}
