// The φ-calculus of the coarsening report (issue 19; notes/coarsening.md §2.3–2.7) as rewrites on
// terms.
//
// Branch φ's: F1 (φ(a, …, a) = a: in the simplifier), F2/C1 (`distribute`: an operation applied to a
// φ goes into each argument; `liftPhis`: all the way, to the piecewise normal form where φ's are
// outermost and each leaf is branch-free, so cancellations across branches show — the report's
// Fig. 3 simplifications), F2 backwards (`pullOut`: φ(f(a, x), f(b, x)) = f(φ(a, b), x)), F3
// (`complement`: φ_s(a, b) = φ_!s(b, a)), C3 and C4 (reordering nested φ's). C2 (differentiation
// through φ) is in differentiate.ts.
//
// Loops: a loop-carried variable d is a recurrence `d ← F(ϕ_L(p, d))`, given here as `next` over a
// stand-in symbol `prev` for the entry φ. F4 says the entry φ in iteration j is p for j = 1 and the
// value after j − 1 updates otherwise; `closeRecurrence` gives the value after m updates in closed
// form by C6 (a·ϕ + b), C7 (a·ϕ + b[i]), C8 (a[i]·ϕ + b[i], the corrected form) and C9 (a·ϕ^b, the
// corrected form); C5 (f^[n](p)) when the trip count is a small constant (unrolling). Affinity in
// `prev` is checked syntactically (so a piecewise-constant F, e.g. floor, is never taken for affine);
// a and b are read off by differentiation and substitution. `exitPhiF5` removes an exit φ by F5 when
// its non-skip arguments coincide and vanish to the pre-loop value at zero iterations.
//
// Not yet here: the F2 reshaping search beyond affinity (an affine body already covers the report's
// `ϕ(0, c·w − e) = c·ϕ(e/c, w) − e` example), systems of coupled recurrences (two loop-carried
// variables feeding each other), closing loops whose trip count is neither a symbol nor small.
import { differentiate } from './differentiate.js';
import { simplify, type Assumptions } from './simplify.js';
import * as T from './terms.js';
import type { Term } from './terms.js';

type Phi = Extract<Term, { k: 'phi' }>;
type Sym = Extract<Term, { k: 'sym' }>;

/** F2/C1, one step: the first φ child of t taken outside: f(…, φ(a, b), …) → φ(f(…a…), f(…b…)). */
export function distribute(t: Term): Term {
  if (t.k === 'phi' || t.k === 'sum' || t.k === 'prod') return t;
  const kids = T.children(t);
  const i = kids.findIndex((c) => c.k === 'phi');
  if (i < 0) return t;
  const p = kids[i] as Phi;
  return T.phi(p.kind, p.site, p.args.map((a) => T.rebuild(t, kids.map((c, j) => (j === i ? a : c)))));
}

/**
 * F2 everywhere: φ's become outermost, each leaf free of φ's (the piecewise form); inside argument
 * j of a φ of site s every φ of site s takes argument j. Leaves are simplified. Returns t unchanged if
 * the result would exceed `maxSize` nodes (the number of paths can be exponential in the branches).
 */
export function liftPhis(t: Term, assume: Assumptions = {}, maxSize = 2000): Term {
  const sites = new Map<string, Phi>();
  T.mapTerm(t, (x) => {
    if (x.k === 'phi' && !sites.has(x.site)) sites.set(x.site, x);
    return x;
  });
  let budget = maxSize;
  const split = (x: Term, order: Phi[]): Term => {
    if (budget < 0) return x;
    if (order.length === 0) {
      const leaf = simplify(x, assume);
      budget -= T.size(leaf);
      return leaf;
    }
    const [p, ...rest] = order;
    if (!mentions(x, p.site)) return split(x, rest);
    return T.phi(p.kind, p.site, p.args.map((_, j) => split(T.mapTerm(x, (y) => (y.k === 'phi' && y.site === p.site ? y.args[j] : y)), rest)));
  };
  const out = split(t, [...sites.values()]);
  return budget < 0 ? t : simplify(out, assume);
}

function mentions(t: Term, site: string): boolean {
  let found = false;
  T.mapTerm(t, (x) => {
    if (x.k === 'phi' && x.site === site) found = true;
    return x;
  });
  return found;
}

