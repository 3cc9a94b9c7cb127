// Numerically safe simplification of terms (issue 19, coarsening).
//
// Safety rule (report §2.10 and the issue): a rewrite e → e′ is admitted only if, over the reals, for
// every assignment of finite values to the free symbols, e and e′ are both undefined or both defined
// and equal. Undefined = division by zero, log/sqrt/non-integer power outside the domain, and
// anything built on an undefined part. So `x/x → 1` (x = 0), `sqrt(x)² → x` (x < 0), `0·log(y) → 0`
// (y ≤ 0), `t·t^0.5 → t^1.5` (t = 0: 0·∞) are refused unless the analyses below prove the side
// conditions; rounding may differ (reassociation, folded constants), and overflow is not modelled.
//
// Analyses: `total` (defined for every finite input), `positive` / `nonneg` / `nonzero` (provable
// sign wherever defined), under assumptions the caller gives (symbols known positive).
//
// Rules: constant folding (every node kind, with JavaScript's semantics); flattening; like terms
// (`2x + 3x → 5x`, a zero coefficient dropped only on a total term); numeric coefficients; `0·e → 0`
// and `e^1 → e`, `e^0 → 1`, `1^e → 1` (e total); power merging `b^p·b^q → b^(p+q)` only when b > 0
// provably or p, q are integers of one sign; `(b^p)^q → b^(pq)` on the same conditions; cancellation
// of a divisor by an equal factor (`u/b · b → u`, `(b·u)/b → u`) only when b is total and provably
// nonzero; nested division; data selects and comparisons with decided conditions; φ of identical
// arguments (F1) and φ of one site nested in an argument of the same site; Σ/Π: empty ranges,
// bodies free of the index (`Σ_{i=lo}^{hi} c = (hi − lo + 1)·c`, Σ bounds always satisfy hi ≥ lo − 1),
// linearity over sums and pulling index-free total factors out (loop-invariant hoisting).
// CSE is structural: the terms are hash-consed. `collectCommonFactors` is a separate, size-reducing
// pass (a·x + a·y → a·(x + y)).
//
// Not yet here: expansion/normalisation of polynomials (so `(a+b)² − a² − 2ab` stays), trigonometric
// identities, a rewrite to the report's numerically stable patterns (code generation's job).
import * as T from './terms.js';
import type { Term } from './terms.js';

export interface Assumptions {
  /** names of symbols known to be > 0 */
  positive?: ReadonlySet<string>;
}

const ZERO = T.num(0);
const ONE = T.num(1);
const isInt = (t: Term): boolean => t.k === 'num' && Number.isInteger(t.v);
/** nonnegative-integer-valued: integer literals ≥ 0, trip counts */
const isNatural = (t: Term): boolean => (t.k === 'num' && Number.isInteger(t.v) && t.v >= 0) || (t.k === 'sym' && t.role === 'trip');

const TOTAL_FNS = new Set(['Math.sin', 'Math.cos', 'Math.atan', 'Math.atan2', 'Math.exp', 'Math.expm1', 'Math.sinh', 'Math.cosh', 'Math.tanh', 'Math.asinh', 'Math.abs', 'Math.sign', 'Math.floor', 'Math.ceil', 'Math.round', 'Math.trunc', 'Math.fround', 'Math.hypot', 'Math.min', 'Math.max', 'Math.cbrt']);

export class Analysis {
  private totals = new Map<Term, boolean>();
  private signs = new Map<Term, 'pos' | 'nonneg' | 'nonzero' | 'unknown'>();
  constructor(readonly assume: Assumptions = {}) {}

  /** defined for every assignment of finite reals to the symbols (array elements finite, indices in range) */
  total(t: Term): boolean {
    let r = this.totals.get(t);
    if (r === undefined) {
      r = this.computeTotal(t);
      this.totals.set(t, r);
    }
    return r;
  }

  private computeTotal(t: Term): boolean {
    switch (t.k) {
      case 'num':
        return Number.isFinite(t.v);
      case 'sym':
        return true;
      case 'at':
        return this.total(t.index);
      case 'add':
      case 'mul':
      case 'phi':
        return t.args.every((a) => this.total(a));
      case 'div':
        return this.total(t.a) && this.total(t.b) && this.nonzero(t.b);
      case 'pow':
        return this.total(t.base) && this.total(t.exp) && (isNatural(t.exp) || this.positive(t.base) || (isInt(t.exp) && this.nonzero(t.base)));
      case 'fn':
        if (!t.args.every((a) => this.total(a))) return false;
        if (TOTAL_FNS.has(t.fn)) return true;
        if (t.fn === 'Math.sqrt') return this.nonneg(t.args[0]);
        if (t.fn === 'Math.log' || t.fn === 'Math.log2' || t.fn === 'Math.log10' || t.fn === 'Math.log1p') return this.positive(t.args[0]);
        if (t.fn === '%') return this.nonzero(t.args[1]);
        return false;
      case 'cmp':
        return this.total(t.a) && this.total(t.b);
      case 'sel':
        return this.total(t.c) && this.total(t.a) && this.total(t.b);
      case 'sum':
      case 'prod':
        return this.total(t.lo) && this.total(t.hi) && this.total(t.body);
    }
  }

