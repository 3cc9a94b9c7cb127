// IR ↔ terms for coarsening (issue 19).
//
// `fromIR` turns a scalar IR expression (src/ir/types.ts) into a term: numbers, variables (or what a
// resolver substitutes for them: forward substitution along SSA uses this), + − × ÷ % **, unary minus,
// comparisons, `c ? a : b` (a data select), Math intrinsics of the rule table, `Math.pow`, element
// reads `a[i]` of a named array and `a.length`. Anything else throws `NotATerm` (calls of user
// functions, objects, strings, logical operators): such code is not part of a symbolic region.
//
// `toIR` turns a term back into one IR expression (φ terms by a caller-supplied decision read, Σ/Π
// refused), and `lowerTerm` into statements: every DAG node used more than once is bound once to a
// `const` temporary (CSE), Σ and Π become counted loops accumulating into a `let`: the parts of their
// bodies free of every index are computed once before the loop, and the Σ/Π over the same range that
// can be computed at that point share the loop (Σ linearity splits a loop's sum into several; fused,
// their common subterms are computed once per iteration).
//
// Not yet here: the numerically stable pattern table (report §2.10, `log(1 + e^t)`).
import type { BinOp, Expr, Stmt } from '../../ir/types.js';
import { BOOL, INT, NUM } from '../../ir/util.js';
import { ruleFor } from '../../rules/table.js';
import { byLoop, carriedAcrossIterations, continuousNodes, sharedProducts, sharedReciprocals } from './reuse.js';
import * as T from './terms.js';
import type { Term } from './terms.js';

export class NotATerm extends Error {}

export interface FromIROptions {
  /** what a variable read stands for (default: the symbol of its name) */
  resolve?: (name: string) => Term | undefined;
}

const CMP: Partial<Record<BinOp, T.CmpOp>> = { '<': '<', '<=': '<=', '>': '>', '>=': '>=', '===': '===', '!==': '!==', '==': '===', '!=': '!==' };

export function fromIR(e: Expr, opts: FromIROptions = {}): Term {
  const go = (x: Expr): Term => {
    switch (x.k) {
      case 'num':
        return T.num(x.v);
      case 'bool':
        return T.num(x.v ? 1 : 0);
      case 'var':
        return opts.resolve?.(x.name) ?? T.sym(x.name);
      case 'global':
        return T.sym(x.name);
      case 'un':
        if (x.op === '-') return T.neg(go(x.a));
        if (x.op === '+') return go(x.a);
        break;
      case 'bin': {
        const a = go(x.a), b = go(x.b);
        switch (x.op) {
          case '+':
            return T.add(a, b);
          case '-':
            return T.sub(a, b);
          case '*':
            return T.mul(a, b);
          case '/':
            return T.div(a, b);
          case '**':
            return T.pow(a, b);
          case '%':
            return T.fn('%', a, b);
          default: {
            const op = CMP[x.op];
            if (op) return T.cmp(op, a, b);
          }
        }
        break;
      }
      case 'cond':
        return T.sel(go(x.c), go(x.a), go(x.b));
      case 'intr':
        if (x.fn === 'Math.pow' && x.args.length === 2) return T.pow(go(x.args[0]), go(x.args[1]));
        if (ruleFor(x.fn) && T.hasIntrinsic(x.fn)) return T.fn(x.fn, ...x.args.map(go));
        break;
      case 'idx':
        if (x.obj.k === 'var' || x.obj.k === 'global') return T.at(x.obj.name, go(x.index));
        break;
      case 'len':
        if (x.obj.k === 'var' || x.obj.k === 'global') return T.sym(`${x.obj.name}.length`);
        break;
    }
    throw new NotATerm(`not a symbolic term: ${x.k}${x.k === 'bin' || x.k === 'un' ? ` ${x.op}` : x.k === 'intr' || x.k === 'call' ? ` ${x.fn}` : ''}`);
  };
  return go(e);
}

export interface ToIROptions {
  /** the IR name of a symbol (default: its name; trip-count symbols have no default) */
  name?: (s: Extract<Term, { k: 'sym' }>) => string;
  /** the IR read of the decision recorded at a φ site (an int: the index of the argument taken) */
  decision?: (site: string, kind: T.PhiKind) => Expr;
}

