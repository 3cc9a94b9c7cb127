// Linearization of one right-hand side: the expression tree annotated with the partial derivative of
// each node with respect to each child, from the rule table. Shared by tangent (Σ ∂·ẋ) and adjoint
// (x̄ += ∂·ȳ). Values a partial needs more than once (the result of exp, a non-trivial argument) are
// evaluated once into a temporary, so derivative code adds no transcendental calls of its own.
import type { Expr, Stmt } from '../ir/types.js';
import { BOOL, NUM, exprEq, forEachExpr, tyOf } from '../ir/util.js';
import { partial, ruleFor, templateUses } from '../rules/templates.js';
import type { Rule } from '../rules/table.js';

export interface LinNode {
  /** the primal value of this node, possibly through temporaries */
  prim: Expr;
  varied: boolean;
  /** a variable, element or field whose derivative is read (leaves only) */
  leaf?: Expr;
  children: { node: LinNode; partial: Expr; index: number }[];
  /** `c ? a : b`: derivatives flow through the taken branch only (never read the other one) */
  select?: { c: Expr; a: LinNode; b: LinNode };
}

/** Fresh-name source for one generated function. */
export class Names {
  private used: Set<string>;
  /** `reserved`: names taken module-wide (its functions and data), shared by every function's Names, not copied */
  constructor(
    used: Iterable<string>,
    private readonly reserved: ReadonlySet<string> = new Set(),
  ) {
    this.used = new Set(used);
  }
  /** `base`, else `base0`, `base1`, … (Tapenade's conflict rule) */
  fresh(base: string): string {
    if (!this.has(base)) {
      this.used.add(base);
      return base;
    }
    for (let i = 0; ; i++) {
      const n = `${base}${i}`;
      if (!this.has(n)) {
        this.used.add(n);
        return n;
      }
    }
  }
  has(n: string): boolean {
    return this.used.has(n) || this.reserved.has(n);
  }
  add(n: string): void {
    this.used.add(n);
  }
}

export function isSimple(e: Expr): boolean {
  switch (e.k) {
    case 'num':
    case 'bool':
    case 'var':
    case 'global':
    case 'str':
      return true;
    case 'un':
      return e.op === '-' && (e.a.k === 'num' || e.a.k === 'var');
    case 'idx':
      return isSimple(e.obj) && (e.index.k === 'var' || e.index.k === 'num' || e.index.k === 'global');
    case 'field':
    case 'len':
      return isSimple(e.obj);
    default:
      return false;
  }
}

// ---------- folding constructors for derivative expressions ----------
export function isZero(e: Expr | null): boolean {
  return e === null || (e.k === 'num' && e.v === 0 && e.raw === undefined);
}
function isOne(e: Expr): boolean {
  return e.k === 'num' && e.v === 1 && e.raw === undefined;
}
function isMinusOne(e: Expr): boolean {
  return e.k === 'num' && e.v === -1 && e.raw === undefined;
}
export function mul(a: Expr, b: Expr): Expr {
  if (isOne(a)) return b;
  if (isOne(b)) return a;
  if (isMinusOne(a)) return neg(b);
  if (isMinusOne(b)) return neg(a);
  return { k: 'bin', op: '*', a, b, ty: NUM };
}
export function neg(a: Expr): Expr {
  if (a.k === 'num' && a.raw === undefined) return { k: 'num', v: -a.v };
  if (a.k === 'un' && a.op === '-') return a.a;
  return { k: 'un', op: '-', a, ty: NUM };
}
export function add(a: Expr | null, b: Expr | null): Expr | null {
  if (isZero(a)) return b;
  if (isZero(b)) return a;
  if (b!.k === 'un' && b!.op === '-') return { k: 'bin', op: '-', a: a!, b: b!.a, ty: NUM };
  if (b!.k === 'num' && b!.v < 0 && b!.raw === undefined) return { k: 'bin', op: '-', a: a!, b: { k: 'num', v: -b!.v }, ty: NUM };
  return { k: 'bin', op: '+', a: a!, b: b!, ty: NUM };
}
/** a * b where the partial b may be a negation: keeps `x - y * z` instead of `x + y * -z` */
export function scale(d: Expr, p: Expr): Expr {
  if (d.k === 'un' && d.op === '-') return neg(scale(d.a, p));
  if (p.k === 'un' && p.op === '-') return neg(mul(p.a, d));
  if (p.k === 'num' && p.v < 0 && p.raw === undefined) return neg(mul(d, { k: 'num', v: -p.v }));
  return mul(p, d);
}