  private sign(t: Term): 'pos' | 'nonneg' | 'nonzero' | 'unknown' {
    let r = this.signs.get(t);
    if (r === undefined) {
      r = this.computeSign(t);
      this.signs.set(t, r);
    }
    return r;
  }
  positive(t: Term): boolean {
    return this.sign(t) === 'pos';
  }
  nonneg(t: Term): boolean {
    const s = this.sign(t);
    return s === 'pos' || s === 'nonneg';
  }
  nonzero(t: Term): boolean {
    const s = this.sign(t);
    return s === 'pos' || s === 'nonzero';
  }

  private computeSign(t: Term): 'pos' | 'nonneg' | 'nonzero' | 'unknown' {
    switch (t.k) {
      case 'num':
        return t.v > 0 ? 'pos' : t.v === 0 ? 'nonneg' : t.v < 0 ? 'nonzero' : 'unknown';
      case 'sym':
        if (this.assume.positive?.has(t.name)) return 'pos';
        return t.role === 'trip' ? 'nonneg' : 'unknown';
      case 'add': {
        if (t.args.every((a) => this.nonneg(a))) return t.args.some((a) => this.positive(a)) ? 'pos' : 'nonneg';
        return 'unknown';
      }
      case 'mul': {
        if (t.args.every((a) => this.positive(a))) return 'pos';
        if (t.args.every((a) => this.nonzero(a))) return 'nonzero';
        if (t.args.every((a) => this.nonneg(a))) return 'nonneg';
        return 'unknown';
      }
      case 'div':
        if (this.positive(t.a) && this.positive(t.b)) return 'pos';
        if (this.nonzero(t.a)) return 'nonzero';
        if (this.nonneg(t.a) && this.positive(t.b)) return 'nonneg';
        return 'unknown';
      case 'pow': {
        if (this.positive(t.base)) return 'pos';
        const even = t.exp.k === 'num' && Number.isInteger(t.exp.v) && t.exp.v % 2 === 0;
        if (even) return this.nonzero(t.base) ? 'pos' : 'nonneg';
        if (isInt(t.exp) && this.nonzero(t.base)) return 'nonzero';
        return 'unknown';
      }
      case 'fn':
        switch (t.fn) {
          case 'Math.exp':
          case 'Math.cosh':
            return 'pos';
          case 'Math.sqrt':
            return this.positive(t.args[0]) ? 'pos' : 'nonneg';
          case 'Math.abs':
            return this.nonzero(t.args[0]) ? 'pos' : 'nonneg';
          case 'Math.hypot':
            return t.args.some((a) => this.nonzero(a)) ? 'pos' : 'nonneg';
          case 'Math.log':
          case 'Math.log1p':
          case 'Math.log2':
          case 'Math.log10':
            return 'unknown';
        }
        return 'unknown';
      case 'phi':
      case 'sel': {
        const args = t.k === 'phi' ? t.args : [t.a, t.b];
        if (args.every((a) => this.positive(a))) return 'pos';
        if (args.every((a) => this.nonzero(a))) return 'nonzero';
        if (args.every((a) => this.nonneg(a))) return 'nonneg';
        return 'unknown';
      }
      default:
        return 'unknown';
    }
  }
}

/** split a product term into its numeric coefficient and the rest */
export function coefficient(t: Term): [number, Term] {
  if (t.k === 'num') return [t.v, ONE];
  if (t.k === 'mul' && t.args[0].k === 'num') return [t.args[0].v, T.mul(...t.args.slice(1))];
  return [1, t];
}

const baseExp = (t: Term): [Term, Term] => (t.k === 'pow' ? [t.base, t.exp] : [t, ONE]);

export class Simplifier {
  readonly an: Analysis;
  private memo = new Map<Term, Term>();
  constructor(assume: Assumptions = {}) {
    this.an = new Analysis(assume);
  }

