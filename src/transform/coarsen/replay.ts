// The recorded loop replayed from its closed form, with certified decisions (issue 19, BGDHyperOpt).
//
// records.ts runs the function's own statements to learn a `while … break` loop's trip count and exit:
// O(M·K) for K iterations of a body that reduces over M elements. Here the last recorded loop is
// replayed instead: the reductions of its body (inner counted loops `acc = acc ± e`, closed by elevation
// into Σ's) are evaluated from their closed forms, whose parts free of the loop's state (S_xy, S_x2, …)
// are computed once, before the replay — O(M + K) — and every other statement of the body is evaluated
// as the source writes it, operation by operation.
//
// Every replayed value v carries a radius r, a rigorous bound on |ŝ − v| where ŝ is the value the
// source's own floating-point run would have at that point (running error analysis, u = 2⁻⁵³):
// - a value computed by the same operations from operands of radius 0 is bit for bit the source's
//   (radius 0: decisions on it are the source's, exactly);
// - a + b, a − b, a·b, a/b with operand radii ra, rb: the spread of the exact results over the operand
//   intervals (Δ = ra + rb; |a|·rb + |b|·ra + ra·rb; (ra + |a/b|·rb)/(|b| − rb)), plus the rounding of
//   both the source and the replay (≤ u each of the result's magnitude), inflated for the bound's own
//   rounding; |·|, max and min keep the largest radius; other operations (Math functions, **, %, element
//   reads at an index of positive radius) are replayed only on operands of radius 0 (else no replay);
// - a reduction acc₀ + Σ_k e(k, s) (s: the loop state read inside, acc₀ exact) replayed as its closed
//   form G(s): with P the closed form of the source's absolute evaluation (|acc₀| + Σ_k ē(k, |s|), every
//   constant, element and state value by its magnitude, − as +: a polynomial in |s| with non-negative
//   coefficients, so P dominates the coefficients of the source's polynomial in s) and N a bound on the
//   roundings on any path of the source's (the trip count plus the body's operations) or of the closed
//   form's evaluation: r ≤ [P(|v| + ρ) − P(|v|)] (the state's spread) + γ_N·P(|v| + ρ) (the source's
//   rounding) + γ_N·Ḡ(|v|) (the replay's rounding of G, Ḡ its absolute evaluation), doubled for the
//   bound's own rounding (γ_N = N·u/(1 − N·u), required < 10⁻³).
// A test (the loop condition, a break's `if`) is decided when its operands' intervals do not meet (with
// radius 0, by the source's own comparison); when they meet the replay gives up and the loop runs as the
// source writes it, recorded (records.ts) — so every trip count and exit the rules read is the source's.
//
// Where the shape is not one of these (a branch φ, a store, a call, a reduction reading a value the body
// computed, a nested Σ, a division by a state value inside a reduction, …) there is no replay: the
// recorded run, as before.
import type { SsaFunc, SsaNode, PhiNode } from '../../analysis/ssa.js';
import type { Expr, Stmt } from '../../ir/types.js';
import { BOOL, deepCopy, INT, NUM } from '../../ir/util.js';
import { fromIR, lowerTerms } from './convert.js';
import { differentiate } from './differentiate.js';
import { simplify } from './simplify.js';
import * as T from './terms.js';
import type { Term } from './terms.js';
import type { RecordedLoop } from './records.js';

export class ReplayUnsupported extends Error {}

/** what elevation knew about the function: its SSA form, the closed forms of its names, the loops' trip counts */
export interface ReplayInfo {
  ssa: SsaFunc;
  terms: ReadonlyMap<string, Term>;
  trips: ReadonlyMap<string, Term>;
}

export interface ReplayContext {
  fresh: (hint: string) => string;
  /** the run's variable holding an SSA name defined before the loop (a parameter's copy where the run assigns it) */
  irName: (ssaName: string) => string;
  trip: string;
  exit: string;
  /** the flag the replay sets when a decision is too close to call */
  fallback: string;
}

type LoopNode = Extract<SsaNode, { k: 'loop' }>;
type Sym = Extract<Term, { k: 'sym' }>;

const U = 2 ** -53;
/** ≥ 2u(1 + u)²: the source's and the replay's rounding of a result, relative to the replay's result */
const ROUND = 2.3e-16;
/** the bound's own rounding (a handful of operations on non-negative numbers) */
const INFLATE = 1 + 1e-14;
/** ≥ the absolute rounding error of a result in the subnormal range, with room */
const TINY = 1e-300;
/** magnitudes from here on may overflow somewhere along the source's or the replay's evaluation: no bound */
const HUGE = 1e300;
const ZERO = T.num(0);
const INF = T.num(Infinity);

const nv = (v: number): Expr => (v < 0 || Object.is(v, -0) ? { k: 'un', op: '-', a: { k: 'num', v: -v }, ty: NUM } : { k: 'num', v });
const vr = (name: string, ty = NUM): Extract<Expr, { k: 'var' }> => ({ k: 'var', name, ty });
const abs = (t: Term): Term => (t.k === 'num' ? T.num(Math.abs(t.v)) : T.fn('Math.abs', t));
const decl = (name: string, init: Expr, konst = true): Stmt => ({ k: 'decl', name, ty: NUM, init, konst });
const set = (name: string, value: Expr): Stmt => ({ k: 'assign', target: vr(name), value });
const cmpE = (op: '===' | '<' | '>', a: Expr, b: Expr): Expr => ({ k: 'bin', op, a, b, ty: BOOL });