const n = (v: number): Expr => (v < 0 || Object.is(v, -0) ? { k: 'un', op: '-', a: { k: 'num', v: -v }, ty: NUM } : { k: 'num', v });
const b2 = (op: BinOp, a: Expr, b: Expr): Expr => ({ k: 'bin', op, a, b, ty: NUM });

function symName(s: Extract<Term, { k: 'sym' }>, opts: ToIROptions): string {
  if (opts.name) return opts.name(s);
  if (s.role === 'trip') throw new Error(`toIR: trip count ${s.name} needs a name`);
  return s.name;
}

/** One IR expression for a term; `sub` lowers children (lowerTerm passes one that reads temporaries). */
function node(t: Term, sub: (t: Term) => Expr, opts: ToIROptions): Expr {
  switch (t.k) {
    case 'num':
      return n(t.v);
    case 'sym':
      return { k: 'var', name: symName(t, opts), ty: t.role === 'var' ? NUM : INT };
    case 'add': {
      // a term with a negative coefficient prints as a subtraction
      const negated = (a: Term): Term | null => (a.k === 'mul' && a.args[0].k === 'num' && a.args[0].v < 0 ? (a.args[0].v === -1 ? T.mul(...a.args.slice(1)) : T.mul(T.num(-a.args[0].v), ...a.args.slice(1))) : a.k === 'num' && a.v < 0 ? T.num(-a.v) : null);
      // (−a + b as b − a: the same sum, exactly, without the negation)
      const args = t.args.length >= 2 && negated(t.args[0]) && !negated(t.args[1]) ? [t.args[1], t.args[0], ...t.args.slice(2)] : t.args;
      let out: Expr | null = null;
      for (const a of args) {
        const minus = negated(a);
        if (out && minus) out = b2('-', out, sub(minus));
        else out = out ? b2('+', out, sub(a)) : sub(a);
      }
      return out!;
    }
    case 'mul': {
      if (t.args[0].k === 'num' && t.args[0].v === -1) return { k: 'un', op: '-', a: sub(T.mul(...t.args.slice(1))), ty: NUM };
      return t.args.map(sub).reduce((x, y) => b2('*', x, y));
    }
    case 'pow':
      // (the same value: V8's pow returns x * x for the exponent 2, as its optimizing tiers compile it;
      // it is what the source wrote before the simplifier merged the factors, and needs no call)
      return squared(t) ? b2('*', sub(t.base), sub(t.base)) : b2('**', sub(t.base), sub(t.exp));
    case 'div':
      return b2('/', sub(t.a), sub(t.b));
    case 'fn':
      if (t.fn === '%') return b2('%', sub(t.args[0]), sub(t.args[1]));
      return { k: 'intr', fn: t.fn, args: t.args.map(sub), ty: NUM };
    case 'cmp':
      return { k: 'bin', op: t.op, a: sub(t.a), b: sub(t.b), ty: BOOL };
    case 'sel':
      return { k: 'cond', c: sub(t.c), a: sub(t.a), b: sub(t.b), ty: NUM };
    case 'phi': {
      if (!opts.decision) throw new Error(`toIR: φ at ${t.site} needs a decision read`);
      const d = opts.decision(t.site, t.kind);
      // d === 0 ? a0 : d === 1 ? a1 : … : a(n-1)
      let out = sub(t.args[t.args.length - 1]);
      for (let j = t.args.length - 2; j >= 0; j--) out = { k: 'cond', c: { k: 'bin', op: '===', a: d, b: { k: 'num', v: j }, ty: BOOL }, a: sub(t.args[j]), b: out, ty: NUM };
      return out;
    }
    case 'at':
      return { k: 'idx', obj: { k: 'var', name: t.arr, ty: { k: 'arr', elem: NUM, typed: false, ro: true } }, index: sub(t.index), ty: NUM };
    case 'sum':
    case 'prod':
      throw new Error('toIR: Σ/Π need statements (lowerTerm)');
  }
}

/** a power with the exponent 2 (printed as a product: its base is read twice) */
const squared = (t: Term): boolean => t.k === 'pow' && t.exp.k === 'num' && t.exp.v === 2;

/** the product of factors, a leading −1 as a negation */
function product(fs: readonly Expr[]): Expr {
  const minus = fs.length > 1 && fs[0].k === 'un' && fs[0].op === '-' && fs[0].a.k === 'num' && fs[0].a.v === 1;
  const p = (minus ? fs.slice(1) : fs).reduce((x, y) => b2('*', x, y));
  return minus ? { k: 'un', op: '-', a: p, ty: NUM } : p;
}

