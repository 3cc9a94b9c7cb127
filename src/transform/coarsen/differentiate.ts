// Symbolic differentiation of terms (issue 19, coarsening).
//
// The partial derivatives of every operator and intrinsic are the rule table's (src/rules/table.ts),
// parsed by src/rules/templates.ts and turned into terms with their argument names and the result
// `r` bound, so the choices at non-differentiable points (∂|x| = sign x, ∂ min at ties, ∂ x**y in y
// at x ≤ 0, …) are exactly those of the default AD: this module has no derivative formulae of its own
// except the n-ary sum and product (the table's `+` and `*`, for any number of arguments).
//
// φ terms are differentiated argument by argument (report C2: ∂φ(a, b) = φ(∂a, ∂b), any arity and
// order), data selects likewise (the condition is piecewise constant), comparisons have derivative
// zero, Σ is linear (∂Σ f = Σ ∂f) and Π follows the product rule with split products (no division).
// Branch decisions and trip counts are constants (as in AD, which differentiates the path taken).
// Differentiation w.r.t. an array element `a[k]` gives `i === k ? 1 : 0` at reads `a[i]`.
//
// Contributions of arguments whose derivative is structurally zero are left out (as activity
// analysis does in AD: `0 · log(y)` is never formed). The result is not simplified.
import { parseTemplate } from '../../rules/templates.js';
import { ruleFor } from '../../rules/table.js';
import { fromIR } from './convert.js';
import * as T from './terms.js';
import type { Term } from './terms.js';

const ZERO = T.num(0);
const ONE = T.num(1);

/** the rule table's partial of `name` w.r.t. argument `i`, at `args` with result `result` */
export function tablePartial(name: string, i: number, args: readonly Term[], result: Term): Term {
  const rule = ruleFor(name);
  if (!rule) throw new Error(`no derivative rule for ${name}`);
  const tpl = parseTemplate(rule.variadic ? rule.partials[0] : rule.partials[i]);
  const names = rule.variadic ? [rule.args[0]] : rule.args;
  const bound = rule.variadic ? [args[i]] : args;
  return fromIR(tpl, {
    resolve: (n) => {
      if (n === 'r') return result;
      const j = names.indexOf(n);
      if (j < 0) throw new Error(`unbound template name ${n} in the rule for ${name}`);
      return bound[j];
    },
  });
}

const times = (d: Term, partial: Term): Term => (d === ONE ? partial : partial === ONE ? d : T.mul(partial, d));

function chain(name: string, t: Term, args: readonly Term[], d: (x: Term) => Term): Term {
  const terms: Term[] = [];
  args.forEach((a, i) => {
    const da = d(a);
    if (da !== ZERO) terms.push(times(da, tablePartial(name, i, args, t)));
  });
  return terms.length ? T.add(...terms) : ZERO;
}

/** ∂t/∂wrt, wrt a symbol or an array element term. */
export function differentiate(t: Term, wrt: Term): Term {
  if (wrt.k !== 'sym' && wrt.k !== 'at') throw new Error('differentiate: w.r.t. a symbol or an array element');
  const memo = new Map<Term, Term>();
  const d = (x: Term): Term => {
    let r = memo.get(x);
    if (r === undefined) {
      r = rule(x);
      memo.set(x, r);
    }
    return r;
  };
  const rule = (x: Term): Term => {
    switch (x.k) {
      case 'num':
      case 'cmp':
        return ZERO;
      case 'sym':
        return x === wrt ? ONE : ZERO;
      case 'at': {
        if (x === wrt) return ONE;
        if (wrt.k !== 'at' || wrt.arr !== x.arr) return ZERO;
        if (x.index.k === 'num' && wrt.index.k === 'num') return ZERO;
        return T.sel(T.cmp('===', x.index, wrt.index), ONE, ZERO);
      }
      case 'add': {
        const ds = x.args.map(d).filter((y) => y !== ZERO);
        return ds.length ? T.add(...ds) : ZERO;
      }
      case 'mul': {
        const terms: Term[] = [];
        x.args.forEach((a, i) => {
          const da = d(a);
          if (da === ZERO) return;
          const rest = x.args.filter((_, j) => j !== i);
          terms.push(times(da, T.mul(...rest)));
        });
        return terms.length ? T.add(...terms) : ZERO;
      }
      case 'pow':
        return chain('**', x, [x.base, x.exp], d);
      case 'div':
        return chain('/', x, [x.a, x.b], d);
      case 'fn':
        return chain(x.fn, x, x.args, d);
      case 'sel': {
        const da = d(x.a), db = d(x.b);
        return da === ZERO && db === ZERO ? ZERO : T.sel(x.c, da, db);
      }
      case 'phi': {
        // C2
        const ds = x.args.map(d);
        return ds.every((y) => y === ZERO) ? ZERO : T.phi(x.kind, x.site, ds);
      }
      case 'sum': {
        const db = d(x.body);
        return db === ZERO ? ZERO : T.sum(x.i, x.lo, x.hi, db);
      }
      case 'prod': {
        // ∂Π_{i=lo}^{hi} f(i) = Σ_{i=lo}^{hi} ∂f(i) · Π_{j=lo}^{i-1} f(j) · Π_{j=i+1}^{hi} f(j)
        const db = d(x.body);
        if (db === ZERO) return ZERO;
        const j = T.sym(`${x.i.name}'`, 'index');
        const fj = T.subst(x.body, x.i, j);
        return T.sum(x.i, x.lo, x.hi, T.mul(db, T.prod(j, x.lo, T.add(x.i, T.num(-1)), fj), T.prod(j, T.add(x.i, ONE), x.hi, fj)));
      }
    }
  };
  return d(t);
}
