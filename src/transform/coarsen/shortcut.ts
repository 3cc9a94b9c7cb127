// A coarsened function's derivative rules (issue 19; report §2.10, G-1/G-3/G-10): from the closed form
// of a function's result, the tangent rule `f_jvp` and the adjoint rule `f_vjp` with exactly the
// signatures of hand-written rules (src/frontend/custom-derivatives.ts: ruleParams / ruleResult), so
// the transformation differentiates calls of f through them as through any custom derivative — one
// mechanism for both.
//
// - `closedForm`: SSA (src/analysis/ssa.ts), symbolic elevation (elevate.ts), then each branch φ
//   becomes a data select on its `if` condition (the rule recomputes the decision from its arguments:
//   nothing is recorded by the primal, so the primal need not run). A top-level loop whose trip count
//   or exit only the run knows (`while … break`: the report's ϕ_k' of BGDHyperOpt) keeps its trip-count
//   symbol and exit φ: the rules then record a run of f's own statements (records.ts) and read them —
//   the statements before the loop run, the loop itself is replayed from its closed form with certified
//   decisions (replay.ts), or where that cannot be certified, runs as written. Refused (with the reason): anything elevation refuses
//   (array writes, calls, effects, coupled or unclosable recurrences), other φ's that stay, a trip count
//   only the run knows of a loop nested in another (a loop without a closed form counts as large, report
//   O-2), parameters a rule cannot take, a closed form larger than the limit.
// - the tangent rule is the directional derivative: each number parameter p becomes p + ε·ṗ and each
//   element read a[I] becomes a[I] + ε·ȧ[I]; ∂/∂ε at ε = 0 is the tangent (Σ is linear, so an array's
//   tangent is Σ ∂f/∂a[i]·ȧ[i] at the cost of the function);
// - the adjoint rule gives yb·∂f/∂p for number parameters, and the adjoints of array parameters in
//   scatter form, reverse mode over the closed form's Σ structure (`scatterArrays`): the cost of the
//   closed form, whatever the index expressions.
// Non-differentiable points: the partials are the rule table's (differentiate.ts), as in statement-level
// AD. The tangent rule's value is a call of f itself, so every mode returns the primal's values bit for
// bit; the partials may round differently (the simplifier admits only rewrites exact wherever the
// original is finite).
import { buildSsa, prune, SsaUnsupported, type SsaNode } from '../../analysis/ssa.js';
import { ruleDerivKind, ruleResult } from '../../frontend/custom-derivatives.js';
import type { Expr, Func, Module, Param, Stmt, Ty } from '../../ir/types.js';
import { declaredNames, INT, NUM } from '../../ir/util.js';
import { Names } from '../linearize.js';
import { CARRIED, fromIR, invariantParts, lowerTerms, NotATerm, type ToIROptions } from './convert.js';
import { carriedAcrossIterations, continuousNodes, invariantFactors } from './reuse.js';
import { differentiate } from './differentiate.js';
import { elevate, ElevateUnsupported } from './elevate.js';
import { NoClosedForm } from './phi.js';
import { recordingRun, RecordsUnsupported, type RecordedLoop } from './records.js';
import type { ReplayInfo } from './replay.js';
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
  /** loops whose trip count or exit the closed form leaves to the run (the rules record a run of f) */
  records: RecordedLoop[];
  /** what the replay of the last recorded loop reads (replay.ts); absent: no replay, the loop runs */
  replay?: ReplayInfo;
}