  run(t: Term): Term {
    return T.mapTerm(t, (x) => this.node(x), this.memo);
  }

  /** one node whose children are simplified */
  node(x: Term): Term {
    switch (x.k) {
      case 'num':
      case 'sym':
        return x;
      case 'add':
        return this.add(x.args);
      case 'mul':
        return this.mul(x.args);
      case 'pow':
        return this.pow(x.base, x.exp);
      case 'div':
        return this.div(x.a, x.b);
      case 'fn':
        return x.args.every((a) => a.k === 'num') ? T.num(T.evaluate(x, { syms: {} })) : x;
      case 'cmp':
        if (x.a.k === 'num' && x.b.k === 'num') return T.num(T.evaluate(x, { syms: {} }));
        if (x.a === x.b && this.an.total(x.a)) return T.num(x.op === '<=' || x.op === '>=' || x.op === '===' ? 1 : 0);
        return x;
      case 'sel':
        if (x.c.k === 'num') return x.c.v ? x.a : x.b;
        if (x.a === x.b) return x.a;
        return x;
      case 'phi':
        return this.phi(x);
      case 'sum':
      case 'prod':
        return this.bigop(x);
      case 'at':
        return x;
    }
  }

  add(args0: readonly Term[]): Term {
    const args: Term[] = [];
    for (const a of args0) if (a.k === 'add') args.push(...a.args);
    else args.push(a);
    let c = 0;
    const like = new Map<Term, number>();
    for (const a of args) {
      if (a.k === 'num') {
        c += a.v;
        continue;
      }
      const [k, rest] = coefficient(a);
      like.set(rest, (like.get(rest) ?? 0) + k);
    }
    const out: Term[] = [];
    if (c !== 0 || !Number.isFinite(c)) out.push(T.num(c));
    for (const [rest, k] of like) {
      if (k === 0 && this.an.total(rest)) continue;
      out.push(k === 1 ? rest : this.mul([T.num(k), rest]));
    }
    if (out.length === 0) return ZERO;
    return T.add(...out);
  }

  mul(args0: readonly Term[]): Term {
    const args: Term[] = [];
    for (const a of args0) if (a.k === 'mul') args.push(...a.args);
    else args.push(a);
    let c = 1;
    let rest: Term[] = [];
    for (const a of args) if (a.k === 'num') c *= a.v;
    else rest.push(a);
    if (c === 0 && rest.every((a) => this.an.total(a))) return ZERO;
    // a divisor cancelled by an equal factor: (u / b)·b → u, b total and nonzero
    for (let i = 0; i < rest.length; i++) {
      const d = rest[i];
      if (d.k !== 'div' || !this.an.total(d.b) || !this.an.nonzero(d.b)) continue;
      const j = rest.findIndex((f, jj) => jj !== i && f === d.b);
      if (j < 0) continue;
      const next = rest.filter((_, jj) => jj !== i && jj !== j);
      next.push(d.a);
      return this.mul([T.num(c), ...next]);
    }
    // powers of one base
    const groups = new Map<Term, Term[]>();
    for (const f of rest) {
      const [b, e] = baseExp(f);
      const g = groups.get(b);
      if (g) g.push(e);
      else groups.set(b, [e]);
    }
    rest = [];
    for (const [b, exps] of groups) {
      if (exps.length === 1) {
        rest.push(exps[0] === ONE ? b : T.pow(b, exps[0]));
        continue;
      }
      if (this.an.positive(b)) {
        rest.push(this.pow(b, this.add(exps)));
        continue;
      }
      // integers of one sign merge anywhere; the others stay apart
      const pos = exps.filter((e) => isInt(e) && (e as { v: number }).v > 0);
      const negs = exps.filter((e) => isInt(e) && (e as { v: number }).v < 0);
      const others = exps.filter((e) => !pos.includes(e) && !negs.includes(e));
      for (const group of [pos, negs]) if (group.length) rest.push(this.pow(b, this.add(group)));
      for (const e of others) rest.push(e === ONE ? b : T.pow(b, e));
    }
    if (rest.length === 0) return T.num(c);
    if (c === 1) return rest.length === 1 ? rest[0] : T.mul(...rest);
    return T.mul(T.num(c), ...rest);
  }

  pow(b: Term, e: Term): Term {
    if (b.k === 'num' && e.k === 'num') return T.num(b.v ** e.v);
    if (e === ONE) return b;
    if (e === ZERO) return ONE; // JavaScript: x ** 0 is 1 for every x, NaN included
    if (b === ONE && this.an.total(e)) return ONE;
    if (b.k === 'pow') {
      const safe = this.an.positive(b.base) || (isInt(b.exp) && isInt(e));
      if (safe) return this.pow(b.base, this.mul([b.exp, e]));
    }
    return T.pow(b, e);
  }