/** F2 backwards: φ(f(a1, x), f(a2, x), …) → f(φ(a1, a2, …), x) when the arguments differ in one place only. */
export function pullOut(t: Term): Term {
  if (t.k !== 'phi') return t;
  const [first, ...others] = t.args;
  const head = (x: Term) => (x.k === 'fn' ? `fn:${x.fn}` : x.k === 'cmp' ? `cmp:${x.op}` : x.k === 'phi' ? `phi:${x.site}` : x.k === 'at' ? `at:${x.arr}` : x.k);
  if (first.k === 'num' || first.k === 'sym' || first.k === 'sum' || first.k === 'prod' || first.k === 'add' || first.k === 'mul') return t;
  if (!others.every((o) => head(o) === head(first) && T.children(o).length === T.children(first).length)) return t;
  const kids = t.args.map(T.children);
  const differ = kids[0].map((_, i) => kids.some((k) => k[i] !== kids[0][i]));
  if (differ.filter(Boolean).length !== 1) return t;
  const i = differ.indexOf(true);
  return T.rebuild(first, kids[0].map((c, j) => (j === i ? T.phi(t.kind, t.site, kids.map((k) => k[i])) : c)));
}

/** F3: φ_s(a, b) = φ̄_s(b, a), the complement reading the same decision (site `!s`). */
export function complement(t: Term): Term {
  if (t.k !== 'phi' || t.args.length !== 2) return t;
  const site = t.site.startsWith('!') ? t.site.slice(1) : `!${t.site}`;
  return T.phi(t.kind, site, [t.args[1], t.args[0]]);
}

/** C3: ϕ1(a, ϕ2(b, c)) = ϕ2(ϕ1(a, b), ϕ1(a, c)) (the last argument's φ taken outside). */
export function c3(t: Term): Term {
  if (t.k !== 'phi') return t;
  const last = t.args[t.args.length - 1];
  if (last.k !== 'phi' || last.site === t.site) return t;
  return T.phi(last.kind, last.site, last.args.map((b) => T.phi(t.kind, t.site, [...t.args.slice(0, -1), b])));
}

/** C4: ϕ1(a, ϕ2(a, c)) = ϕ2(a, ϕ1(a, c)) (C3 then F1 on the first argument). */
export function c4(t: Term): Term {
  if (t.k !== 'phi' || t.args.length !== 2) return t;
  const [a, inner] = t.args;
  if (inner.k !== 'phi' || inner.args.length !== 2 || inner.args[0] !== a || inner.site === t.site) return t;
  return T.phi(inner.kind, inner.site, [a, T.phi(t.kind, t.site, [a, inner.args[1]])]);
}

// ---------- loops ----------

export interface Recurrence {
  /** the stand-in for the entry φ ϕ_L(p, d) in `next` */
  prev: Sym;
  /** the value of d at the end of an iteration, over `prev`, the loop index and loop invariants */
  next: Term;
  /** p: the value entering the loop */
  init: Term;
  /** the loop's iteration index (0 … n−1), if `next` reads it */
  index?: Sym;
}

export interface Closed {
  rule: 'C5' | 'C6' | 'C7' | 'C8' | 'C9';
  /** d after m updates (m a term: the trip count n, n − 1, 0, …); the entry φ in iteration j is after(j − 1) (F4) */
  after: (m: Term) => Term;
}

/** Is t affine in v: v under sums, under one factor of products, in numerators, under Σ and φ? */
function affine(t: Term, v: Term): boolean {
  if (!T.contains(t, v)) return true;
  switch (t.k) {
    case 'sym':
      return t === v;
    case 'add':
    case 'phi':
      return t.args.every((a) => affine(a, v));
    case 'mul': {
      const dep = t.args.filter((a) => T.contains(a, v));
      return dep.length === 1 && affine(dep[0], v);
    }
    case 'div':
      return !T.contains(t.b, v) && affine(t.a, v);
    case 'sum':
      return !T.contains(t.lo, v) && !T.contains(t.hi, v) && affine(t.body, v);
    default:
      return false;
  }
}

const dec = (t: Term) => T.add(t, T.num(-1));

/** a recurrence closed by C5 (unrolling) asked for its value after a number of updates that is not a small constant */
export class NoClosedForm extends Error {}