/** value and radius of a replayed quantity: the value a variable or number, the radius a term over such */
interface VR {
  v: Expr;
  r: Term;
}

const termOf = (e: Expr): Term => {
  if (e.k === 'var') return T.sym(e.name);
  if (e.k === 'num') return T.num(e.v);
  if (e.k === 'un' && e.op === '-' && e.a.k === 'num') return T.num(-e.a.v);
  throw new Error('replay: a value that is neither a variable nor a number');
};

/**
 * The statements replaying `loop` (the last recorded loop of the function, at its top level, run after
 * the statements before it): on success `trip` and `exit` hold the source's trip count and exit; else
 * `fallback` is set (trip and exit to be reset and the loop run). Throws ReplayUnsupported.
 */
export function replayLoop(info: ReplayInfo, loop: RecordedLoop, ctx: ReplayContext): Stmt[] {
  const node = info.ssa.body.find((n): n is LoopNode => n.k === 'loop' && n.site === loop.site);
  if (!node) throw new ReplayUnsupported('the loop is not at the top level');
  // radii known to be 0 in every iteration (the loop's counters): computed without radius code
  let exactState = new Set(node.entry.map((p) => p.name));
  for (let round = 0; round < 8; round++) {
    const gen = generate(info, node, ctx, exactState);
    if (gen.inexact.every((p) => !exactState.has(p))) return gen.stmts;
    exactState = new Set([...exactState].filter((p) => !gen.inexact.includes(p)));
  }
  throw new ReplayUnsupported('the state radii did not settle');
}

/**
 * t as t₀ + s·t₁ for each symbol s of `syms` it reads, recursively (each tᵢ simplified on its own, so that
 * Σ linearity leaves the Σ's free of the state to be computed once): exact in the reals; refused where t
 * is not affine in each (a product of two states, a state under a function or in a divisor).
 */
function affineParts(t: Term, syms: readonly Sym[]): Term {
  const s = syms.find((x) => T.dependsOn(t, x));
  if (!s) return t;
  // (s only under sums, products, numerators, Σ bodies and whole powers: a polynomial in s, where the
  // derivative's independence of s means affinity — a floor or a select of s would have a derivative free of it)
  const poly = (x: Term): boolean => {
    if (!T.dependsOn(x, s)) return true;
    switch (x.k) {
      case 'sym':
        return true;
      case 'add':
      case 'mul':
        return x.args.every(poly);
      case 'div':
        return !T.dependsOn(x.b, s) && poly(x.a);
      case 'sum':
        return !T.dependsOn(x.lo, s) && !T.dependsOn(x.hi, s) && poly(x.body);
      case 'pow':
        return x.exp.k === 'num' && Number.isInteger(x.exp.v) && x.exp.v >= 0 && poly(x.base);
      default:
        return false;
    }
  };
  if (!poly(t)) throw new ReplayUnsupported('a reduction that is not a polynomial in the state');
  const rest = syms.filter((x) => x !== s);
  const d = simplify(differentiate(t, s));
  if (T.dependsOn(d, s)) throw new ReplayUnsupported('a reduction that is not affine in the state');
  return T.add(affineParts(simplify(T.subst(t, s, ZERO)), rest), T.mul(s, affineParts(d, rest)));
}