export interface CoarsenLimits {
  /** the SOI size limit L (DAG nodes of the closed form) */
  maxSize: number;
  /** the ablation without φ-calculus: only code without φ's (straight-line) is coarsened */
  noPhi?: boolean;
  /** C5: loops with a constant trip count up to this are unrolled */
  unroll?: number;
  /** replay the last recorded loop from its closed form, decisions certified (replay.ts; default true) */
  replay?: boolean;
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
  let replay: ReplayInfo | undefined;
  // loops at the top level: their trip counts and exits can be recorded by a run (records.ts)
  const topLoops = new Map<string, RecordedLoop>();
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
    for (const n of ssa.body) if (n.k === 'loop') topLoops.set(n.site, { site: n.site, exits: n.exits, src: n.src });
    if (limits.noPhi && phis > 0) return { refused: 'it has branches or loops (coarsening without φ-calculus)' };
    const el = elevate(ssa, { unroll: limits.unroll ?? 4 });
    result = el.result;
    terms = el.terms;
    if (limits.replay !== false) replay = { ssa, terms: el.terms, trips: new Map([...el.loops].map(([k, l]) => [k, l.trip])) };
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
        if (x.kind === 'exit' && topLoops.has(x.site)) return x;
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
  const recorded = new Set<string>();
  T.mapTerm(result, (x) => {
    if (x.k === 'phi' && x.kind === 'exit' && topLoops.has(x.site)) recorded.add(x.site);
    else if (x.k === 'phi') bad ??= `a φ at ${x.site} that stays`;
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
    if (s.role === 'trip' && topLoops.has(s.name.slice(1))) {
      recorded.add(s.name.slice(1));
      continue;
    }
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
  return { result, size, phis, records: [...topLoops.values()].filter((l) => recorded.has(l.site)), ...(replay ? { replay } : {}) };
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

/** a rule's derivative parameter: a number, or an array of numbers (custom-derivatives.ts's convention) */
const derivTy = (t: Ty): Ty => (t.k === 'arr' ? { k: 'arr', elem: NUM, typed: t.typed, ro: false } : NUM);

const v = (name: string, ty: Ty): Extract<Expr, { k: 'var' }> => ({ k: 'var', name, ty });

/** what a scatter loop's body adds around the loop */
interface ScatterLoop {
  /** the Σ index the loop runs over, and its first value */
  index: Sym;
  lo: Term;
  /** before the loop (carried values' first iteration, accumulators), at the end of each iteration, after it */
  before: Stmt[];
  update: Stmt[];
  after: Stmt[];
  /** accumulators of the scatters into one element for the whole loop, by array and index */
  sums: Map<string, string>;
}

/** `target op= value` (the full right-hand side, as the IR keeps compound assignments) */
const compound = (target: Extract<Expr, { k: 'var' | 'idx' }>, op: '+' | '-', value: Expr): Stmt => ({ k: 'assign', target, value: { k: 'bin', op, a: target, b: value, ty: NUM }, op });

/** a term with a negative coefficient as its negation and '-' (`x += -c·t` is `x -= c·t`, exactly) */
function signed(t: Term): { op: '+' | '-'; term: Term } {
  if (t.k === 'num' && t.v < 0) return { op: '-', term: T.num(-t.v) };
  if (t.k === 'mul' && t.args[0].k === 'num' && t.args[0].v < 0) return { op: '-', term: t.args[0].v === -1 ? T.mul(...t.args.slice(1)) : T.mul(T.num(-t.args[0].v), ...t.args.slice(1)) };
  return { op: '+', term: t };
}

/**
 * The array adjoints of a closed form, in scatter form (reverse mode over its Σ structure): the reads
 * a[e] and the Σ's that read the arrays, outside any other Σ, are taken as symbols σ; each read gets
 * ab[e] += seed·∂t/∂σ, each Σ_i B(i) a loop over i scattering B with the seed seed·∂t/∂σ (computed
 * before the loop). The cost is that of the closed form, whatever the index expressions (a[i + 1],
 * a[idx[i]]): contributions to one element from several reads add up, as in statement-level AD.
 * Subterms free of every loop index are computed once, before the outermost loop; in a loop, values
 * the previous iteration computed are carried from it (reuse.ts), divisions by one denominator share
 * its reciprocal, and the scatters into an element the loop's index does not move are summed in a
 * variable and added once after the loop (the adjoints are only added to, never read, in the rule: the
 * order of the additions is all that changes). Returns why not (a Π over the arrays: its adjoint needs
 * the product rule), or null.
 */
function scatterArrays(result: Term, seed: Term, adjointOf: ReadonlyMap<string, string>, out: Stmt[], names: Names, base: ToIROptions): string | null {
  const baseName = (s: Sym) => (base.name ? base.name(s) : s.name);
  const readsArrays = new Map<Term, boolean>();
  const reads = (t: Term): boolean => {
    let r = readsArrays.get(t);
    if (r === undefined) {
      r = (t.k === 'at' && adjointOf.has(t.arr)) || T.children(t).some(reads);
      readsArrays.set(t, r);
    }
    return r;
  };
  let sigmas = 0;
  const hoisted = new Map<Term, Term>(); // loop-invariant subterms → their temporaries (declared in `out`)
  const arrTy: Ty = { k: 'arr', elem: NUM, typed: false, ro: false };
  const scope = (t: Term, sd: Term, stmts: Stmt[], loopVars: Map<Term, string>, depth: number, loop: ScatterLoop | null): string | null => {
    const parts = new Map<Term, Sym>();
    const find = (x: Term): void => {
      if (parts.has(x) || !reads(x)) return;
      if (x.k === 'at' || x.k === 'sum' || x.k === 'prod') parts.set(x, T.sym(`#σ${sigmas++}`));
      else T.children(x).forEach(find);
    };
    find(t);
    if (!parts.size) return null;
    const stood = replaceAll(t, parts);
    const back = new Map([...parts].map(([p, s]) => [s as Term, p]));
    const items: { part: Term; seed: Term; op: '+' | '-' }[] = [];
    for (const [part, s] of parts) {
      if (part.k === 'prod') return 'a product (Π) over an array whose adjoint is wanted';
      const g = simplify(replaceAll(simplify(T.mul(sd, differentiate(stood, s))), back));
      if (g === ZERO) continue;
      // (a read's contribution is added or subtracted: c·t and −c·t share their product)
      const { op, term } = part.k === 'at' ? signed(g) : { op: '+' as const, term: g };
      items.push({ part, seed: term, op });
    }
    if (depth > 0) {
      // (in a loop: the factors of a contribution free of the loop's indices multiplied once, before it)
      const continuous = continuousNodes(items.flatMap((x) => (x.part.k === 'at' ? [x.seed, x.part.index] : [x.seed])));
      for (const x of items) x.seed = hoist(continuous.has(x.seed) ? hoistFactors(x.seed) : x.seed);
    }
    const naming: ToIROptions = { ...base, name: (s) => loopVars.get(s) ?? baseName(s) };
    const roots = items.flatMap((x) => (x.part.k === 'at' ? [x.seed, x.part.index] : [x.seed]));
    // values of the previous iteration: the first before the loop, each next one handed on at its end
    const carried = loop ? carriedAcrossIterations(roots, loop.index, loop.lo) : [];
    const given = new Map<Term, string>();
    if (carried.length) {
      const first = lowerTerms(carried.map((c) => c.first), (h) => names.fresh(h), { ...naming, partials: true });
      loop!.before.push(...first.stmts);
      carried.forEach((c, k) => {
        const name = names.fresh('carried');
        loop!.before.push({ k: 'decl', name, ty: NUM, init: first.values[k], konst: false, ...(k === 0 ? { comments: [CARRIED] } : {}) });
        given.set(c.value, name);
      });
    }
    const low = lowerTerms([...roots, ...carried.map((c) => c.next)], (h) => names.fresh(h), { ...naming, partials: true, given });
    stmts.push(...low.stmts);
    carried.forEach((c, j) => {
      let next = low.values[roots.length + j];
      if (next.k !== 'var') {
        const tmp = names.fresh('t');
        stmts.push({ k: 'decl', name: tmp, ty: NUM, init: next, konst: true });
        next = v(tmp, NUM);
      }
      loop!.update.push({ k: 'assign', target: v(given.get(c.value)!, NUM), value: next });
    });
    let j = 0;
    for (const x of items) {
      if (x.part.k === 'at') {
        const value = low.values[j++], index = low.values[j++];
        const arr = x.part.arr, at = x.part.index;
        if (loop && !T.dependsOn(at, loop.index)) {
          // (an element the loop's index does not move: one read-modify-write after the loop, not one per iteration)
          const key = `${arr}[${at.id}]`;
          let acc = loop.sums.get(key);
          if (!acc) {
            acc = names.fresh(`${adjointOf.get(arr)!}Sum`);
            loop.sums.set(key, acc);
            loop.before.push({ k: 'decl', name: acc, ty: NUM, init: { k: 'num', v: 0 }, konst: false });
            const after = lowerTerms([at], (h) => names.fresh(h), naming);
            loop.after.push(...after.stmts);
            loop.after.push(compound({ k: 'idx', obj: v(adjointOf.get(arr)!, arrTy), index: after.values[0], ty: NUM }, '+', v(acc, NUM)));
          }
          stmts.push(compound(v(acc, NUM), x.op, value));
          continue;
        }
        stmts.push(compound({ k: 'idx', obj: v(adjointOf.get(arr)!, arrTy), index, ty: NUM }, x.op, value));
        continue;
      }
      const sum = x.part as Extract<Term, { k: 'sum' | 'prod' }>;
      let seedExpr = low.values[j++];
      if (seedExpr.k !== 'var' && seedExpr.k !== 'num') {
        const tmp = names.fresh('seed');
        stmts.push({ k: 'decl', name: tmp, ty: NUM, init: seedExpr, konst: true });
        seedExpr = v(tmp, NUM);
      }
      // (a seed computed inside a loop is not loop-invariant: as an index-role symbol, `hoist` leaves it in place)
      const innerSeed = seedExpr.k === 'var' ? T.sym(seedExpr.name, depth > 0 ? 'index' : 'var') : T.num((seedExpr as { v: number }).v);
      const bounds = lowerTerms([sum.lo, sum.hi], (h) => names.fresh(h), naming);
      stmts.push(...bounds.stmts);
      // (the last index once, not in every test of the loop's condition)
      let hi = bounds.values[1];
      if (hi.k !== 'var' && hi.k !== 'num') {
        const name = names.fresh('last');
        stmts.push({ k: 'decl', name, ty: INT, init: hi, konst: true });
        hi = v(name, INT);
      }
      const i = names.fresh(sum.i.name.replace(/[^A-Za-z0-9_$]/g, '') || 'i');
      const inner: Stmt[] = [];
      const around: ScatterLoop = { index: sum.i, lo: sum.lo, before: [], update: [], after: [], sums: new Map() };
      const err = scope(sum.body, innerSeed, inner, new Map([...loopVars, [sum.i as Term, i]]), depth + 1, around);
      if (err) return err;
      const forStmt: Stmt = {
        k: 'for',
        init: [{ k: 'decl', name: i, ty: INT, init: bounds.values[0], konst: false }],
        cond: { k: 'bin', op: '<=', a: v(i, INT), b: hi, ty: { k: 'bool' } },
        update: [{ k: 'assign', target: v(i, INT), value: { k: 'bin', op: '+', a: v(i, INT), b: { k: 'num', v: 1 }, ty: INT }, op: '+', inc: true }],
        body: [...inner, ...around.update],
      };
      // (a seed that is zero, the sum of an exit the primal did not take, runs no loop: its bounds are
      // that exit's, and may reach past the array, where 0 · undefined would be NaN; statement-level AD
      // adds nothing for a zero seed either. What the loop adds around it needs one iteration at least:
      // the first carried values read the first iteration's elements, the sums are added to elements
      // the loop would have written)
      const tests: Expr[] = [];
      if (seedExpr.k === 'var') tests.push({ k: 'bin', op: '!==', a: seedExpr, b: { k: 'num', v: 0 }, ty: { k: 'bool' } });
      const wrapped = around.before.length + around.after.length > 0;
      if (wrapped) tests.push({ k: 'bin', op: '<=', a: bounds.values[0], b: hi, ty: { k: 'bool' } });
      const block = [...around.before, forStmt, ...around.after];
      if (!tests.length) stmts.push(...block);
      else stmts.push({ k: 'if', c: tests.reduce((a, b) => ({ k: 'bin', op: '&&', a, b, ty: { k: 'bool' } })), then: block, else: [] });
    }
    return null;
  };
  /** terms free of every index computed once, in `out` before the loops, then read from their temporaries */
  const computeBefore = (parts: readonly Term[]): void => {
    const fresh = parts.filter((p) => !hoisted.has(p));
    if (!fresh.length) return;
    const low = lowerTerms(fresh, (h) => names.fresh(h), { ...base, name: baseName });
    out.push(...low.stmts);
    fresh.forEach((p, j) => {
      let e = low.values[j];
      if (e.k !== 'var' && e.k !== 'num') {
        const tmp = names.fresh('t');
        out.push({ k: 'decl', name: tmp, ty: NUM, init: e, konst: true });
        e = v(tmp, NUM);
      }
      hoisted.set(p, e.k === 'var' ? T.sym(e.name) : p);
    });
  };
  /** a product with its factors free of every index multiplied once, before the loops (reuse.ts) */
  const hoistFactors = (t: Term): Term => {
    const split = invariantFactors(t, (f) => [...T.freeSyms(f)].some((s) => s.role === 'index'));
    if (!split) return t;
    if (split.invariant.k !== 'num' && split.invariant.k !== 'sym') computeBefore([split.invariant]);
    return split.product(hoisted.get(split.invariant) ?? split.invariant);
  };
  /** loop-invariant parts of a term inside a loop: computed once, in `out` before the loops */
  const hoist = (t: Term): Term => {
    computeBefore(invariantParts(t));
    return replaceAll(t, hoisted);
  };
  return scope(result, seed, out, new Map(), 0, null);
}

export interface Rules {
  jvp: Func;
  vjp: Func;
  /** DAG size of the value and all partials */
  derivativeSize: number;
}

/**
 * The tangent and adjoint rules of f from the closed form of its result (names given, fresh in the
 * module). Only the parameters in `active` carry derivatives: the others (no caller varies them) keep
 * their places in the rules' signatures, but their tangents are not read and their adjoints are neither
 * computed nor written (0 for a number).
 */
export function shortcutRules(f: Func, cf: ClosedForm, names: { jvp: string; vjp: string }, reserved: ReadonlySet<string>, maxDerivativeSize: number, active: ReadonlySet<string> = new Set(f.params.map((p) => p.name))): Rules | { refused: string } {
  const result = cf.result;
  const used = () => new Names(declaredNames(f), reserved);
  const ignored = f.params.filter((p) => !active.has(p.name) && (ruleDerivKind(p.ty) === 'scalar' || ruleDerivKind(p.ty) === 'array')).map((p) => `'${p.name}'`);
  const comments = (what: string) => [
    `// ${f.name}'s ${what}, from the closed form of its result (coarsening: ${cf.size} symbolic nodes)${ignored.length ? `; no caller varies ${ignored.join(', ')}: no derivative for ${ignored.length === 1 ? 'it' : 'them'}` : ''}`,
    ...(cf.records.length ? [`// (its statements up to the last loop whose iterations the data decide run first: the trip counts and exits the closed form reads)`] : []),
  ];
  // parameters and `a.length` print as themselves; trip counts and exits left to the run read its records
  const recording = (n: Names) => (cf.records.length ? recordingRun(f, cf.records, (h) => n.fresh(h), cf.replay) : { stmts: [] as Stmt[], options: {} as ToIROptions, replayed: false });
  try {
    recording(used());
  } catch (e) {
    if (e instanceof RecordsUnsupported) return { refused: `its run cannot be recorded: ${e.message}` };
    throw e;
  }

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
  const arraysT = new Map([...tangentOf].filter(([p]) => active.has(p) && f.params.find((q) => q.name === p)!.ty.k === 'arr'));
  const perturbed = T.mapTerm(result, (x) => {
    if (x.k === 'sym' && x.role === 'var' && tangentOf.has(x.name) && active.has(x.name) && !arraysT.has(x.name)) return T.add(x, T.mul(eps, T.sym(tangentOf.get(x.name)!)));
    if (x.k === 'at' && arraysT.has(x.arr)) return T.add(x, T.mul(eps, T.at(arraysT.get(x.arr)!, x.index)));
    return x;
  });
  const tangent = simplify(T.subst(differentiate(perturbed, eps), eps, ZERO));
  const tRec = recording(tn);
  const tBody = lowerTerms([tangent], (h) => tn.fresh(h), { ...tRec.options, partials: true });
  // the value is the primal's own (bit for bit what f returns: every mode returns the primal's values)
  const value: Expr = { k: 'call', fn: f.name, args: f.params.map((p) => v(p.name, p.ty)), ty: f.ret };
  const jvp: Func = {
    name: names.jvp,
    params: jparams,
    ret: ruleResult(f, 'tangent'),
    body: [...tRec.stmts, ...tBody.stmts, { k: 'return', e: { k: 'arrlit', elems: [value, tBody.values[0]], ty: ruleResult(f, 'tangent') } }],
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
  const scalarAdjoints = scalars.map((p) => (active.has(p.name) ? simplify(T.mul(yb, simplify(differentiate(result, T.sym(p.name))))) : ZERO));
  const derivativeSize = T.size(T.add(tangent, ...scalarAdjoints));
  if (derivativeSize > maxDerivativeSize) return { refused: `its partials have ${derivativeSize} nodes, over the limit ${maxDerivativeSize}` };
  const aRec = recording(an);
  const pre = lowerTerms(scalarAdjoints, (h) => an.fresh(h), { ...aRec.options, partials: true });
  const body: Stmt[] = [...aRec.stmts, ...pre.stmts];
  const scatterError = scatterArrays(result, yb, new Map([...adjointOf].filter(([p]) => active.has(p))), body, an, aRec.options);
  if (scatterError) return { refused: scatterError };
  const ret = ruleResult(f, 'adjoint');
  const adj = pre.values.slice(0, scalarAdjoints.length);
  if (adj.length === 1) body.push({ k: 'return', e: adj[0] });
  else if (adj.length > 1) body.push({ k: 'return', e: { k: 'arrlit', elems: adj, ty: ret } });
  const vjp: Func = { name: names.vjp, params: vparams, ret, body, exported: false, loc: f.loc, comments: comments('adjoint rule') };
  return { jvp, vjp, derivativeSize };
}