/** One IR expression (a tree: shared nodes are repeated; Σ/Π refused). */
export function toIR(t: Term, opts: ToIROptions = {}): Expr {
  const sub = (x: Term): Expr => node(x, sub, opts);
  return sub(t);
}

/**
 * Statements computing a term: nodes used more than once become `const` temporaries, Σ/Π counted
 * loops. `fresh` makes names that do not clash with the caller's.
 */
export function lowerTerm(t: Term, fresh: (hint: string) => string, opts: ToIROptions = {}): { stmts: Stmt[]; value: Expr } {
  const { stmts, values } = lowerTerms([t], fresh, opts);
  return { stmts, value: values[0] };
}

type BigOp = Extract<Term, { k: 'sum' | 'prod' }>;

/** the maximal subterms of t free of every Σ/Π index (loop invariants of the loops Σ/Π become), numbers and symbols aside */
export function invariantParts(t: Term): Term[] {
  const out: Term[] = [];
  const seen = new Set<Term>();
  const go = (x: Term): void => {
    if (seen.has(x)) return;
    seen.add(x);
    if (x.k === 'num' || x.k === 'sym') return;
    if (![...T.freeSyms(x)].some((s) => s.role === 'index')) {
      out.push(x);
      return;
    }
    for (const c of T.children(x)) go(c);
  };
  go(t);
  return out;
}

/**
 * Can y be computed in the loop of x (emitted where `bound` holds): the same range, neither reads the
 * other, every index y reads is bound here, its own index cannot be confused with one x reads, and no
 * Σ/Π inside y that is free of y's index is left to compute (it would be recomputed on each iteration).
 */
function fusable(x: BigOp, y: BigOp, bound: ReadonlyMap<Term, string>): boolean {
  if (bound.has(y) || y.lo !== x.lo || y.hi !== x.hi || T.contains(x, y) || T.contains(y, x)) return false;
  const fy = T.freeSyms(y);
  if ([...fy].some((s) => s.role === 'index' && !bound.has(s))) return false;
  if (y.i !== x.i && (bound.has(y.i) || fy.has(x.i as Extract<Term, { k: 'sym' }>) || T.freeSyms(x).has(y.i))) return false;
  let invariantInner = false;
  const seen = new Set<Term>();
  const visit = (t: Term): void => {
    if (seen.has(t) || invariantInner || bound.has(t)) return;
    seen.add(t);
    if ((t.k === 'sum' || t.k === 'prod') && !T.dependsOn(t, y.i)) invariantInner = true;
    else T.children(t).forEach(visit);
  };
  visit(y.body);
  return !invariantInner;
}

/**
 * The powers b^(i + c) in the bodies of a loop over i from `lo` (i the index of a member of the group,
 * b free of every index, c an integer with lo + c ≥ −1), not yet computed: each can be a running
 * product starting at b^(lo + c). (From a lower start the product would pass through b^-2·b at b = 0.)
 */
function runningPowers(group: readonly BigOp[], lo: number, bound: ReadonlyMap<Term, string>): { term: Term; base: Term; first: number }[] {
  const out: { term: Term; base: Term; first: number }[] = [];
  const indices = new Set<Term>(group.map((y) => y.i));
  const seen = new Set<Term>();
  const visit = (t: Term): void => {
    if (seen.has(t) || bound.has(t)) return;
    seen.add(t);
    if (t.k === 'sum' || t.k === 'prod') return; // (a nested loop's powers are its own)
    if (t.k === 'pow' && ![...T.freeSyms(t.base)].some((s) => s.role === 'index')) {
      const i = [...T.freeSyms(t.exp)].filter((s) => s.role === 'index');
      if (i.length === 1 && indices.has(i[0])) {
        const c = offset(t.exp, i[0]);
        if (c !== null && lo + c >= -1) {
          out.push({ term: t, base: t.base, first: lo + c });
          return;
        }
      }
    }
    T.children(t).forEach(visit);
  };
  for (const y of group) visit(y.body);
  return out;
}

/** c when e is i + c for an integer c (e is the index, or a sum of it and an integer) */
function offset(e: Term, i: Term): number | null {
  if (e === i) return 0;
  if (e.k === 'add' && e.args.length === 2 && e.args[0].k === 'num' && Number.isInteger(e.args[0].v) && e.args[1] === i) return e.args[0].v;
  return null;
}

