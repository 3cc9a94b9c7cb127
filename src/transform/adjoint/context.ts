// The state of one function's adjoint while it is built (what the builder knows and accumulates),
// its construction, and the small queries over it every concern uses (activity, adjoint names, tape
// operations, statement positions).
import { callSites, diffVars, type FuncActivity } from '../../analysis/activity.js';
import type { Facts, FlowResult } from '../../analysis/dataflow.js';
import { type ScratchFields, scratchFields } from '../../analysis/scratch-fields.js';
import type { Expr, Func, Stmt, Ty } from '../../ir/types.js';
import { declaredNames, forEachStmt, hasDirectiveIn, TAPE, tyOf, VOID } from '../../ir/util.js';
import { DerivNames, derivTy, type ProgramInfo, refNames, tapeNames, zeroFloat32Shadow } from '../context.js';
import { Names } from '../linearize.js';
import { perFunction } from '../../ir/per-function.js';
import { build } from './traverse.js';
import { assignsVar } from './util.js';

/** What the builder of one function's adjoint knows and accumulates while it walks the body. */
export interface AdjointContext {
  readonly info: ProgramInfo;
  /** the function being differentiated */
  readonly name: string;
  /** this sweep's own tape: `tape`, or a fresh name when differentiating code that has one already */
  tapeName: string;
  f: Func;
  fa: FuncActivity;
  names: Names;
  b: DerivNames;
  restore: Set<string>; // primal variables the backward sweep reads
  bwdLocals: Map<string, Stmt>; // declarations local to the backward sweep
  loopDepth: number;
  paramHasB: Set<string>;
  built: { fwd: Stmt[]; bwd: Stmt[] } | null;
  readsInBwd: Set<string>;
  /** primal variables read by the backward halves of fused reduction iterations (in the forward sweep) */
  readsInFused: Set<string>;
  /** arrays (alias representatives) whose element values the backward sweep reads; null: unknown */
  valueReads: Set<string> | null;
  tapes: Set<string>;
  /** diff-liveness applies to a head no function calls, when its primal results need not be kept */
  diffLiveness: boolean;
  /** primal statements of the forward sweep that neither derivatives nor kept results need */
  dead: Set<Stmt>;
  /** backward reads per statement from the previous round (the TBR solution was computed from them) */
  prevReadsAt: Map<Stmt, Set<string>>;
  loopScoped: Set<string>;
  rerunLocals: Set<string>;
  /** the loops around the statement being differentiated, innermost last */
  loops: Stmt[];
  /** statements undone by their inverse: not kills for TBR (the old value stays recoverable) */
  inverted: Set<Stmt>;
  tbr: FlowResult | null;
  readsAt: Map<Stmt, Set<string>>;
  pushSites: string[];
  alwaysRestore: Set<string>;
  /** the head, called by no function: its forward sweep meets its backward sweep directly */
  topLevel: boolean;
  /** the statement being checkpointed: inside, it is differentiated in split mode */
  checkpointing: Stmt | null;
  positionMap: Map<Stmt, { list: Stmt[]; index: number; parent: Stmt | null }> | null;
  stableSet: Set<string> | null;
  /** arrays and objects (alias representatives) the function writes into, computed once */
  writtenSet: Set<string> | null;
  /** inside the body of a fused reduction loop: both sweeps of an iteration run back to back */
  inFused: boolean;
  /** the fused loop being built: its body and the variables private to an iteration */
  fused: { loop: Stmt; body: Stmt[]; private: Set<string>; pre: Stmt[]; post: Stmt[] } | null;
  /**
   * a counted loop directly in a fused iteration, reversed pass by pass in the same iteration: the
   * arrays a pass allocates afresh can be kept by pass across the fused iterations (reused-shadows.ts)
   */
  perPass: { loop: Extract<Stmt, { k: 'for' }>; pass: Expr } | null;
  /** backward sweeps of fused reduction iterations built this round (they sit in the forward sweep) */
  fusedBwds: Stmt[][];
  storedVars: Set<string> | null;
  storedStmts: Set<Stmt> | null;
  recomputed: Set<Stmt>;
  seedVar: string | null;
  retStmt: Extract<Stmt, { k: 'return' }> | null;
}

export interface Pair {
  fwd: Stmt[];
  bwd: Stmt[]; // in backward order
  /** a selection loop: its re-run of the last taken iteration, and the values it selects */
  selection?: { rerun: Extract<Stmt, { k: 'if' }>; selected: Set<string>; saved: boolean };
}

export const EMPTY: Facts = new Set();

const primalNameSets = new WeakMap<AdjointContext, ReadonlySet<string>>();

/** the names the primal function declares (parameters and locals), found once: the builder asks often */
export function primalNames(cx: AdjointContext): ReadonlySet<string> {
  let names = primalNameSets.get(cx);
  if (!names) primalNameSets.set(cx, (names = declaredNames(cx.f)));
  return names;
}

