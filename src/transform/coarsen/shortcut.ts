// A coarsened function's derivative rules (issue 19; report §2.10, G-1/G-3/G-10): from the closed form
// of a function's result, the tangent rule `f_jvp` and the adjoint rule `f_vjp` with exactly the
// signatures of hand-written rules (src/frontend/custom-derivatives.ts: ruleParams / ruleResult), so
// the transformation differentiates calls of f through them as through any custom derivative — one
// mechanism for both.
//
// - `closedForm`: SSA (src/analysis/ssa.ts), symbolic elevation (elevate.ts), then each branch φ
//   becomes a data select on its `if` condition (the rule recomputes the decision from its arguments:
//   nothing is recorded by the primal, so the primal need not run). Refused (with the reason): anything
//   elevation refuses (array writes, calls, effects, coupled or unclosable recurrences), a closed form
//   still holding a φ or a trip count only the run knows (a loop without a closed form counts as large,
//   report O-2), parameters a rule cannot take, a closed form larger than the limit.
// - the tangent rule is the directional derivative: each number parameter p becomes p + ε·ṗ and each
//   element read a[I] becomes a[I] + ε·ȧ[I]; ∂/∂ε at ε = 0 is the tangent (Σ is linear, so an array's
//   tangent is Σ ∂f/∂a[i]·ȧ[i] at the cost of the function);
// - the adjoint rule gives yb·∂f/∂p for number parameters, and for an array parameter a a loop over k
//   accumulating ab[k] += yb·∂f/∂a[k]: the partial's Σ_i [i = k]·A(i) collapses to A(k) (`collapseAt`),
//   and its parts free of k are computed once before the loop. A partial that still sums over a select
//   on k would cost a sweep per element: refused (statement-level AD does it in one).
// Non-differentiable points: the partials are the rule table's (differentiate.ts), as in statement-level
// AD. The tangent rule's value is a call of f itself, so every mode returns the primal's values bit for
// bit; the partials may round differently (the simplifier admits only rewrites exact wherever the
// original is finite).
import { buildSsa, prune, SsaUnsupported, type SsaNode } from '../../analysis/ssa.js';
import { ruleDerivKind, ruleResult } from '../../frontend/custom-derivatives.js';
import type { Expr, Func, Module, Param, Stmt, Ty } from '../../ir/types.js';
import { declaredNames, INT, NUM } from '../../ir/util.js';
import { Names } from '../linearize.js';
import { fromIR, lowerTerms, NotATerm } from './convert.js';
import { differentiate } from './differentiate.js';
import { elevate, ElevateUnsupported } from './elevate.js';
import { NoClosedForm } from './phi.js';
import { simplify } from './simplify.js';
import * as T from './terms.js';
import type { Term } from './terms.js';

export interface ClosedForm {
  /** the function's result in closed form (branch φ's as selects on their conditions) */
  result: Term;
  /** DAG size of the closed form */
  size: number;
  /** φ's the SSA form had (0: straight-line code, what the no-φ ablation keeps) */
  phis: number;
}

export interface CoarsenLimits {
  /** the SOI size limit L (DAG nodes of the closed form) */
  maxSize: number;
  /** the ablation without φ-calculus: only code without φ's (straight-line) is coarsened */
  noPhi?: boolean;
  /** C5: loops with a constant trip count up to this are unrolled */
  unroll?: number;
}

type Sym = Extract<Term, { k: 'sym' }>;

const ZERO = T.num(0);