export interface LowerOptions extends ToIROptions {
  /**
   * The roots are partials (derivative code, reuse.ts): two or more divisions by one denominator become
   * products with its reciprocal, which rounds differently from the terms as written.
   */
  partials?: boolean;
  /** terms whose values variables already hold (values carried from the previous iteration) */
  given?: ReadonlyMap<Term, string>;
}

/** the comment on the first value a loop carries from one iteration to the next */
export const CARRIED = '// (values the previous iteration computed for this one: the first computed here, the next handed on at the end)';

/** lowerTerm for several terms at once: a node they share is computed once (the value reused by its partials) */
export function lowerTerms(roots: readonly Term[], fresh: (hint: string) => string, opts: LowerOptions = {}): { stmts: Stmt[]; values: Expr[] } {
  const reciprocal = new Map<Term, Term>();
  const products = new Map<Term, Term[]>();
  if (opts.partials) {
    const continuous = continuousNodes(roots);
    for (const body of byLoop(roots)) {
      for (const [b, r] of sharedReciprocals(body, continuous)) reciprocal.set(b, r);
      for (const [x, fs] of sharedProducts(body, continuous)) products.set(x, fs);
    }
  }
  /** the factors a product or a division is computed from: its own, or with what it shares (reuse.ts) */
  const factors = (x: Term): readonly Term[] | undefined => {
    if (x.k === 'mul') return products.get(x);
    const r = x.k === 'div' ? reciprocal.get(x.b) : undefined;
    return r && r !== x ? [(x as Extract<Term, { k: 'div' }>).a, r] : undefined;
  };
  const uses = new Map<Term, number>();
  const count = (x: Term): void => {
    const c = uses.get(x) ?? 0;
    uses.set(x, c + 1);
    if (c > 0 || opts.given?.has(x)) return;
    for (const k of factors(x) ?? T.children(x)) count(k);
    if (squared(x)) count((x as Extract<Term, { k: 'pow' }>).base);
  };
  for (const t of roots) count(t);
  const bigops = [...uses.keys()].filter((x): x is BigOp => x.k === 'sum' || x.k === 'prod');
  const emit = (x: Term, out: Stmt[], bound: Map<Term, string>): Expr => {
    const name = bound.get(x);
    if (name) return { k: 'var', name, ty: NUM };
    let e: Expr;
    if (x.k === 'sum' || x.k === 'prod') {
      const hi = emit(x.hi, out, bound);
      const lo = emit(x.lo, out, bound);
      // the bodies' parts free of every index: computed once, before the loop
      const hoist = (y: BigOp) => {
        for (const part of invariantParts(y.body)) {
          const pe = emit(part, out, bound);
          if (pe.k === 'var' || pe.k === 'num' || (pe.k === 'un' && pe.a.k === 'num')) continue;
          const tmp = fresh('t');
          out.push({ k: 'decl', name: tmp, ty: NUM, init: pe, konst: true });
          bound.set(part, tmp);
        }
      };
      hoist(x);
      // one loop for every Σ/Π over the same range that can be computed here (the report's Σ terms
      // split by linearity come back together): their shared subterms are computed once per iteration
      const group = [x, ...bigops.filter((y) => y !== x && fusable(x, y, bound))];
      group.slice(1).forEach(hoist);
      const accs = group.map((y) => {
        const acc = fresh(y.k === 'sum' ? 'sum' : 'prod');
        out.push({ k: 'decl', name: acc, ty: NUM, init: n(y.k === 'sum' ? 0 : 1), konst: false });
        return acc;
      });
      const i = fresh(x.i.name.replace(/[^A-Za-z0-9_$]/g, '') || 'i');
      const iv: Expr = { k: 'var', name: i, ty: INT };
      // inside the loop the indices read the loop variable; temporaries made there stay there, and
      // those made outside that read a symbol the loop binds anew (a Σ nested in a Σ over the same index
      // symbol) are not the loop's
      const inner = new Map([...bound].filter(([t]) => !group.some((y) => T.dependsOn(t, y.i))));
      for (const y of group) inner.set(y.i, i);
      // powers b^(i + c) of an invariant base: a running product, one multiplication per iteration
      // instead of a power (the geometric sums of C6 and their derivatives)
      const running = x.lo.k === 'num' && Number.isInteger(x.lo.v) ? runningPowers(group, x.lo.v, bound) : [];
      const updates: Stmt[] = [];
      for (const r of running) {
        const base = emit(r.base, out, bound);
        const pw = fresh('pow');
        out.push({ k: 'decl', name: pw, ty: NUM, init: b2('**', base, n(r.first)), konst: false });
        inner.set(r.term, pw);
        const pv: Extract<Expr, { k: 'var' }> = { k: 'var', name: pw, ty: NUM };
        // (from b^-1 to b^0 the product would be ∞·0 at b = 0: b^0 is 1 for every b)
        const next = r.first === -1 ? ({ k: 'cond', c: { k: 'bin', op: '===', a: iv, b: lo, ty: BOOL }, a: n(1), b: b2('*', pv, base), ty: NUM } as Expr) : b2('*', pv, base);
        updates.push({ k: 'assign', target: pv, value: next, ...(r.first === -1 ? {} : { op: '*' as const }) });
      }
      // values of the previous iteration (partials only, one index: reuse.ts): the first computed
      // before the loop, which then needs an iteration at least (the first reads the first elements)
      const carried = opts.partials && group.every((y) => y.i === x.i) ? carriedAcrossIterations(group.map((y) => y.body), x.i, x.lo) : [];
      const before: Stmt[] = [];
      let last = hi;
      if (carried.length && last.k !== 'var' && last.k !== 'num') {
        const name = fresh('last');
        out.push({ k: 'decl', name, ty: INT, init: last, konst: true });
        last = { k: 'var', name, ty: INT };
      }
      // (lowered apart, sharing what they have in common: what they bind stays in the block they are in)
      const first = carried.length ? lowerTerms(carried.map((c) => c.first), fresh, { ...opts, given: bound }) : { stmts: [], values: [] };
      before.push(...first.stmts);
      carried.forEach((c, j) => {
        const name = fresh('carried');
        before.push({ k: 'decl', name, ty: NUM, init: first.values[j], konst: false, ...(j === 0 ? { comments: [CARRIED] } : {}) });
        inner.set(c.value, name);
        uses.set(c.next, (uses.get(c.next) ?? 0) + 1); // (read again at the end of the iteration: a temporary)
      });
      const body: Stmt[] = [];
      group.forEach((y, j) => {
        const v = emit(y.body, body, inner);
        const acc: Extract<Expr, { k: 'var' }> = { k: 'var', name: accs[j], ty: NUM };
        body.push({ k: 'assign', target: acc, value: b2(y.k === 'sum' ? '+' : '*', acc, v), op: y.k === 'sum' ? '+' : '*' });
      });
      for (const c of carried) updates.push({ k: 'assign', target: { k: 'var', name: inner.get(c.value)!, ty: NUM }, value: emit(c.next, body, inner) });
      body.push(...updates);
      const loop: Stmt = {
        k: 'for',
        init: [{ k: 'decl', name: i, ty: INT, init: lo, konst: false }],
        cond: { k: 'bin', op: '<=', a: iv, b: last, ty: BOOL },
        update: [{ k: 'assign', target: iv as Extract<Expr, { k: 'var' }>, value: { k: 'bin', op: '+', a: iv, b: { k: 'num', v: 1 }, ty: INT }, op: '+', inc: true }],
        body,
      };
      out.push(carried.length ? { k: 'if', c: { k: 'bin', op: '<=', a: lo, b: last, ty: BOOL }, then: [...before, loop], else: [] } : loop);
      group.forEach((y, j) => {
        if (j > 0) bound.set(y, accs[j]);
      });
      e = { k: 'var', name: accs[0], ty: NUM };
    } else {
      const fs = factors(x);
      e = fs ? product(fs.map((f) => emit(f, out, bound))) : node(x, (c) => emit(c, out, bound), opts);
    }
    if ((uses.get(x) ?? 0) > 1 && x.k !== 'num' && x.k !== 'sym' && e.k !== 'var') {
      const tmp = fresh('t');
      out.push({ k: 'decl', name: tmp, ty: NUM, init: e, konst: true });
      bound.set(x, tmp);
      return { k: 'var', name: tmp, ty: NUM };
    }
    if (e.k === 'var') bound.set(x, e.name);
    return e;
  };
  const stmts: Stmt[] = [];
  const bound = new Map<Term, string>(opts.given);
  const values = roots.map((t) => emit(t, stmts, bound));
  return { stmts, values };
}