/** The context of `name`'s adjoint, with both sweeps built (the analyses that need them read `built`). */
export function createContext(info: ProgramInfo, name: string): AdjointContext {
  const f = info.func(name);
  const names = new Names(declaredNames(f), info.moduleNames);
  const tapeName = names.fresh('tape');
  const cx: AdjointContext = {
    info,
    name,
    tapeName,
    f,
    fa: info.act(name)!,
    names,
    b: new DerivNames(info.naming.adjointSuffix, (x) => names.fresh(x)),
    restore: new Set<string>(),
    bwdLocals: new Map<string, Stmt>(),
    loopDepth: 0,
    paramHasB: new Set<string>(),
    built: null,
    readsInBwd: new Set<string>(),
    readsInFused: new Set<string>(),
    valueReads: null,
    tapes: new Set<string>(),
    diffLiveness: false,
    dead: new Set<Stmt>(),
    prevReadsAt: new Map<Stmt, Set<string>>(),
    loopScoped: new Set<string>(),
    rerunLocals: new Set<string>(),
    loops: [],
    inverted: new Set<Stmt>(),
    tbr: null,
    readsAt: new Map<Stmt, Set<string>>(),
    pushSites: [],
    alwaysRestore: new Set<string>(),
    topLevel: false,
    checkpointing: null,
    positionMap: null,
    stableSet: null,
    writtenSet: null,
    inFused: false,
    fused: null,
    perPass: null,
    fusedBwds: [],
    storedVars: null,
    storedStmts: null,
    recomputed: new Set<Stmt>(),
    seedVar: null,
    retStmt: null,
  };
  const sig = info.sigs.get(name)!;
  cx.tapes = tapeNames(cx.f, info.idleTapes.get(name));
  if (cx.tapes.size && info.refTapes.has(name)) cx.tapes = new Set([...cx.tapes, ...refNames(cx.f)]);
  cx.f.params.forEach((p, i) => {
    if (sig.derivParams[i]) cx.paramHasB.add(p.name);
  });
  // written reference parameters are restored for the caller's backward sweep; a head that no
  // function calls has no such caller (its f_b puts back what the primal left in them)
  const w = info.activity.writes.get(name);
  cx.topLevel = name === info.head && !calledAnywhere(info, name);
  cx.diffLiveness = cx.topLevel && info.options.diffLiveness !== false;
  cx.f.params.forEach((p, i) => {
    if (w?.has(i) && !cx.topLevel) {
      cx.restore.add(p.name);
      cx.alwaysRestore.add(p.name);
    }
  });
  build(cx);
  return cx;
}

/** The names of the generated f_b, f_fwd and f_bwd of `name`. */
export function adjointNames(info: ProgramInfo, name: string) {
  return { b: info.generatedName(name, info.naming.adjointFunc), fwd: info.generatedName(name, info.naming.forwardFunc), bwd: info.generatedName(name, info.naming.backwardFunc) };
}

export function tapeVar(cx: AdjointContext): Expr {
  return { k: 'var', name: cx.tapeName, ty: TAPE };
}

export function tapeOp(cx: AdjointContext, op: string, args: Expr[], ty: Ty = VOID): Expr {
  return { k: 'intr', fn: `tape.${op}`, args: [tapeVar(cx), ...args], ty };
}

/** the module's scratch fields (analysis/scratch-fields.ts), found once per compile: stores ask often */
const scratchByInfo = new WeakMap<ProgramInfo, ScratchFields>();
export function scratchOf(cx: AdjointContext): ScratchFields {
  let s = scratchByInfo.get(cx.info);
  if (!s) scratchByInfo.set(cx.info, (s = scratchFields(cx.info.mod)));
  return s;
}

export function aliasRep(cx: AdjointContext, n: string) {
  return cx.fa.aliases.rep(n);
}

export function hasB(cx: AdjointContext, n: string): boolean {
  // (an idle tape has nothing to differentiate, whatever activity says of it: analysis/idle-tapes.ts)
  if (cx.info.idleTapes.get(cx.name)?.has(n)) return false;
  return cx.fa.active.has(aliasRep(cx, n)) || cx.paramHasB.has(n) || cx.tapes.has(n);
}

export function variedIn(cx: AdjointContext, s: Stmt): Facts {
  return cx.fa.varied.inOf.get(s) ?? EMPTY;
}

export function usefulOut(cx: AdjointContext, s: Stmt): Facts {
  return cx.fa.useful.outOf.get(s) ?? EMPTY;
}

export function exprVaried(cx: AdjointContext, e: Expr, V: Facts): boolean {
  for (const v of diffVars(e, cx.fa.aliases)) if (V.has(v)) return true;
  return false;
}