  div(a: Term, b: Term): Term {
    if (a.k === 'num' && b.k === 'num') return T.num(a.v / b.v);
    if (b === ONE) return a;
    if (b.k === 'num' && b.v === -1) return this.mul([T.num(-1), a]);
    if (a.k === 'div') return this.div(a.a, this.mul([a.b, b]));
    const cancels = this.an.total(b) && this.an.nonzero(b);
    if (cancels) {
      if (a === ZERO) return ZERO;
      if (a === b) return ONE;
      if (a.k === 'mul' && a.args.includes(b)) {
        const i = a.args.indexOf(b);
        return this.mul(a.args.filter((_, j) => j !== i));
      }
    }
    return T.div(a, b);
  }

  phi(x: Extract<Term, { k: 'phi' }>): Term {
    // a φ of site s inside argument j of a φ of site s takes argument j
    const args = x.args.map((a, j) => (mentionsSite(a, x.site) ? this.run(pickSite(a, x.site, j)) : a));
    if (args.every((a) => a === args[0])) return args[0]; // F1
    return T.phi(x.kind, x.site, args);
  }

  bigop(x: Extract<Term, { k: 'sum' | 'prod' }>): Term {
    const { i, lo, hi, body } = x;
    const unit = x.k === 'sum' ? ZERO : ONE;
    if (lo.k === 'num' && hi.k === 'num' && hi.v < lo.v) return unit;
    if (x.k === 'sum' && body === ZERO) return ZERO;
    if (x.k === 'prod' && body === ONE) return ONE;
    const count = () => this.add([hi, this.mul([T.num(-1), lo]), ONE]);
    if (!T.dependsOn(body, i) && this.an.total(body)) return x.k === 'sum' ? this.mul([count(), body]) : this.pow(body, count());
    if (x.k === 'sum' && body.k === 'add') return this.add(body.args.map((a) => this.bigop(T.sum(i, lo, hi, a) as Extract<Term, { k: 'sum' }>)));
    if (body.k === 'mul') {
      const out = body.args.filter((f) => !T.dependsOn(f, i) && this.an.total(f));
      if (out.length) {
        const inner = this.mul(body.args.filter((f) => !out.includes(f)));
        if (x.k === 'sum') return this.mul([...out, this.bigop(T.sum(i, lo, hi, inner) as Extract<Term, { k: 'sum' }>)]);
        return this.mul([...out.map((f) => this.pow(f, count())), this.bigop(T.prod(i, lo, hi, inner) as Extract<Term, { k: 'prod' }>)]);
      }
    }
    return x;
  }
}

function mentionsSite(t: Term, site: string): boolean {
  const seen = new Set<Term>();
  const go = (x: Term): boolean => {
    if (seen.has(x)) return false;
    seen.add(x);
    if (x.k === 'phi' && x.site === site) return true;
    return T.children(x).some(go);
  };
  return go(t);
}

/** every φ of `site` in t replaced by its argument j (the decision is known inside argument j) */
export function pickSite(t: Term, site: string, j: number): Term {
  return T.mapTerm(t, (x) => (x.k === 'phi' && x.site === site ? x.args[j] : x));
}

export function simplify(t: Term, assume: Assumptions = {}): Term {
  return new Simplifier(assume).run(t);
}

/** a·x + a·y → a·(x + y) where it makes the term smaller (bottom-up, each sum once) */
export function collectCommonFactors(t: Term, assume: Assumptions = {}): Term {
  const s = new Simplifier(assume);
  return T.mapTerm(s.run(t), (x) => {
    if (x.k !== 'add' || x.args.length < 2) return x;
    const factorsOf = (a: Term): Term[] => (a.k === 'mul' ? a.args.filter((f) => f.k !== 'num') : a.k === 'num' ? [] : [a]);
    const common = factorsOf(x.args[0]).filter((f) => x.args.every((a) => factorsOf(a).includes(f)));
    if (!common.length) return x;
    const rest = x.args.map((a) => {
      const [k, r] = coefficient(a);
      const fs = factorsOf(r).slice();
      for (const f of common) fs.splice(fs.indexOf(f), 1);
      return s.mul([T.num(k), ...fs]);
    });
    const out = s.mul([...common, s.add(rest)]);
    return T.size(out) < T.size(x) ? out : x;
  });
}