/** the closed form of f's result, or why it has none the rules can use */
export function closedForm(f: Func, mod: Module, limits: CoarsenLimits): ClosedForm | { refused: string } {
  if (f.external || f.custom) return { refused: 'it has a rule of its own' };
  if (f.ret.k !== 'num' && f.ret.k !== 'int') return { refused: 'it does not return a number' };
  for (const p of f.params) {
    const kind = ruleDerivKind(p.ty);
    if (kind === null || p.rest || p.optional || p.def) return { refused: `its parameter '${p.name}' is not a number or an array of numbers` };
    if (p.ty.k === 'arr' && (p.ty.ctor || p.ty.elem.k !== 'num')) return { refused: `its parameter '${p.name}' is a typed array` };
    if (p.ty.k === 'str') return { refused: `its parameter '${p.name}' is a string` };
  }
  let result: Term | null;
  let phis = 0;
  let ifs: Map<string, Extract<SsaNode, { k: 'if' }>>;
  let terms: Map<string, Term>;
  try {
    const ssa = prune(buildSsa(f));
    ifs = new Map();
    const walk = (list: SsaNode[]): void => {
      for (const n of list) {
        if (n.k === 'phi') phis++;
        if (n.k === 'if') {
          ifs.set(n.site, n);
          walk(n.then);
          walk(n.else);
        } else if (n.k === 'loop') {
          phis += n.entry.length + n.exit.length;
          walk(n.body);
          walk(n.update);
        }
      }
    };
    walk(ssa.body);
    if (limits.noPhi && phis > 0) return { refused: 'it has branches or loops (coarsening without φ-calculus)' };
    const el = elevate(ssa, { unroll: limits.unroll ?? 4 });
    result = el.result;
    terms = el.terms;
  } catch (e) {
    if (e instanceof SsaUnsupported || e instanceof ElevateUnsupported || e instanceof NotATerm || e instanceof NoClosedForm) return { refused: e.message };
    // (when unsure, do not coarsen: a failure of the symbolic engine leaves the function to statement-level AD)
    return { refused: `the symbolic engine failed (${e instanceof Error ? e.message : String(e)})` };
  }
  if (!result) return { refused: 'it returns no value' };
  // branch φ's become selects on their conditions (at the top level every name a condition reads has
  // its closed form; a condition may hold φ's of earlier branches itself)
  let bad: string | null = null;
  const memo = new Map<Term, Term>();
  const selects = (t: Term): Term =>
    T.mapTerm(
      t,
      (x) => {
        if (x.k !== 'phi') return x;
        const node = ifs.get(x.site);
        if (x.kind !== 'branch' || x.args.length !== 2 || !node) {
          bad ??= x.kind === 'exit' ? `a loop (${x.site}) whose exit only the run knows` : `a φ at ${x.site} that stays`;
          return x;
        }
        return T.sel(selects(simplify(fromIR(node.cond, { resolve: (n) => terms.get(n) }))), x.args[0], x.args[1]);
      },
      memo,
    );
  try {
    result = simplify(selects(result));
  } catch (e) {
    if (e instanceof NotATerm) return { refused: `a condition that is ${e.message}` };
    throw e;
  }
  T.mapTerm(result, (x) => {
    if (x.k === 'phi') bad ??= `a φ at ${x.site} that stays`;
    return x;
  });
  if (bad) return { refused: bad };
  const allowed = new Set<string>();
  for (const p of f.params) {
    allowed.add(p.name);
    if (p.ty.k === 'arr') allowed.add(`${p.name}.length`);
  }
  for (const [g, c] of mod.globals) if (c.init && (c.ty.k === 'num' || c.ty.k === 'int')) allowed.add(g);
  for (const s of T.freeSyms(result)) {
    if (s.role === 'trip') return { refused: `a loop whose trip count only the run knows (${s.name.slice(1)})` };
    if (!allowed.has(s.name)) return { refused: `it reads '${s.name}', which is no number parameter` };
  }
  const arrays = new Set(f.params.filter((p) => p.ty.k === 'arr').map((p) => p.name));
  let foreign: string | null = null;
  T.mapTerm(result, (t) => {
    if (t.k === 'at' && !arrays.has(t.arr)) foreign ??= t.arr;
    return t;
  });
  if (foreign) return { refused: `it reads the array '${foreign}', which is no parameter` };
  const size = T.size(result);
  if (size > limits.maxSize) return { refused: `its closed form has ${size} nodes, over the limit ${limits.maxSize}` };
  return { result, size, phis };
}

/**
 * ∂/∂a[k] with the selects `[i = k]` it introduces collapsed: a select on k pulled out of products and
 * sums, and Σ_{i=lo}^{hi} [i = k]·A(i) = [lo ≤ k ≤ hi]·A(k) (lo an integer). A product `[i = k]·B` becomes
 * `[i = k] ? B : 0`: where i ≠ k statement-level AD adds nothing from B either (not 0·B, NaN when B is).
 * An index affine in i (`a[2·i + 1]`) is solved for i (solveIndex).
 */