export interface LinContext {
  /** does this expression carry a derivative here (varied variables, alias-aware)? */
  varied(e: Expr): boolean;
  /** pre-statements receive temporaries */
  pre: Stmt[];
  /** bind array elements that partials read into temporaries (read once, not once per use) */
  bindLoads?: boolean;
  names: Names;
}

/** Evaluates `e` once into a fresh constant; `loads`: array elements too (they would be read twice). */
function bindTemp(ctx: LinContext, e: Expr, base = 'temp', loads = false): Expr {
  if (isSimple(e) && !(loads && (e.k === 'idx' || e.k === 'field') && ctx.bindLoads)) return e;
  const name = ctx.names.fresh(base);
  const ty = tyOf(e).k === 'bool' ? tyOf(e) : NUM;
  ctx.pre.push({ k: 'decl', name, ty, init: e, konst: true });
  return { k: 'var', name, ty };
}

/**
 * Temporaries of one branch of `c ? a : b` are evaluated before the conditional. A read that only the
 * branch's test makes safe (`opts && opts.decay ? prev * opts.decay : …`, a narrowed read of a value
 * that may be absent) would throw there: such a temporary reads it only when the branch is taken.
 */
function guardBranchTemps(ctx: LinContext, from: number, c: Expr, taken: boolean): void {
  for (let i = from; i < ctx.pre.length; i++) {
    const st = ctx.pre[i];
    if (st.k !== 'decl' || !st.init || !(readsNarrowed(st.init) || readsThroughRow(st.init))) continue;
    const zero: Expr = tyOf(st.init).k === 'bool' ? { k: 'bool', v: false } : { k: 'num', v: 0 };
    ctx.pre[i] = { ...st, init: { k: 'cond', c, a: taken ? st.init : zero, b: taken ? zero : st.init, ty: st.ty } };
  }
}

/**
 * Does `e` read through a row or object it reads (`pts[i - 1][0]`, `ps[k].u`, `rows[j].length`)? Where
 * the branch is not taken that row may not exist (`i === 0 ? acc : … pts[i - 1][0]`), and the read
 * throws; a read of a missing element of a flat array only gives undefined.
 */
function readsThroughRow(e: Expr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if ((x.k === 'idx' || x.k === 'field' || x.k === 'len') && (x.obj.k === 'idx' || x.obj.k === 'field')) found = true;
  });
  return found;
}

function readsNarrowed(e: Expr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if ((x.k === 'var' || x.k === 'field') && x.nn) found = true;
  });
  return found;
}

function ruleOf(e: Expr): Rule | undefined {
  if (e.k === 'bin') return ruleFor(e.op);
  if (e.k === 'un') return ruleFor(e.op === '-' ? 'neg' : e.op === '+' ? 'pos' : '!');
  if (e.k === 'intr') return ruleFor(e.fn);
  return undefined;
}

function argsOf(e: Expr): Expr[] {
  if (e.k === 'bin') return [e.a, e.b];
  if (e.k === 'un') return [e.a];
  if (e.k === 'intr') return e.args;
  return [];
}

function rebuild(e: Expr, args: Expr[]): Expr {
  if (e.k === 'bin') return { ...e, a: args[0], b: args[1] };
  if (e.k === 'un') return { ...e, a: args[0] };
  if (e.k === 'intr') return { ...e, args };
  return e;
}

export class LinError extends Error {
  constructor(
    message: string,
    public node: Expr,
  ) {
    super(message);
  }
}