export function closeRecurrence(rec: Recurrence, opts: { assume?: Assumptions; unroll?: number } = {}): Closed | null {
  const s = (t: Term) => simplify(t, opts.assume);
  const { prev, init: p } = rec;
  const next = s(rec.next);
  const byIndex = (t: Term) => rec.index !== undefined && T.dependsOn(t, rec.index);
  // Σ/Π indices new to the terms they are put around: an index of the same name bound inside b (a closed
  // form of another variable of this loop) would capture the substitution i → k (deterministic names)
  const taken = new Set<string>();
  const collect = (t: Term, seen = new Set<Term>()): void => {
    if (seen.has(t)) return;
    seen.add(t);
    if (t.k === 'sym') taken.add(t.name);
    for (const c of T.children(t)) collect(c, seen);
  };
  collect(next);
  collect(p);
  const fresh = (n: string) => {
    let name = `${rec.index?.name ?? 'i'}${n}`;
    for (let j = 2; taken.has(name); j++) name = `${rec.index?.name ?? 'i'}${n}${j}`;
    taken.add(name);
    return T.sym(name, 'index');
  };
  if (affine(next, prev)) {
    const a = s(differentiate(next, prev));
    const b = s(T.subst(next, prev, T.num(0)));
    if (!T.contains(a, prev) && !T.contains(b, prev)) {
      if (a === T.num(0)) {
        // a value carried by one update (`prev = xs[i]`): after m ≥ 1 updates the last b, else p — C6/C7
        // with a = 0, whose Σ of 0^(m−1−k)·b[k] would cost a loop per use
        const last = (m: Term) => (byIndex(b) ? T.subst(b, rec.index!, dec(m)) : b);
        return { rule: byIndex(b) ? 'C7' : 'C6', after: (m) => s(T.sel(T.cmp('>=', m, T.num(1)), last(m), p)) };
      }
      if (!byIndex(a)) {
        const k = fresh('ᵏ');
        if (!byIndex(b)) {
          // C6: a^m·p + b·Σ_{k=0}^{m-1} a^k
          return { rule: 'C6', after: (m) => s(T.add(T.mul(T.pow(a, m), p), T.mul(b, T.sum(k, T.num(0), dec(m), T.pow(a, k))))) };
        }
        // C7: a^m·p + Σ_{k=0}^{m-1} a^k·b[m-1-k], summed the other way round so that a = 1 leaves Σ b[i]
        // as it stands in the loop: a^m·p + Σ_{i=0}^{m-1} a^(m-1-i)·b[i]
        const bi = T.subst(b, rec.index!, k);
        return { rule: 'C7', after: (m) => s(T.add(T.mul(T.pow(a, m), p), T.sum(k, T.num(0), dec(m), T.mul(T.pow(a, T.add(dec(m), T.neg(k))), bi)))) };
      }
      // C8: p·Π_{i=0}^{m-1} a[i] + Σ_{i=0}^{m-1} b[i]·Π_{j=i+1}^{m-1} a[j]
      const i = fresh('ⁱ'), j = fresh('ʲ');
      const ai = T.subst(a, rec.index!, i), aj = T.subst(a, rec.index!, j), bi = T.subst(b, rec.index!, i);
      return { rule: 'C8', after: (m) => s(T.add(T.mul(p, T.prod(i, T.num(0), dec(m), ai)), T.sum(i, T.num(0), dec(m), T.mul(bi, T.prod(j, T.add(i, T.num(1)), dec(m), aj))))) };
    }
  }
  // C9: a·ϕ^b ⇒ a^{Σ_{i=0}^{m-1} b^i}·p^{b^m}
  const factors = next.k === 'mul' ? next.args : [next];
  const powIdx = factors.findIndex((f) => f.k === 'pow' && f.base === prev);
  if (powIdx >= 0) {
    const e = (factors[powIdx] as Extract<Term, { k: 'pow' }>).exp;
    const a = s(T.mul(...factors.filter((_, j) => j !== powIdx)));
    if (!T.contains(e, prev) && !T.contains(a, prev) && !byIndex(e) && !byIndex(a)) {
      const k = fresh('ᵏ');
      return { rule: 'C9', after: (m) => s(T.mul(T.pow(a, T.sum(k, T.num(0), dec(m), T.pow(e, k))), T.pow(p, T.pow(e, m)))) };
    }
  }
  // C5: f^[m](p) for a constant m (unrolling)
  const limit = opts.unroll ?? 0;
  if (limit > 0) {
    return {
      rule: 'C5',
      after: (m) => {
        const mm = s(m);
        if (mm.k !== 'num' || !Number.isInteger(mm.v) || mm.v < 0 || mm.v > limit) throw new NoClosedForm(`C5: no closed form after ${T.show(mm)} updates (not a constant ≤ ${limit})`);
        let d = p;
        for (let it = 0; it < mm.v; it++) d = s(T.subst(rec.index ? T.subst(next, rec.index, T.num(it)) : next, prev, d));
        return d;
      },
    };
  }
  return null;
}

/**
 * F5: an exit φ ϕ_L'(a, b1, …, bm) is b1 when all the b's are the same term and b1 after zero
 * iterations (the trip count — a symbol or an expression — set to 0) is a. Otherwise the φ is
 * returned (it stays, to be decided at run time by the exit taken).
 */
export function exitPhiF5(t: Term, trip: Term, assume: Assumptions = {}): Term {
  if (t.k !== 'phi' || t.kind !== 'exit' || t.args.length < 2) return t;
  const [a, b1, ...bs] = t.args.map((x) => simplify(x, assume));
  if (!bs.every((b) => b === b1)) return t;
  return simplify(T.subst(b1, trip, T.num(0)), assume) === a ? b1 : t;
}