function generate(info: ReplayInfo, node: LoopNode, ctx: ReplayContext, exactState: ReadonlySet<string>): { stmts: Stmt[]; inexact: string[] } {
  const { fresh } = ctx;
  const pre: Stmt[] = []; // before the replay loop: the state's copies, the reductions' invariants
  const inLoop = new Set<string>();
  const collect = (list: SsaNode[]) => {
    for (const n of list) {
      if (n.k === 'def' || n.k === 'phi') inLoop.add(n.name);
      if (n.k === 'if') {
        collect(n.then);
        collect(n.else);
      } else if (n.k === 'loop') {
        for (const p of [...n.entry, ...n.exit]) inLoop.add(p.name);
        collect(n.body);
        collect(n.update);
      }
    }
  };
  for (const p of node.entry) inLoop.add(p.name);
  collect(node.body);
  collect(node.update);
  const env = new Map<string, VR>();
  const standIn = new Map<string, { v: string; r: string | null }>();
  for (const p of node.entry) {
    if (inLoop.has(p.args[0])) throw new ReplayUnsupported('a loop-carried value entering from inside the loop');
    const v = fresh(`${p.of.replace(/[^A-Za-z0-9_$]/g, '')}Replay`);
    pre.push(decl(v, vr(ctx.irName(p.args[0])), false));
    let r: string | null = null;
    if (!exactState.has(p.name)) {
      r = fresh(`${p.of.replace(/[^A-Za-z0-9_$]/g, '')}Radius`);
      pre.push(decl(r, nv(0), false));
    }
    standIn.set(p.name, { v, r });
    env.set(p.name, { v: vr(v), r: r ? T.sym(r) : ZERO });
  }
  const outside = (name: string): boolean => !inLoop.has(name);
  /** the run's variables the replay reads from before the loop (unchanged while it runs) */
  const outsideIR = new Set<string>();
  const isOutsideIR = (n: string) => outsideIR.has(n);

  /** a term's radius bound to a name (0 stays the number 0) */
  const bindR = (r: Term, out: Stmt[]): Term => {
    if (r === ZERO || r.k === 'sym') return r;
    const low = lowerTerms([r], fresh);
    out.push(...low.stmts);
    const e = low.values[0];
    if (e.k === 'var') return T.sym(e.name);
    const t = fresh('radius');
    out.push(decl(t, e));
    return T.sym(t);
  };
  const bindV = (e: Expr, out: Stmt[], hint = 'v'): Expr => {
    if (e.k === 'var' || e.k === 'num' || (e.k === 'un' && e.a.k === 'num')) return e;
    const t = fresh(hint);
    out.push(decl(t, e));
    return vr(t);
  };
  /**
   * Checks that no magnitude reached HUGE (near it the source could overflow where the replay does not),
   * made since the last test: tested together before the next test and at the back edge (off the radii's
   * chain from one iteration to the next).
   */
  let pending: string[] = [];
  const flush = (out: Stmt[]): void => {
    if (!pending.length) return;
    const all = pending.map((n): Expr => vr(n, BOOL)).reduce((a, b) => ({ k: 'bin', op: '&&', a, b, ty: BOOL }));
    out.push({ k: 'if', c: { k: 'un', op: '!', a: all, ty: BOOL }, then: giveUp(), else: [] });
    pending = [];
  };
  const small = (t: Term, out: Stmt[]): void => {
    const low = lowerTerms([T.cmp('<', t, T.num(HUGE))], fresh);
    out.push(...low.stmts);
    const n = fresh('finite');
    out.push({ k: 'decl', name: n, ty: BOOL, init: low.values[0], konst: true });
    pending.push(n);
  };
  /** the radius of a result `res` of an operation whose operands have radii `rs` and exact spread Δ (bound to a name) */
  const rounded = (rs: Term[], spread: Term, res: Expr, out: Stmt[]): Term => {
    const live = rs.filter((r) => r !== ZERO);
    if (!live.length) return ZERO;
    // (Δ·INFLATE last: the radius's own chain through the iterations is a multiplication and an addition per operation)
    const bound = bindR(T.add(T.num(TINY), T.mul(T.num(ROUND * INFLATE), abs(termOf(res))), T.mul(spread, T.num(INFLATE))), out);
    small(T.add(abs(termOf(res)), bound), out);
    return bound;
  };
  /** 1/|b| rounded up (b's magnitude ≥ 1/that), computed before the loop where b is a value from before it */
  const reciprocals = new Map<string, Term>();
  const reciprocal = (b: Expr): Term => {
    const tb = termOf(b);
    if (b.k !== 'var' && !(b.k === 'num' || (b.k === 'un' && b.a.k === 'num'))) return T.mul(T.div(T.num(1), abs(tb)), T.num(1 + 4 * U));
    const key = b.k === 'var' ? b.name : String(tb.k === 'num' ? tb.v : '');
    if (b.k === 'var' && [...standIn.values()].some((s) => s.v === b.name)) return T.mul(T.div(T.num(1), abs(tb)), T.num(1 + 4 * U));
    let hit = reciprocals.get(key);
    if (!hit && b.k === 'var' && !isOutsideIR(b.name)) return T.mul(T.div(T.num(1), abs(tb)), T.num(1 + 4 * U));
    if (!hit) {
      const n = fresh('recip');
      pre.push(decl(n, { k: 'bin', op: '*', a: { k: 'bin', op: '/', a: nv(1), b: { k: 'intr', fn: 'Math.abs', args: [b], ty: NUM }, ty: NUM }, b: nv(1 + 4 * U), ty: NUM }));
      hit = T.sym(n);
      reciprocals.set(key, hit);
    }
    return hit;
  };
  /** other operations: exact from exact operands, else unbounded */
  const opaque = (rs: Term[]): Term => {
    const live = rs.filter((r) => r !== ZERO);
    // (on a value the replay only approximates there is no bound: the replay would give up in every
    // iteration that reaches it, so it is not made — the recorded run, directly)
    if (live.length) throw new ReplayUnsupported('an operation without an error bound on a value the replay approximates');
    return ZERO;
  };

  const value = (e: Expr, out: Stmt[]): VR => {
    switch (e.k) {
      case 'num':
        return { v: nv(e.v), r: ZERO };
      case 'var': {
        const hit = env.get(e.name);
        if (hit) return hit;
        if (inLoop.has(e.name)) throw new ReplayUnsupported(`a read of ${e.name} the replay does not compute`);
        outsideIR.add(ctx.irName(e.name));
        return { v: vr(ctx.irName(e.name), e.ty), r: ZERO };
      }
      case 'global':
        if (e.ty.k !== 'num' && e.ty.k !== 'int') break;
        return { v: e, r: ZERO };
      case 'len':
        if (e.obj.k !== 'var' || inLoop.has(e.obj.name)) break;
        return { v: bindV({ k: 'len', obj: vr(ctx.irName(e.obj.name), e.obj.ty) }, out, 'len'), r: ZERO };
      case 'idx': {
        if (e.obj.k !== 'var' || inLoop.has(e.obj.name) || e.obj.ty.k !== 'arr' || e.obj.ty.elem.k !== 'num') break;
        const i = value(e.index, out);
        const t = fresh('elem');
        out.push(decl(t, { k: 'idx', obj: vr(ctx.irName(e.obj.name), e.obj.ty), index: i.v, ty: NUM }));
        return { v: vr(t), r: bindR(opaque([i.r]), out) };
      }
      case 'un':
        if (e.op === '-' || e.op === '+') {
          const a = value(e.a, out);
          return { v: e.op === '-' ? bindV({ k: 'un', op: '-', a: a.v, ty: NUM }, out, 'neg') : a.v, r: a.r };
        }
        break;
      case 'bin': {
        if (!['+', '-', '*', '/', '%', '**'].includes(e.op)) break;
        const a = value(e.a, out), b = value(e.b, out);
        const t = fresh('t');
        out.push(decl(t, { k: 'bin', op: e.op, a: a.v, b: b.v, ty: NUM }));
        const res = vr(t);
        const ta = termOf(a.v), tb = termOf(b.v);
        let r: Term;
        if (e.op === '+' || e.op === '-') r = rounded([a.r, b.r], T.add(a.r, b.r), res, out);
        else if (e.op === '*') {
          const parts = [...(b.r !== ZERO ? [T.mul(abs(ta), b.r)] : []), ...(a.r !== ZERO ? [T.mul(abs(tb), a.r)] : []), ...(a.r !== ZERO && b.r !== ZERO ? [T.mul(a.r, b.r)] : [])];
          r = rounded([a.r, b.r], T.add(...parts), res, out);
        } else if (e.op === '/') {
          const spread = b.r === ZERO ? T.mul(a.r, reciprocal(b.v)) : T.sel(T.cmp('>', abs(tb), b.r), T.div(T.add(a.r, T.mul(abs(termOf(res)), T.num(INFLATE), b.r)), T.add(abs(tb), T.neg(b.r))), INF);
          r = rounded([a.r, b.r], spread, res, out);
        } else r = opaque([a.r, b.r]);
        return { v: res, r: bindR(r, out) };
      }
      case 'intr': {
        if (!e.fn.startsWith('Math.') || e.ty.k !== 'num') break;
        const args = e.args.map((x) => value(x, out));
        const t = fresh('t');
        out.push(decl(t, { ...e, args: args.map((x) => x.v) }));
        // |·|, max and min are exact and 1-Lipschitz in each argument: the largest radius
        const live = args.map((x) => x.r).filter((r) => r !== ZERO);
        if ((e.fn === 'Math.abs' && args.length === 1) || ((e.fn === 'Math.max' || e.fn === 'Math.min') && args.length >= 1)) return { v: vr(t), r: live.length ? bindR(live.length === 1 ? live[0] : T.fn('Math.max', ...live), out) : ZERO };
        return { v: vr(t), r: bindR(opaque(args.map((x) => x.r)), out) };
      }
    }
    throw new ReplayUnsupported(`an expression the replay does not evaluate (${e.k}${e.k === 'bin' || e.k === 'un' ? ` ${e.op}` : ''})`);
  };

  /** a test: 1 true, 0 false, −1 too close to call (an int-valued expression, bound to a name) */
  const decide = (e: Expr, out: Stmt[]): Expr => {
    const name = fresh('decided');
    const bind = (x: Expr) => {
      out.push({ k: 'decl', name, ty: INT, init: x, konst: true });
      return vr(name, INT);
    };
    const tern = (c: Expr, a: Expr, b: Expr): Expr => ({ k: 'cond', c, a, b, ty: INT });
    if (e.k === 'bool') return bind(nv(e.v ? 1 : 0));
    if (e.k === 'un' && e.op === '!') {
      const a = decide(e.a, out);
      return bind(tern(cmpE('<', a, nv(0)), nv(-1), { k: 'bin', op: '-', a: nv(1), b: a, ty: INT }));
    }
    if (e.k === 'bin' && (e.op === '&&' || e.op === '||')) {
      const a = decide(e.a, out), b = decide(e.b, out);
      const dom = e.op === '&&' ? 0 : 1;
      const either: Expr = { k: 'bin', op: '||', a: cmpE('===', a, nv(dom)), b: cmpE('===', b, nv(dom)), ty: BOOL };
      const both: Expr = { k: 'bin', op: '&&', a: cmpE('===', a, nv(1 - dom)), b: cmpE('===', b, nv(1 - dom)), ty: BOOL };
      return bind(tern(either, nv(dom), tern(both, nv(1 - dom), nv(-1))));
    }
    if (e.k === 'bin' && ['<', '<=', '>', '>=', '===', '!==', '==', '!='].includes(e.op)) {
      const a = value(e.a, out), b = value(e.b, out);
      flush(out);
      const exact = tern({ k: 'bin', op: e.op, a: a.v, b: b.v, ty: BOOL }, nv(1), nv(0));
      if (a.r === ZERO && b.r === ZERO) return bind(exact);
      // the source's operands lie within rr of the replay's: decided when their difference is farther from 0
      const rr = bindR(T.add(a.r, b.r), out);
      const ta = termOf(a.v), tb = termOf(b.v);
      const up = e.op === '<' || e.op === '<=' ? T.sub(tb, ta) : T.sub(ta, tb); // > 0: the test holds
      const diff = bindR(up, out);
      const margin = bindR(T.add(T.mul(rr, T.num(INFLATE)), T.mul(T.num(ROUND), abs(diff)), T.num(TINY)), out);
      const low = lowerTerms([diff, margin], fresh);
      out.push(...low.stmts);
      const [d, m] = low.values;
      const negD: Expr = { k: 'un', op: '-', a: d, ty: NUM };
      const absD: Expr = { k: 'intr', fn: 'Math.abs', args: [d], ty: NUM };
      let certain: Expr;
      if (e.op === '===' || e.op === '==') certain = tern(cmpE('>', absD, m), nv(0), nv(-1));
      else if (e.op === '!==' || e.op === '!=') certain = tern(cmpE('>', absD, m), nv(1), nv(-1));
      else certain = tern(cmpE('>', d, m), nv(1), tern(cmpE('>', negD, m), nv(0), nv(-1)));
      const rre = lowerTerms([rr], fresh).values[0];
      return bind(tern(cmpE('===', rre, nv(0)), exact, certain));
    }
    throw new ReplayUnsupported(`a test the replay does not decide (${e.k}${e.k === 'bin' || e.k === 'un' ? ` ${e.op}` : ''})`);
  };

  // ---- reductions: an inner counted loop, acc = acc ± e per iteration, read from its closed form
  const stateSyms = new Map<Sym, string>(); // the loop's entry φ symbols (as elevation left them) → the replay's names
  for (const p of node.entry) stateSyms.set(T.sym(p.name), p.name);
  const magSym = (p: string) => T.sym(`#mag:${p}`);
  const isState = (t: Term) => [...T.freeSyms(t)].some((s) => stateSyms.has(s) || s.name.startsWith('#mag:'));
  const hoisted = new Map<Term, Term>();
  /**
   * The parts of the terms free of the state, computed once before the replay loop, all in one lowering
   * (Σ's over one range share a loop; a Σ's index is renamed to one name first, so that the same Σ met in
   * two terms is computed once); returns the terms' per-iteration rests.
   */
  let canon = 0;
  const canonical = (t: Term): Term =>
    T.mapTerm(t, (x) => {
      if (x.k !== 'sum' && x.k !== 'prod') return x;
      let nested = false;
      T.mapTerm(x.body, (y) => ((nested ||= y.k === 'sum' || y.k === 'prod'), y));
      if (nested) return x; // (a Σ inside: left as it is, no index captured)
      const c = T.sym(`#c${canon++}`, 'index'); // (a fresh name first: the canonical one may be free in the body)
      const body = T.subst(T.subst(x.body, x.i, c), c, T.sym('#c', 'index'));
      return x.k === 'sum' ? T.sum(T.sym('#c', 'index'), x.lo, x.hi, body) : T.prod(T.sym('#c', 'index'), x.lo, x.hi, body);
    });
  const hoist = (ts0: Term[]): Term[] => {
    const ts = ts0.map(canonical);
    const parts: Term[] = [];
    const seen = new Set<Term>();
    const go = (x: Term): void => {
      if (seen.has(x) || hoisted.has(x)) return;
      seen.add(x);
      if (x.k === 'num' || x.k === 'sym') return;
      if (!isState(x) && ![...T.freeSyms(x)].some((s) => s.role === 'index')) {
        parts.push(x);
        return;
      }
      T.children(x).forEach(go);
    };
    ts.forEach(go);
    if (parts.length) {
      const low = lowerTerms(parts, fresh, { name: (s) => symIR(s) });
      pre.push(...low.stmts);
      parts.forEach((p, j) => {
        let e = low.values[j];
        if (e.k !== 'var') {
          const n = fresh('inv');
          pre.push(decl(n, e));
          e = vr(n);
        }
        hoisted.set(p, T.sym((e as { name: string }).name));
      });
    }
    const memo = new Map<Term, Term>();
    const rep = (x: Term): Term => {
      const h = hoisted.get(x) ?? memo.get(x);
      if (h) return h;
      const kids = T.children(x);
      const out = kids.length ? T.rebuild(x, kids.map(rep)) : x;
      memo.set(x, out);
      return out;
    };
    return ts.map((t) => {
      const rest = rep(t);
      T.mapTerm(rest, (x) => {
        if (x.k === 'sum' || x.k === 'prod') throw new ReplayUnsupported('a reduction whose closed form keeps a Σ over the state (no cheaper than the loop)');
        if (x.k === 'phi' || (x.k === 'sym' && x.role === 'trip')) throw new ReplayUnsupported('a reduction whose closed form reads a recorded decision');
        return x;
      });
      return rest;
    });
  };
  /** IR names of the symbols of closed forms: parameters (the arguments: closed forms are in them), lengths, hoisted temporaries, the replay's state */
  const symIR = (s: Sym): string => {
    const st = standIn.get(s.name);
    if (st) return st.v;
    if (s.role === 'trip') throw new ReplayUnsupported('a trip count only the run knows');
    return s.name;
  };

  const reduction = (inner: LoopNode, out: Stmt[]): void => {
    if (inner.exits.some((x) => x !== 'skip' && x !== 'normal')) throw new ReplayUnsupported('an inner loop left by a break');
    const trip = info.trips.get(inner.site);
    if (!trip || (trip.k === 'sym' && trip.role === 'trip') || isState(trip)) throw new ReplayUnsupported('an inner loop whose trip count is not counted before the loop');
    const nodes = [...inner.body, ...inner.update];
    if (nodes.some((n) => n.k !== 'def')) throw new ReplayUnsupported('an inner loop with more than assignments');
    const defs = new Map(nodes.map((n) => [(n as { name: string }).name, n as Extract<SsaNode, { k: 'def' }>]));
    const k = T.sym(fresh('k'), 'index');
    // entry φ's: counters (p ± c, from an init free of the state) and accumulators (p ± e)
    const counters = new Map<string, Term>(); // stand-in → its value at iteration k
    const accs = new Map<string, { p: PhiNode; e: Expr; sign: 1 | -1 }>();
    for (const p of inner.entry) {
      if (p.args.length !== 2) throw new ReplayUnsupported('an inner loop that never reaches its back edge');
      const back = defs.get(p.args[1]);
      const v = back?.value;
      if (!v || v.k !== 'bin' || (v.op !== '+' && v.op !== '-')) throw new ReplayUnsupported(`${p.of} is not accumulated in the inner loop`);
      const isP = (x: Expr) => x.k === 'var' && x.name === p.name;
      const e = isP(v.a) ? v.b : v.op === '+' && isP(v.b) ? v.a : null;
      if (!e) throw new ReplayUnsupported(`${p.of} is not accumulated in the inner loop`);
      const init = info.terms.get(p.args[0]) ?? T.sym(p.args[0]);
      if (e.k === 'num' && !isState(init)) counters.set(p.name, simplify(T.add(init, T.mul(T.num(v.op === '-' ? -e.v : e.v), k))));
      else accs.set(p.name, { p, e, sign: v.op === '-' ? -1 : 1 });
    }
    // value terms at iteration k (indices), magnitude terms of the source's evaluation, its operations
    const valueT = (e: Expr): Term =>
      fromIR(e, {
        resolve: (n) => {
          if (counters.has(n)) return counters.get(n);
          if (accs.has(n) || stateSyms.has(T.sym(n))) throw new ReplayUnsupported('an index read from the state');
          const d = defs.get(n);
          if (d) return d.value ? valueT(d.value) : undefined;
          if (inLoop.has(n)) throw new ReplayUnsupported(`an inner loop reading ${n}, which the loop's body computes`);
          return info.terms.get(n) ?? T.sym(n);
        },
      });
    let ops = 0;
    const exactLeaf = (e: Expr): boolean => e.k === 'num' || e.k === 'len' || e.k === 'global' || (e.k === 'idx' && exactLeaf(e.index)) || (e.k === 'var' && (counters.has(e.name) || outside(e.name)));
    const mag = (e: Expr): Term => {
      switch (e.k) {
        case 'num':
          return T.num(Math.abs(e.v));
        case 'var': {
          if (counters.has(e.name)) return abs(counters.get(e.name)!);
          if (accs.has(e.name)) throw new ReplayUnsupported('an accumulator read inside its loop');
          const p = node.entry.find((q) => q.name === e.name);
          if (p) return magSym(p.name);
          const d = defs.get(e.name);
          if (d) return d.value ? mag(d.value) : ZERO;
          if (inLoop.has(e.name)) throw new ReplayUnsupported(`an inner loop reading ${e.name}, which the loop's body computes`);
          return abs(info.terms.get(e.name) ?? T.sym(e.name));
        }
        case 'global':
        case 'len':
          return abs(valueT(e));
        case 'idx':
          if (e.obj.k !== 'var' || inLoop.has(e.obj.name)) break;
          return abs(valueT(e));
        case 'un':
          if (e.op === '-' || e.op === '+') return mag(e.a);
          break;
        case 'bin':
          if (e.op === '+' || e.op === '-') {
            ops++;
            return T.add(mag(e.a), mag(e.b));
          }
          if (e.op === '*') {
            ops++;
            return T.mul(mag(e.a), mag(e.b));
          }
          if (e.op === '/' && exactLeaf(e.b)) {
            ops++;
            return T.div(mag(e.a), abs(valueT(e.b)));
          }
          break;
      }
      throw new ReplayUnsupported(`a reduction term the error bound does not cover (${e.k}${e.k === 'bin' || e.k === 'un' ? ` ${e.op}` : ''})`);
    };
    /** the absolute evaluation of a closed form (its own rounding's scale); refused where it is not a polynomial of the state */
    const absT = (t: Term): Term => {
      const memo = new Map<Term, Term>();
      const go = (x: Term): Term => {
        const hit = memo.get(x);
        if (hit) return hit;
        let out: Term | null = null;
        switch (x.k) {
          case 'num':
            out = T.num(Math.abs(x.v));
            break;
          case 'sym':
            out = stateSyms.has(x) ? magSym(x.name) : x.role === 'index' ? abs(x) : abs(x);
            break;
          case 'add':
            out = T.add(...x.args.map(go));
            break;
          case 'mul':
            out = T.mul(...x.args.map(go));
            break;
          case 'sum':
            // (the bounds and the index as they are: only the summands' magnitudes)
            out = T.sum(x.i, x.lo, x.hi, go(x.body));
            break;
          case 'at':
            out = abs(x);
            break;
          case 'div':
            if (isState(x.b)) throw new ReplayUnsupported('a closed form dividing by the state');
            out = T.div(go(x.a), abs(x.b));
            break;
          case 'pow':
            if (x.exp.k === 'num' && Number.isInteger(x.exp.v) && x.exp.v >= 0 && x.exp.v <= 16) out = T.pow(go(x.base), x.exp);
            break;
          case 'fn':
            if (!isState(x)) out = abs(x);
            break;
        }
        if (!out) throw new ReplayUnsupported(`a closed form whose rounding the bound does not cover (${x.k}${x.k === 'fn' ? ` ${x.fn}` : ''})`);
        memo.set(x, out);
        return out;
      };
      return go(t);
    };
    for (const x of inner.exit) {
      const entry = inner.entry.find((p) => p.of === x.of);
      const acc = entry && accs.get(entry.name);
      if (!acc) throw new ReplayUnsupported(`${x.of} after the inner loop is not an accumulator's`);
      // the accumulator starts from a value the replay has exactly (a number the body assigns, or from before the loop)
      const init = acc.p.args[0];
      const initDef = info.ssa.defs.get(init);
      const initNum = initDef && initDef.k === 'def' && initDef.value?.k === 'num';
      if (!outside(init) && !initNum) throw new ReplayUnsupported(`${x.of} starts the inner loop from a value the body computed`);
      const g = info.terms.get(x.name);
      if (!g) throw new ReplayUnsupported(`no closed form for ${x.of} after the inner loop`);
      ops = 0;
      const perK = mag(acc.e);
      const P = affineParts(simplify(T.add(abs(info.terms.get(init) ?? T.sym(init)), T.sum(k, ZERO, T.add(trip, T.num(-1)), perK))), node.entry.map((p) => magSym(p.name)));
      const G = affineParts(simplify(g), [...stateSyms.keys()]);
      const Gbar = simplify(absT(G));
      let nested = false;
      T.mapTerm(G, (y) => {
        if ((y.k === 'sum' || y.k === 'prod') && T.children(y.body).length && [...T.freeSyms(y.body)].some((s) => s.role === 'index' && s !== y.i)) nested = true;
        return y;
      });
      if (nested) throw new ReplayUnsupported('nested Σ in a reduction');
      // N: the roundings on a path, the trip count plus the operations (the source's body, the closed form's, the bound's)
      const nTerm = T.add(T.fn('Math.max', ZERO, trip), T.num(ops + T.size(G) + T.size(P) + T.size(Gbar) + 8));
      const gam = fresh('gamma');
      const [Ni, Gi, Pi, Gbi] = hoist([nTerm, G, P, Gbar]);
      const nLow = lowerTerms([Ni], fresh, { name: symIR });
      pre.push(...nLow.stmts);
      const nu: Expr = { k: 'bin', op: '*', a: nLow.values[0], b: nv(U * (1 + 1e-10)), ty: NUM };
      pre.push(decl(gam, { k: 'cond', c: cmpE('<', nu, nv(1e-3)), a: { k: 'bin', op: '/', a: nu, b: { k: 'bin', op: '-', a: nv(1), b: nu, ty: NUM }, ty: NUM }, b: nv(Infinity), ty: NUM }));
      // per iteration: the state's magnitudes |v| and |v| + ρ, the value, the bound
      const mLo = new Map<Term, Term>(), mHi = new Map<Term, Term>();
      for (const p of node.entry) {
        const ms = magSym(p.name);
        if (![Pi, Gbi].some((t) => T.dependsOn(t, ms))) continue;
        const st = standIn.get(p.name)!;
        const lo = fresh('mag');
        out.push(decl(lo, { k: 'intr', fn: 'Math.abs', args: [vr(st.v)], ty: NUM }));
        mLo.set(ms, T.sym(lo));
        if (st.r) {
          const hi = fresh('magHi');
          out.push(decl(hi, { k: 'bin', op: '+', a: vr(lo), b: vr(st.r), ty: NUM }));
          mHi.set(ms, T.sym(hi));
        } else mHi.set(ms, T.sym(lo));
      }
      const at = (t: Term, m: Map<Term, Term>) => [...m].reduce((acc2, [s, by]) => T.subst(acc2, s, by), t);
      const PHi = at(Pi, mHi), PLo = at(Pi, mLo), Gb = at(Gbi, mLo);
      const low = lowerTerms([Gi, PHi, PLo, Gb], fresh, { name: symIR });
      out.push(...low.stmts);
      const [gv, phi, plo, gb] = low.values.map((e, j) => bindV(e, out, ['red', 'magSum', 'magSum', 'magSum'][j]));
      const val = fresh(x.of.replace(/[^A-Za-z0-9_$]/g, '') || 'red');
      out.push(decl(val, gv));
      const g2: Expr = vr(gam);
      const mul = (a: Expr, b: Expr): Expr => ({ k: 'bin', op: '*', a, b, ty: NUM });
      const addE = (a: Expr, b: Expr): Expr => ({ k: 'bin', op: '+', a, b, ty: NUM });
      // [P(|v|+ρ) − P(|v|)]·(1 + 4u) + γ·(4·P(|v|+ρ) + 2·Ḡ(|v|)) + tiny: the exact bound is the spread
      // plus γ·(P(|v|+ρ) + Ḡ(|v|)); the spread as computed is off by at most 2γ·P(|v|+ρ) (each P to γ, N
      // counting P's operations) and a rounding, the rest by a factor 1 + γ at most: γ ≤ 10⁻³ leaves room
      const spread: Expr = { k: 'bin', op: '-', a: phi, b: plo, ty: NUM };
      const rad = fresh('radius');
      const bound = addE(addE(mul(spread, nv(1 + 4 * U)), mul(g2, addE(mul(nv(4), phi), mul(nv(2), gb)))), nv(TINY));
      // (P and Ḡ bound every partial sum and product of the source's and the replay's evaluations: below HUGE none overflows)
      out.push(decl(rad, bound));
      small(T.add(termOf(phi), termOf(gb)), out);
      env.set(x.name, { v: vr(val), r: T.sym(rad) });
    }
  };

  // ---- the loop, iteration by iteration
  const body: Stmt[] = [];
  const giveUp = (): Stmt[] => [set(ctx.fallback, { k: 'bool', v: true }), { k: 'break' }];
  const exitIs = (label: string) => node.exits.indexOf(label);
  const ends = (list: SsaNode[]) => list.length > 0 && list[list.length - 1].k === 'break';
  const walk = (list: SsaNode[], out: Stmt[]): void => {
    for (const n of list) {
      switch (n.k) {
        case 'def': {
          if (!n.value) throw new ReplayUnsupported(`${n.of} without a value`);
          const x = value(n.value, out);
          const name = fresh(n.of.replace(/[^A-Za-z0-9_$]/g, '') || 'v');
          out.push(decl(name, x.v));
          let r = x.r;
          if (r.k === 'sym' && [...standIn.values()].some((s) => s.r === (r as Sym).name)) {
            const rn = fresh('radius');
            out.push(decl(rn, vr(r.name)));
            r = T.sym(rn);
          }
          env.set(n.name, { v: vr(name), r });
          break;
        }
        case 'if': {
          const d = decide(n.cond, out);
          out.push({ k: 'if', c: cmpE('<', d, nv(0)), then: giveUp(), else: [] });
          const tb = ends(n.then), eb = ends(n.else);
          if (!tb && !eb && (n.then.length || n.else.length)) throw new ReplayUnsupported('a branch that does not leave the loop');
          // (a branch that leaves the loop has decided the exit: its checks made after that are dropped,
          // they are in its block; a branch that falls through is emitted after the test, its checks kept)
          const thenS: Stmt[] = [], elseS: Stmt[] = [];
          const before = pending;
          pending = [...before];
          walk(n.then, thenS);
          const afterThen = tb ? before : pending;
          pending = [...afterThen];
          walk(n.else, elseS);
          if (eb) pending = afterThen;
          if (tb && eb) out.push({ k: 'if', c: cmpE('===', d, nv(1)), then: thenS, else: elseS });
          else if (tb) out.push({ k: 'if', c: cmpE('===', d, nv(1)), then: thenS, else: [] }, ...elseS);
          else if (eb) out.push({ k: 'if', c: cmpE('===', d, nv(0)), then: elseS, else: [] }, ...thenS);
          break;
        }
        case 'break':
          out.push(set(ctx.exit, nv(exitIs(`break${n.index}`))), { k: 'break' });
          break;
        case 'loop':
          reduction(n, out);
          break;
        case 'phi':
          throw new ReplayUnsupported(`a φ inside the loop (${n.site})`);
        default:
          throw new ReplayUnsupported(`a ${n.k} inside the loop`);
      }
    }
  };
  const tripV = vr(ctx.trip, INT);
  const notTaken = (): Stmt[] => {
    const skip = exitIs('skip'), normal = exitIs('normal');
    const v: Expr = skip >= 0 && normal >= 0 ? { k: 'cond', c: cmpE('===', tripV, nv(0)), a: nv(skip), b: nv(normal), ty: INT } : nv(skip >= 0 ? skip : normal);
    return [set(ctx.exit, v), { k: 'break' }];
  };
  if (node.form !== 'do' && node.cond) {
    const d = decide(node.cond, body);
    body.push({ k: 'if', c: cmpE('<', d, nv(0)), then: giveUp(), else: [] });
    body.push({ k: 'if', c: cmpE('===', d, nv(0)), then: notTaken(), else: [] });
  }
  body.push({ k: 'assign', target: tripV, value: { k: 'bin', op: '+', a: tripV, b: nv(1), ty: INT }, op: '+', inc: true });
  walk(node.body, body);
  walk(node.update, body);
  if (node.form === 'do' && node.cond) {
    const d = decide(node.cond, body);
    body.push({ k: 'if', c: cmpE('<', d, nv(0)), then: giveUp(), else: [] });
    body.push({ k: 'if', c: cmpE('===', d, nv(0)), then: notTaken(), else: [] });
  }
  flush(body);
  // the back edge: the state takes the iteration's values (read first: one may be another's)
  const inexact: string[] = [];
  const nextV: [string, Expr, Term][] = [];
  for (const p of node.entry) {
    if (p.args.length < 2) continue;
    const x = env.get(p.args[1]);
    if (!x) throw new ReplayUnsupported(`${p.of} at the back edge is not computed`);
    if (x.r !== ZERO) inexact.push(p.name);
    nextV.push([p.name, x.v, x.r]);
  }
  for (const [p, v, r] of nextV) {
    const st = standIn.get(p)!;
    body.push(set(st.v, v));
    if (st.r) {
      const low = lowerTerms([r], fresh);
      body.push(...low.stmts, set(st.r, low.values[0]));
    }
  }
  const loopS: Stmt = { k: 'while', cond: { k: 'bool', v: true }, body };
  // (a for loop's initializer declares what the state starts from: the replay's own copy, in its block)
  const init = node.src.k === 'for' ? deepCopy(node.src.init) : [];
  return { stmts: [{ k: 'block', body: [...init, ...pre, loopS] }], inexact };
}