export function linearize(e: Expr, ctx: LinContext): LinNode {
  if (!ctx.varied(e)) return { prim: e, varied: false, children: [] };
  switch (e.k) {
    case 'var':
    case 'idx':
    case 'field':
      return { prim: e, varied: true, leaf: e, children: [] };
    case 'cond': {
      const start = ctx.pre.length;
      const a = linearize(e.a, ctx);
      guardBranchTemps(ctx, start, e.c, true);
      const mid = ctx.pre.length;
      const b = linearize(e.b, ctx);
      guardBranchTemps(ctx, mid, e.c, false);
      const c = bindTemp(ctx, e.c, 'branch');
      return { prim: { ...e, c, a: a.prim, b: b.prim }, varied: true, children: [], select: { c, a, b } };
    }
    case 'bin':
    case 'un':
    case 'intr': {
      if (e.k === 'bin' && e.op === '*' && (e.a.k === 'idx' || e.a.k === 'field') && exprEq(e.a, e.b)) {
        // a[i] * a[i]: one load and one partial 2·a[i] (a variable keeps the product rule, as Tapenade)
        const kid = linearize(e.a, ctx);
        const a = bindTemp(ctx, kid.prim, 'temp', true);
        const two: Expr = { k: 'bin', op: '*', a: { k: 'num', v: 2 }, b: a, ty: NUM };
        return { prim: { ...e, a, b: a }, varied: kid.varied, children: kid.varied ? [{ node: kid, partial: two, index: 0 }] : [] };
      }
      const rule = ruleOf(e);
      if (!rule) throw new LinError(`no derivative rule for '${e.k === 'intr' ? e.fn : e.k === 'bin' ? e.op : e.op}'`, e);
      const kids = argsOf(e).map((a) => linearize(a, ctx));
      const uses = new Set<string>();
      kids.forEach((k, i) => {
        if (k.varied) for (const n of templateUses(rule, i)) uses.add(n);
      });
      // arguments a partial refers to are evaluated once
      const argNames = rule.variadic ? kids.map(() => rule.args[0]) : rule.args;
      const prims = kids.map((k, i) => (uses.has(argNames[i]) ? bindTemp(ctx, k.prim, 'temp', true) : k.prim));
      kids.forEach((k, i) => (k.prim = prims[i]));
      let prim = rebuild(e, prims);
      if (uses.has('r')) prim = bindTemp(ctx, prim);
      const result = prim;
      const children = [];
      for (let i = 0; i < kids.length; i++) {
        if (!kids[i].varied) continue;
        const p = partial(rule, i, prims, () => result);
        if (isZero(p)) continue;
        children.push({ node: kids[i], partial: p, index: i });
      }
      return { prim, varied: children.length > 0, children };
    }
    default:
      throw new LinError(`this expression cannot carry a derivative here (${e.k})`, e);
  }
}

/** Tangent of a linearized expression; `dref` gives the tangent of a leaf. */
/** ḋ·∂ in Tapenade's order: `xd*b + x*bd` for a product, `ad*cos(a)` for a function of a */
function tangentTerm(n: LinNode, childIndex: number, d: Expr, p: Expr): Expr {
  if (n.prim.k === 'bin' && n.prim.op === '*' && childIndex === 1 && !(p.k === 'un' && p.op === '-')) return mul(p, d);
  if (p.k === 'un' && p.op === '-') return neg(mul(d, p.a));
  if (p.k === 'num' && p.v < 0 && p.raw === undefined) return neg(mul(d, { k: 'num', v: -p.v }));
  if (d.k === 'un' && d.op === '-') return neg(tangentTerm(n, childIndex, d.a, p));
  return mul(d, p);
}

/**
 * How the tangent guards a product with a partial that may be infinite: `ctx` receives the partial
 * (and, where `bindTangents`, a tangent that is not simple) as temporaries; `within` wraps what is
 * bound inside a branch of `c ? a : b`, so that it is evaluated only where that branch is taken.
 */
export interface TangentGuard {
  ctx: LinContext;
  /** scalar tangents can be bound before the statement; a vector tangent lives inside its direction loop */
  bindTangents: boolean;
  within?: (e: Expr) => Expr;
}

export function tangentOf(n: LinNode, dref: (leaf: Expr) => Expr | null, guard?: TangentGuard): Expr | null {
  if (!n.varied) return null;
  if (n.leaf) return dref(n.leaf);
  if (n.select) {
    const sel = n.select;
    const outer = guard?.within ?? ((e: Expr) => e);
    const zero: Expr = { k: 'num', v: 0 };
    const branch = (taken: boolean): TangentGuard | undefined =>
      guard && { ...guard, within: (e) => outer({ k: 'cond', c: sel.c, a: taken ? e : zero, b: taken ? zero : e, ty: tyOf(e) }) };
    const a = tangentOf(sel.a, dref, branch(true)), b = tangentOf(sel.b, dref, branch(false));
    if (isZero(a) && isZero(b)) return null;
    return { k: 'cond', c: sel.c, a: a ?? { k: 'num', v: 0 }, b: b ?? { k: 'num', v: 0 }, ty: NUM };
  }
  let sum: Expr | null = null;
  for (const c of n.children) {
    const d = tangentOf(c.node, dref, guard);
    if (isZero(d)) continue;
    sum = add(sum, guard && mayBeInfinite(c.partial) ? finiteTerm(d!, c.partial, guard) : tangentTerm(n, c.index, d!, c.partial));
  }
  return sum;
}

/**
 * ḋ·∂ where ∂ may be infinite: a tangent of 0 contributes 0 (`[Math.tanh(a), 0].map(Math.cbrt)`: the
 * constant element's tangent 0 through cbrt's infinite partial at 0 is not NaN), as the adjoint does
 * with its seeds. Written `ḋ * (Number.isFinite(∂) || !!ḋ ? ∂ : 0)`: ḋ is read a second time only
 * where ∂ is not finite, and a NaN tangent stays NaN.
 */