export function collapseAt(t: Term, k: Sym): Term {
  const onK = (c: Term): boolean => T.dependsOn(c, k);
  const isZeroSel = (x: Term): x is Extract<Term, { k: 'sel' }> => x.k === 'sel' && x.b === ZERO && onK(x.c);
  const hasKSel = (x: Term): boolean => isZeroSel(x) || (x.k === 'add' && x.args.some(isZeroSel));
  const partsOf = (x: Term): readonly Term[] => (x.k === 'add' ? x.args : [x]);
  // a sum: the selects on one condition gathered
  const addRule = (args: readonly Term[]): Term => {
    const byCond = new Map<Term, Term[]>();
    const rest: Term[] = [];
    for (const a of args.flatMap(partsOf)) {
      if (isZeroSel(a)) byCond.set(a.c, [...(byCond.get(a.c) ?? []), a.a]);
      else rest.push(a);
    }
    if (!byCond.size) return T.add(...args);
    return T.add(...rest, ...[...byCond].map(([c, as]) => T.sel(c, T.add(...as), ZERO)));
  };
  // a data select over selects on k: one select on k per part (sel(d, ΣA, ΣB) = Σ sel(d, A, 0) + Σ sel(d, 0, B))
  const selRule = (x: Extract<Term, { k: 'sel' }>): Term =>
    addRule([
      ...partsOf(x.a).map((p) => (isZeroSel(p) ? T.sel(p.c, T.sel(x.c, p.a, ZERO), ZERO) : T.sel(x.c, p, ZERO))),
      ...partsOf(x.b).map((p) => (isZeroSel(p) ? T.sel(p.c, T.sel(x.c, ZERO, p.a), ZERO) : T.sel(x.c, ZERO, p))),
    ]);
  // a product: a select on k taken outside, a sum holding some distributed over
  const mulRule = (args: readonly Term[]): Term => {
    const j = args.findIndex(isZeroSel);
    const others = (i: number) => args.filter((_, m) => m !== i);
    if (j >= 0) {
      const s = args[j] as Extract<Term, { k: 'sel' }>;
      return T.sel(s.c, mulRule([...others(j), s.a]), ZERO);
    }
    const a = args.findIndex((x) => x.k === 'add' && x.args.some(isZeroSel));
    if (a >= 0) return addRule(partsOf(args[a]).map((p) => mulRule([...others(a), p])));
    return T.mul(...args);
  };
  return T.mapTerm(t, (x) => {
    if (x.k === 'mul') return mulRule(x.args);
    if (x.k === 'add') return addRule(x.args);
    if (x.k === 'sel' && !onK(x.c) && (hasKSel(x.a) || hasKSel(x.b))) return selRule(x);
    if (x.k === 'sum' && x.lo.k === 'num' && Number.isInteger(x.lo.v)) {
      const parts = x.body.k === 'add' ? x.body.args : [x.body];
      const out: Term[] = [];
      const keep: Term[] = [];
      for (const a of parts) {
        const c = isZeroSel(a) ? a.c : null;
        if (c && !T.dependsOn(c, x.i)) {
          // a select on k alone: out of the Σ (Σ_i [c]·A(i) = [c]·Σ_i A(i), the Σ then free of k)
          out.push(T.sel(c, T.sum(x.i, x.lo, x.hi, (a as Extract<Term, { k: 'sel' }>).a), ZERO));
          continue;
        }
        const at = c && c.k === 'cmp' && c.op === '===' ? (c.b === k ? solveIndex(c.a, x.i, k) : c.a === k ? solveIndex(c.b, x.i, k) : null) : null;
        if (!at) {
          keep.push(a);
          continue;
        }
        // the one i with e(i) = k, if it is an integer in [lo, hi]
        const inRange = T.sel(T.cmp('<=', x.lo, at.i), T.sel(T.cmp('<=', at.i, x.hi), T.subst((a as Extract<Term, { k: 'sel' }>).a, x.i, at.i), ZERO), ZERO);
        out.push(at.integer ? inRange : T.sel(T.cmp('===', T.fn('Math.floor', at.i), at.i), inRange, ZERO));
      }
      if (!out.length) return x;
      return T.add(...(keep.length ? [T.sum(x.i, x.lo, x.hi, T.add(...keep))] : []), ...out);
    }
    return x;
  });
}

/**
 * The i with e(i) = k for an index expression affine in i with an integer slope α ≠ 0 (`i`, `2·i + 1`,
 * `i − 1`): (k − β)/α, and whether it is an integer whatever k (α = ±1 and β an integer constant).
 */
function solveIndex(e: Term, i: Sym, k: Sym): { i: Term; integer: boolean } | null {
  if (e === i) return { i: k, integer: true };
  if (!T.dependsOn(e, i) || T.dependsOn(e, k)) return null;
  const alpha = simplify(differentiate(e, i));
  const beta = simplify(T.subst(e, i, ZERO));
  if (alpha.k !== 'num' || !Number.isInteger(alpha.v) || alpha.v === 0 || T.dependsOn(beta, i)) return null;
  if (simplify(T.add(T.mul(alpha, i), beta)) !== simplify(e)) return null; // not affine in i
  const j = simplify(alpha.v === 1 ? T.sub(k, beta) : T.div(T.sub(k, beta), alpha));
  return { i: j, integer: Math.abs(alpha.v) === 1 && beta.k === 'num' && Number.isInteger(beta.v) };
}