export function adjointTy(cx: AdjointContext, t: Ty): Ty {
  return derivTy(t, false);
}

export function bwhole(cx: AdjointContext, e: Expr): Expr | null {
  switch (e.k) {
    case 'var':
      return hasB(cx, e.name) ? { k: 'var', name: cx.b.of(e.name), ty: adjointTy(cx, e.ty) } : null;
    case 'idx': {
      const o = bwhole(cx, e.obj);
      return o && { k: 'idx', obj: o, index: e.index, ty: adjointTy(cx, e.ty) };
    }
    case 'field': {
      const o = bwhole(cx, e.obj);
      return o && { k: 'field', obj: o, name: e.name, ty: adjointTy(cx, e.ty) };
    }
    case 'sub': {
      const o = bwhole(cx, e.obj);
      return o && { k: 'sub', obj: o, start: e.start, end: e.end, ty: adjointTy(cx, e.ty) };
    }
    default:
      return null;
  }
}

export function zerosLike(cx: AdjointContext, e: Expr): Expr {
  return zeroFloat32Shadow(e, null) ?? { k: 'intr', fn: 'zerosLike', args: [e], ty: adjointTy(cx, tyOf(e)) };
}

/** a return inside a branch or loop: the end of the body is not the only exit */
export function endsWithReturnInside(cx: AdjointContext): boolean {
  return returnsInside(cx.f);
}

const returnsInside = perFunction((f) => {
  let inner = false;
  for (const st of f.body) if (st.k !== 'return') forEachStmt([st], (x) => {
    if (x.k === 'return') inner = true;
  });
  return inner;
});

/** the type of a local (its last declaration met walking the body, else the parameter's) */
export function tyOfLocal(cx: AdjointContext, name: string): Ty | undefined {
  return declaredTypes(cx.f).get(name) ?? cx.f.params.find((p) => p.name === name)?.ty;
}

/** each name declared in `f`'s body with the type of its last declaration in walk order */
const declaredTypes = perFunction((f) => {
  const out = new Map<string, Ty>();
  forEachStmt(f.body, (st) => {
    if (st.k === 'decl') out.set(st.name, st.ty);
  });
  return out as ReadonlyMap<string, Ty>;
});

/** where each statement sits: its statement list, its index there, the compound statement around it */
export function positions(cx: AdjointContext): Map<Stmt, { list: Stmt[]; index: number; parent: Stmt | null }> {
  if (cx.positionMap) return cx.positionMap;
  const m = new Map<Stmt, { list: Stmt[]; index: number; parent: Stmt | null }>();
  const walk = (list: Stmt[], parent: Stmt | null) =>
    list.forEach((st, index) => {
      m.set(st, { list, index, parent });
      if (st.k === 'if') {
        walk(st.then, st);
        walk(st.else, st);
      } else if (st.k === 'for') {
        walk(st.init, st);
        walk(st.body, st);
        walk(st.update, st);
      } else if (st.k === 'while' || st.k === 'do' || st.k === 'block') walk(st.body, st);
      else if (st.k === 'switch') for (const c of st.cases) walk(c.body, st);
    });
  walk(cx.f.body, null);
  return (cx.positionMap = m);
}

export function isIntVar(cx: AdjointContext, name: string): boolean {
  const t = tyOfLocal(cx, name);
  return t !== undefined && t.k === 'int';
}

export function assignedIn(cx: AdjointContext, body: Stmt[], name: string): boolean {
  return body.some((x) => assignsVar(x, name));
}

export function contains(cx: AdjointContext, body: Stmt[], st: Stmt): boolean {
  let found = false;
  forEachStmt(body, (x) => {
    if (x === st) found = true;
  });
  return found;
}

/** the sweeps of a statement sequence: forward parts in order, backward parts reversed */
export function joinPairs(pairs: Pair[]): Pair {
  const fwd: Stmt[] = [];
  const bwd: Stmt[] = [];
  for (const p of pairs) fwd.push(...p.fwd);
  for (let i = pairs.length - 1; i >= 0; i--) bwd.push(...pairs[i].bwd);
  return { fwd, bwd };
}

const calledNames = new WeakMap<ProgramInfo, Set<string>>();

/** does any function of the module call `name` (itself included)? (the called names are gathered once per program) */
function calledAnywhere(info: ProgramInfo, name: string): boolean {
  let called = calledNames.get(info);
  if (!called) {
    called = new Set<string>();
    for (const n of info.mod.order) for (const site of callSites(info.mod.funcs.get(n)!)) for (const c of site.calls) called.add(c.fn);
    calledNames.set(info, called);
  }
  return called.has(name);
}

/** a `// $ad <word>` directive among the comments of a statement or function */
export function hasDirective(node: { comments?: string[] }, word: string): boolean {
  return hasDirectiveIn(node.comments, word);
}