function finiteTerm(d: Expr, p: Expr, guard: TangentGuard): Expr {
  // (inside a branch of `c ? a : b` what is bound is evaluated only where the branch is taken)
  const bind = (e: Expr, base: string): Expr => (isSimple(e) ? e : bindTemp(guard.ctx, guard.within ? guard.within(e) : e, base));
  const partial = bind(p, 'partial');
  const dd = guard.bindTangents ? bind(d, 'tempd') : d;
  const safe: Expr = { k: 'cond', c: { k: 'bin', op: '||', a: isFiniteTest(partial), b: truthy(dd), ty: BOOL }, a: partial, b: { k: 'num', v: 0 }, ty: NUM };
  return mul(dd, safe);
}

/** `Number.isFinite(p)` */
function isFiniteTest(p: Expr): Expr {
  return { k: 'intr', fn: 'Number.isFinite', args: [p], ty: BOOL };
}

/** `!!x`: a number as a test, with no comparison TypeScript could call unintentional where x is a constant */
function truthy(x: Expr): Expr {
  return { k: 'un', op: '!', a: { k: 'un', op: '!', a: x, ty: BOOL }, ty: BOOL };
}

/**
 * Adjoint of a linearized expression with seed `seed`: emits `leafb += …` increments, in
 * left-to-right order of the leaves. Seeds used by several children are bound to a temporary.
 */
export function adjointOf(n: LinNode, seed: Expr, ctx: LinContext, emit: (leaf: Expr, inc: Expr) => void, branch?: (c: Expr, a: () => void, b: () => void) => void): void {
  if (!n.varied) return;
  if (n.leaf) {
    emit(n.leaf, seed);
    return;
  }
  if (n.select) {
    const sel = n.select;
    if (!branch) throw new LinError('a conditional expression needs a branch in the adjoint', n.prim);
    branch(sel.c, () => adjointOf(sel.a, seed, ctx, emit, branch), () => adjointOf(sel.b, seed, ctx, emit, branch));
    return;
  }
  const guarded = n.children.some((c) => mayBeInfinite(c.partial)) && !(seed.k === 'num' && seed.v !== 0);
  const s = (n.children.length > 1 || guarded) && !isSimple(seed) ? bindTemp(ctx, seed, 'tempb') : seed;
  for (const c of n.children) {
    if (!(guarded && mayBeInfinite(c.partial))) {
      adjointOf(c.node, scale(s, c.partial), ctx, emit, branch);
      continue;
    }
    // An adjoint of 0 contributes 0 even through a partial that is infinite here: a value computed
    // before a test that then does not use it (`n = Math.sqrt(s); if (n === 0) return 0;`) must not
    // turn its zero adjoint into NaN (0 · ∞). Only where the partial is not finite: elsewhere the
    // product stands as it is, so that code differentiated again (Hessians) keeps its derivative
    // p·ȳ̇ where ȳ happens to be 0. The zero is written `0 * ȳ` (a NaN adjoint stays NaN), the test
    // `!!ȳ` (no comparison TypeScript could call unintentional where ȳ is a constant).
    const p = bindTemp(ctx, c.partial, 'partial');
    const test: Expr = { k: 'bin', op: '||', a: truthy(s), b: isFiniteTest(p), ty: BOOL };
    const safe: Expr = { k: 'cond', c: test, a: scale(s, p), b: { k: 'bin', op: '*', a: { k: 'num', v: 0 }, b: s, ty: NUM }, ty: NUM };
    adjointOf(c.node, safe, ctx, emit, branch);
  }
}

/**
 * Can this partial be infinite (or NaN) at finite arguments? A division by anything but a non-zero
 * literal, or a power with an exponent that is not a non-negative literal: `0.5 / r` (sqrt), `1 / x`
 * (log), `b * a ** (b - 1)` with b = 0.5. Read off the instantiated rule, so the table needs no flag.
 */
export function mayBeInfinite(p: Expr): boolean {
  let found = false;
  forEachExpr(p, (x) => {
    if (x.k === 'bin' && x.op === '/' && !(x.b.k === 'num' && x.b.v !== 0)) found = true;
    if (x.k === 'bin' && x.op === '**' && !(x.b.k === 'num' && x.b.v >= 0)) found = true;
    if (x.k === 'intr' && x.fn === 'Math.pow' && !(x.args[1]?.k === 'num' && x.args[1].v >= 0)) found = true;
  });
  return found;
}

export function hasSelect(n: LinNode): boolean {
  return !!n.select || n.children.some((c) => hasSelect(c.node));
}