/** the maximal subterms free of every Σ/loop index (computed once, before the loop over k) */
function invariantParts(t: Term): Term[] {
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

/** every occurrence of a key replaced by its value, outermost first (a key inside another is not reached) */
function replaceAll(t: Term, by: ReadonlyMap<Term, Term>): Term {
  const memo = new Map<Term, Term>();
  const go = (x: Term): Term => {
    const hit = by.get(x) ?? memo.get(x);
    if (hit) return hit;
    const kids = T.children(x);
    const out = kids.length ? T.rebuild(x, kids.map(go)) : x;
    memo.set(x, out);
    return out;
  };
  return go(t);
}

/** does a term still sum over a select `e(i) === k` it could not solve (a sweep over the Σ per element k) */
function sweepsPerElement(t: Term, k: Sym): boolean {
  let found = false;
  T.mapTerm(t, (x) => {
    if (x.k !== 'sum' && x.k !== 'prod') return x;
    const i = x.i;
    T.mapTerm(x.body, (y) => {
      if (y.k === 'cmp' && y.op === '===' && ((y.a === k && T.dependsOn(y.b, i)) || (y.b === k && T.dependsOn(y.a, i)))) found = true;
      return y;
    });
    return x;
  });
  return found;
}

/** a rule's derivative parameter: a number, or an array of numbers (custom-derivatives.ts's convention) */
const derivTy = (t: Ty): Ty => (t.k === 'arr' ? { k: 'arr', elem: NUM, typed: t.typed, ro: false } : NUM);

const v = (name: string, ty: Ty): Extract<Expr, { k: 'var' }> => ({ k: 'var', name, ty });

export interface Rules {
  jvp: Func;
  vjp: Func;
  /** DAG size of the value and all partials */
  derivativeSize: number;
}

/** the tangent and adjoint rules of f from the closed form of its result (names given, fresh in the module) */
export function shortcutRules(f: Func, cf: ClosedForm, names: { jvp: string; vjp: string }, reserved: ReadonlySet<string>, maxDerivativeSize: number): Rules | { refused: string } {
  const result = cf.result;
  const used = () => new Names(declaredNames(f), reserved);
  const comments = (what: string) => [`// ${f.name}'s ${what}, from the closed form of its result (coarsening: ${cf.size} symbolic nodes)`];
  const symName = (s: Sym) => s.name; // parameters and `a.length` print as themselves

  // ---- tangent: ∂/∂ε f(p + ε·ṗ, a + ε·ȧ) at ε = 0
  const tn = used();
  const jparams: Param[] = [];
  const tangentOf = new Map<string, string>();
  for (const p of f.params) {
    jparams.push({ name: p.name, ty: p.ty });
    const kind = ruleDerivKind(p.ty);
    if (kind !== 'scalar' && kind !== 'array') continue;
    tangentOf.set(p.name, tn.fresh(p.name + 'd'));
    jparams.push({ name: tangentOf.get(p.name)!, ty: derivTy(p.ty) });
  }
  const eps = T.sym('#eps');
  const arraysT = new Map([...tangentOf].filter(([p]) => f.params.find((q) => q.name === p)!.ty.k === 'arr'));
  const perturbed = T.mapTerm(result, (x) => {
    if (x.k === 'sym' && x.role === 'var' && tangentOf.has(x.name) && !arraysT.has(x.name)) return T.add(x, T.mul(eps, T.sym(tangentOf.get(x.name)!)));
    if (x.k === 'at' && arraysT.has(x.arr)) return T.add(x, T.mul(eps, T.at(arraysT.get(x.arr)!, x.index)));
    return x;
  });
  const tangent = simplify(T.subst(differentiate(perturbed, eps), eps, ZERO));
  const tBody = lowerTerms([tangent], (h) => tn.fresh(h), { name: symName });
  // the value is the primal's own (bit for bit what f returns: every mode returns the primal's values)
  const value: Expr = { k: 'call', fn: f.name, args: f.params.map((p) => v(p.name, p.ty)), ty: f.ret };
  const jvp: Func = {
    name: names.jvp,
    params: jparams,
    ret: ruleResult(f, 'tangent'),
    body: [...tBody.stmts, { k: 'return', e: { k: 'arrlit', elems: [value, tBody.values[0]], ty: ruleResult(f, 'tangent') } }],
    exported: false,
    loc: f.loc,
    comments: comments('tangent rule'),
  };

  // ---- adjoint: yb·∂f/∂p, and ab[k] += yb·∂f/∂a[k]
  const an = used();
  const vparams: Param[] = [];
  const adjointOf = new Map<string, string>();
  for (const p of f.params) {
    vparams.push({ name: p.name, ty: p.ty });
    if (ruleDerivKind(p.ty) !== 'array') continue;
    adjointOf.set(p.name, an.fresh(p.name + 'b'));
    vparams.push({ name: adjointOf.get(p.name)!, ty: derivTy(p.ty) });
  }
  const seedName = an.fresh('yb');
  vparams.push({ name: seedName, ty: NUM });
  const yb = T.sym(seedName);
  const scalars = f.params.filter((p) => ruleDerivKind(p.ty) === 'scalar');
  const scalarAdjoints = scalars.map((p) => simplify(T.mul(yb, simplify(differentiate(result, T.sym(p.name))))));
  const perArray: { a: string; b: string; k: Sym; partial: Term }[] = [];
  for (const [a, b] of adjointOf) {
    const k = T.sym(`#k:${a}`, 'index');
    const partial = simplify(collapseAt(simplify(differentiate(result, T.at(a, k))), k));
    if (partial === ZERO) continue;
    if (sweepsPerElement(partial, k)) return { refused: `the adjoint of '${a}' would sum over the array for each element` };
    perArray.push({ a, b, k, partial: simplify(T.mul(yb, partial)) });
  }
  const derivativeSize = T.size(T.add(tangent, ...scalarAdjoints, ...perArray.map((x) => x.partial)));
  if (derivativeSize > maxDerivativeSize) return { refused: `its partials have ${derivativeSize} nodes, over the limit ${maxDerivativeSize}` };
  // parts of the per-element partials free of k, computed once with the number adjoints
  const hoisted = perArray.flatMap((x) => invariantParts(x.partial));
  const pre = lowerTerms([...scalarAdjoints, ...hoisted], (h) => an.fresh(h), { name: symName });
  const body: Stmt[] = [...pre.stmts];
  const hoistedSym = new Map<Term, Term>();
  hoisted.forEach((h, j) => {
    let e = pre.values[scalarAdjoints.length + j];
    if (e.k !== 'var' && e.k !== 'num' && !(e.k === 'un' && e.a.k === 'num')) {
      const tmp = an.fresh('t');
      body.push({ k: 'decl', name: tmp, ty: NUM, init: e, konst: true });
      e = v(tmp, NUM);
    }
    hoistedSym.set(h, e.k === 'var' ? T.sym(e.name) : h);
  });
  for (const x of perArray) {
    const d = replaceAll(x.partial, hoistedSym);
    const k = an.fresh('k');
    const inner = lowerTerms([d], (h) => an.fresh(h), { name: (s) => (s === x.k ? k : s.name) });
    const target: Extract<Expr, { k: 'idx' }> = { k: 'idx', obj: v(x.b, { k: 'arr', elem: NUM, typed: false, ro: false }), index: v(k, INT), ty: NUM };
    const len: Expr = { k: 'len', obj: v(x.a, f.params.find((p) => p.name === x.a)!.ty) };
    body.push({
      k: 'for',
      init: [{ k: 'decl', name: k, ty: INT, init: { k: 'num', v: 0 }, konst: false }],
      cond: { k: 'bin', op: '<', a: v(k, INT), b: len, ty: { k: 'bool' } },
      update: [{ k: 'assign', target: v(k, INT), value: { k: 'bin', op: '+', a: v(k, INT), b: { k: 'num', v: 1 }, ty: INT }, op: '+', inc: true }],
      body: [...inner.stmts, { k: 'assign', target, value: { k: 'bin', op: '+', a: target, b: inner.values[0], ty: NUM }, op: '+' }],
    });
  }
  const ret = ruleResult(f, 'adjoint');
  const adj = pre.values.slice(0, scalarAdjoints.length);
  if (adj.length === 1) body.push({ k: 'return', e: adj[0] });
  else if (adj.length > 1) body.push({ k: 'return', e: { k: 'arrlit', elems: adj, ty: ret } });
  const vjp: Func = { name: names.vjp, params: vparams, ret, body, exported: false, loc: f.loc, comments: comments('adjoint rule') };
  return { jvp, vjp, derivativeSize };
}
