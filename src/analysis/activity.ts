// Activity analysis (Tapenade §4.6, §5.2): varied (forward from the independents) ∩ useful (backward from
// the dependents), flow-sensitive per statement, interprocedural by one context per function that is
// the union over its call sites. Arrays and objects are one variable each; local aliases of a
// reference (`const row = m[i]`) share the variable of what they alias.
import type { Expr, Func, LValue, Module, Stmt } from '../ir/types.js';
import { forEachExpr, forEachStmt, hasFloat, isRef, rootVar, tyOf, WRITING_INTRINSICS } from '../ir/util.js';
import { perFunction } from '../ir/per-function.js';
import { solveBackward, solveForward, type Facts, type FlowResult } from './dataflow.js';
import { type ScratchFields, scratchFields } from './scratch-fields.js';

const NON_DIFF_INTR = new Set([
  'Math.floor', 'Math.ceil', 'Math.round', 'Math.trunc', 'Math.sign', 'isFinite', 'isNaN', 'Number.isFinite',
  'Number.isNaN', 'Number.isInteger', 'zerosLike', 'tape.popI', 'Tape.acquire', 'indexOf', 'includes', 'sortOrder',
]);

/** Reference variables that may share storage, as union-find classes. */
export class Aliases {
  private parent = new Map<string, string>();
  /** with tape references kept apart (computeAliases' `popsApart`): a variable given one, whose class may be any parameter */
  popped: string | null = null;
  rep(n: string): string {
    let p = this.parent.get(n);
    if (p === undefined) return n;
    while (this.parent.has(p)) p = this.parent.get(p)!;
    this.parent.set(n, p);
    return p;
  }
  union(a: string, b: string): void {
    const ra = this.rep(a), rb = this.rep(b);
    if (ra === rb) return;
    // deterministic representative: the smaller name
    if (ra < rb) this.parent.set(rb, ra);
    else this.parent.set(ra, rb);
  }
}

/**
 * Alias classes of a function's references. `containers`: a reference stored into an array or object
 * joins the container's class (what writes through the container reach); without it, classes say only
 * which variables may be the same object (what a function returns, for returned-args.ts).
 * `popsApart`: references restored from a tape form a class of their own (`popped`) instead of joining
 * every parameter's, for an analysis that counts a write into that class as a write into any parameter.
 */
export function computeAliases(f: Func, containers = true, popsApart = false): Aliases {
  const al = new Aliases();
  const refParams = f.params.filter((p) => isRef(p.ty) && p.ty.k !== 'tape' && hasFloat(p.ty)).map((p) => p.name);
  // (the first variable given a reference restored from a tape: every other one may be the same array)
  let popped: string | null = null;
  const link = (name: string, value: Expr) => {
    // (a value that may be absent, `const o = opts!`, is the same object where it is present)
    const t = tyOf(value);
    if (!isRef(t) && !(t.k === 'opt' && isRef(t.base))) return;
    if (value.k === 'intr' && value.fn === 'tape.popR') {
      // a reference restored from a tape may be any array this function was given, or any other one
      // restored (a forward sweep pushes one array under two names: `thomb = yb` for a destructured parameter)
      if (!popsApart) for (const p of refParams) al.union(name, p);
      if (popped !== null) al.union(name, popped);
      else popped = name;
      al.popped = popped;
      return;
    }
    const visit = (e: Expr) => {
      const r = rootVar(e);
      if (r && (e.k === 'var' || e.k === 'idx' || e.k === 'field' || e.k === 'sub')) al.union(name, r);
      if (e.k === 'cond') {
        visit(e.a);
        visit(e.b);
      }
    };
    visit(value);
  };
  // a reference stored into a container (a literal's element or field, a pushed element, an element or
  // field store) is reached through the container too: `P.push(M[1]); P[0][1] = v` writes M's row
  const contain = (container: string, value: Expr) => {
    const visit = (e: Expr) => {
      if (e.k === 'arrlit') e.elems.forEach(visit);
      else if (e.k === 'objlit') e.fields.forEach((fl) => visit(fl.value));
      else if (e.k === 'cond') [e.a, e.b].forEach(visit);
      else if (isRef(tyOf(e)) && (e.k === 'var' || e.k === 'idx' || e.k === 'field' || e.k === 'sub')) {
        const r = rootVar(e);
        if (r) al.union(container, r);
      }
    };
    visit(value);
  };
  forEachStmt(f.body, (s) => {
    if (s.k === 'decl' && s.init) link(s.name, s.init);
    if (s.k === 'assign' && s.target.k === 'var') link(s.target.name, s.value);
    if (!containers) return;
    if (s.k === 'decl' && s.init && (s.init.k === 'arrlit' || s.init.k === 'objlit')) contain(s.name, s.init);
    if (s.k === 'assign') {
      const r = rootVar(s.target);
      if (r && (s.target.k !== 'var' || s.value.k === 'arrlit' || s.value.k === 'objlit')) contain(r, s.value);
    }
    if (s.k === 'expr' && s.e.k === 'intr' && s.e.fn === 'push') {
      const r = rootVar(s.e.args[0]);
      if (r) contain(r, s.e.args[1]);
    }
  });
  return al;
}

/** what only asks `rep` of alias classes: the classes `aliasesOf` shares may not be joined further */
export type AliasClasses = Pick<Aliases, 'rep'>;

const keptAliases = [perFunction((f) => computeAliases(f, false)), perFunction((f) => computeAliases(f, true))];
const keptPopsApart = perFunction((f) => computeAliases(f, true, true));

/** `computeAliases(f, containers)`, made once per function object (several whole-module analyses ask it) */
export function aliasesOf(f: Func, containers = true): AliasClasses {
  return keptAliases[containers ? 1 : 0](f);
}

/** Variables whose values flow differentiably into `e` (alias representatives). */
export function diffVars(e: Expr, al: AliasClasses, out: Set<string> = new Set()): Set<string> {
  const visit = (x: Expr): void => {
    switch (x.k) {
      case 'var':
        if (x.ty.k !== 'int' && hasFloat(x.ty)) out.add(al.rep(x.name));
        return;
      case 'bin':
        if (x.op === '+' || x.op === '-' || x.op === '*' || x.op === '/' || x.op === '%' || x.op === '**') {
          visit(x.a);
          visit(x.b);
        }
        return;
      case 'un':
        if (x.op === '-' || x.op === '+') visit(x.a);
        return;
      case 'cond':
        visit(x.a);
        visit(x.b);
        return;
      case 'intr':
        if (!NON_DIFF_INTR.has(x.fn)) x.args.forEach(visit);
        return;
      case 'call':
        // a passive function's result carries no derivative (a stop-gradient)
        if (x.custom !== 'passive') x.args.forEach(visit);
        return;
      case 'idx':
      case 'field':
      case 'sub':
        if (x.ty.k !== 'int' && hasFloat(x.ty)) visit(x.obj);
        return;
      case 'arrlit':
        x.elems.forEach(visit);
        return;
      case 'objlit':
        x.fields.forEach((f) => visit(f.value));
        return;
      default:
        return;
    }
  };
  visit(e);
  return out;
}

export interface ActivityContext {
  /** parameters whose derivative is given on entry */
  variedParams: Set<string>;
  /** derivative of the result is wanted */
  usefulResult: boolean;
  /** reference parameters whose derivative is wanted on exit */
  usefulParams: Set<string>;
}

export interface FuncActivity {
  ctx: ActivityContext;
  aliases: AliasClasses;
  varied: FlowResult;
  useful: FlowResult;
  /** variables (alias representatives) active at some point */
  active: Set<string>;
}

export interface ModuleSummary {
  /** reference parameters each function may write (transitively) */
  writes: Map<string, Set<number>>;
}

/** the last answer per function table and alias model, with the functions it was computed from (a table changed in place is computed again) */
const writesMemo = [false, true].map(() => new WeakMap<Module['funcs'], { order: readonly string[]; funcs: Func[]; writes: Map<string, Set<number>> }>());

/**
 * Reference parameters each function may write, transitively. Several passes ask it of one module:
 * answered once per module, each caller getting its own copy of the sets.
 * `popsApart`: in code that keeps references on a tape (differentiated code), a write through a
 * reference restored from the tape may write any parameter, but a write through a parameter writes
 * only that one. Without it a restored reference joins every parameter's class, so a write into any
 * one of them counts as a write into all: right for activity, too coarse to say which one is written.
 */
export function computeWrites(mod: Module, popsApart = false): Map<string, Set<number>> {
  const memo = writesMemo[popsApart ? 1 : 0];
  const kept = memo.get(mod.funcs);
  const funcs = mod.order.map((n) => mod.funcs.get(n)!);
  const same = kept && kept.order.length === mod.order.length && kept.order.every((n, i) => n === mod.order[i]) && kept.funcs.every((f, i) => f === funcs[i]);
  const writes = same ? kept.writes : computeWritesOnce(mod, popsApart);
  if (!same) memo.set(mod.funcs, { order: [...mod.order], funcs, writes });
  return new Map([...writes].map(([n, w]) => [n, new Set(w)]));
}

/** what a function writes by itself and what it passes to its calls (computeWrites' rounds change neither) */
interface OwnWrites {
  /** element and field stores: the variable stored through, and the target */
  stores: { root: string; target: LValue }[];
  /** variables a writing intrinsic (or a tape push) changes */
  intrinsics: string[];
  calls: readonly CallRoots[];
}

const ownWrites = perFunction((f): OwnWrites => {
  const out: OwnWrites = { stores: [], intrinsics: [], calls: callRoots(f) };
  forEachStmt(f.body, (s) => {
    if (s.k === 'assign' && s.target.k !== 'var') {
      const r = rootVar(s.target);
      if (r) out.stores.push({ root: r, target: s.target });
    }
    if (s.k === 'expr' && s.e.k === 'intr' && (WRITING_INTRINSICS.has(s.e.fn) || s.e.fn.startsWith('tape.push'))) {
      const r = rootVar(s.e.args[0]);
      if (r) out.intrinsics.push(r);
    }
  });
  return out;
});

function computeWritesOnce(mod: Module, popsApart: boolean): Map<string, Set<number>> {
  const own = new Map<string, { written: Set<string>; calls: OwnWrites['calls']; al: AliasClasses; popped: string | null }>();
  // (an instance's scratch contents are not state a caller sees: writing them writes nothing)
  const scratch = scratchFields(mod);
  for (const n of mod.order) {
    const f = mod.funcs.get(n)!;
    const apart = popsApart ? keptPopsApart(f) : null;
    const al: AliasClasses = apart ?? aliasesOf(f);
    const { stores, intrinsics, calls } = ownWrites(f);
    const written = new Set(intrinsics.map((r) => al.rep(r)));
    for (const st of stores) if (!writesScratch(st.target, scratch, n)) written.add(al.rep(st.root));
    own.set(n, { written, calls, al, popped: apart?.popped ?? null });
  }
  const writes = new Map<string, Set<number>>();
  for (const n of mod.order) writes.set(n, new Set());
  for (let changed = true; changed; ) {
    changed = false;
    for (const n of mod.order) {
      const f = mod.funcs.get(n)!;
      const { written: direct, calls, al, popped } = own.get(n)!;
      const rep = (v: string) => al.rep(v);
      const written = new Set(direct);
      for (const c of calls) {
        const w = writes.get(c.fn);
        if (!w) continue;
        c.roots.forEach((r, j) => {
          if (w.has(j) && r) written.add(rep(r));
        });
      }
      // (a write through a reference restored from the tape may be a write into any parameter)
      const anyParam = popped !== null && written.has(rep(popped));
      const mine = writes.get(n)!;
      f.params.forEach((p, j) => {
        if ((isRef(p.ty) || (p.ty.k === 'opt' && isRef(p.ty.base))) && (anyParam || written.has(rep(p.name))) && !mine.has(j)) {
          mine.add(j);
          changed = true;
        }
      });
    }
  }
  return writes;
}

/** does a store go into a scratch field's elements (`diff[j]` with `diff = self.centered`, or `self.centered[j]`)? */
export function writesScratch(target: Expr, scratch: ScratchFields, fn: string): boolean {
  if (target.k !== 'idx') return false;
  const obj = target.obj;
  if (obj.k === 'var') return scratch.aliases.get(fn)?.has(obj.name) ?? false;
  if (obj.k !== 'field') return false;
  const t = tyOf(obj.obj);
  return t.k === 'obj' && !!t.name && scratch.fields.has(`${t.name}.${obj.name}`);
}

/**
 * The functions `head` calls, transitively, itself included. `also` names more callees of a function
 * (or of a name the module lacks) than its call statements show.
 */
export function calledFrom(mod: Module, head: string, also?: (name: string, f: Func | undefined) => readonly string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [head];
  while (stack.length) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    const f = mod.funcs.get(n);
    if (f) for (const site of callSites(f)) for (const c of site.calls) stack.push(c.fn);
    if (also) stack.push(...also(n, f));
  }
  return seen;
}

export interface CallSite {
  s: Stmt;
  calls: Extract<Expr, { k: 'call' }>[];
}

/**
 * The statements of `f` that hold calls (nested ones included, in forEachStmt's order), each with its
 * calls; found once per function object (every compile's interprocedural passes ask it of every function).
 */
export const callSites: (f: Func) => readonly CallSite[] = perFunction((f) => {
  const found: CallSite[] = [];
  forEachStmt(f.body, (s) => {
    const calls = stmtCalls(s);
    if (calls.length) found.push({ s, calls });
  });
  return found;
});

/** a call: its callee, and the variable each argument is rooted in */
export interface CallRoots {
  fn: string;
  roots: (string | null)[];
}

/** every call of `f` (callSites' order) with its arguments' roots: what writes pass back to the caller */
export const callRoots: (f: Func) => readonly CallRoots[] = perFunction((f) => callSites(f).flatMap((site) => site.calls.map((c) => ({ fn: c.fn, roots: c.args.map(rootVar) }))));

/** the functions `f` calls, each once, in the order first met */
export function calleeNames(f: Func): string[] {
  return [...new Set(callSites(f).flatMap((site) => site.calls.map((c) => c.fn)))];
}

export function stmtCalls(s: Stmt): Extract<Expr, { k: 'call' }>[] {
  const out: Extract<Expr, { k: 'call' }>[] = [];
  const visit = (e: Expr) =>
    forEachExpr(e, (x) => {
      if (x.k === 'call') out.push(x);
    });
  switch (s.k) {
    case 'decl':
      if (s.init) visit(s.init);
      break;
    case 'assign':
      visit(s.target);
      visit(s.value);
      break;
    case 'expr':
      visit(s.e);
      break;
    case 'return':
      if (s.e) visit(s.e);
      break;
    case 'if':
      visit(s.c);
      break;
    case 'while':
    case 'do':
      visit(s.cond);
      break;
    case 'for':
      if (s.cond) visit(s.cond);
      break;
    default:
      break;
  }
  return out;
}

function targetOf(s: Stmt): { name: string; whole: boolean; value: Expr | null } | null {
  // a reference variable names storage it may share with others: defining it never kills them
  if (s.k === 'decl') return { name: s.name, whole: !isRef(s.ty), value: s.init };
  if (s.k === 'expr' && s.e.k === 'intr' && (s.e.fn === 'push' || s.e.fn === 'restoreInto' || s.e.fn === 'addInto' || s.e.fn === 'tape.pushF' || s.e.fn === 'tape.pushR')) {
    // writes into an array, an object or a tape, leaving the rest of it (a weak update)
    const r = rootVar(s.e.args[0]);
    return r ? { name: r, whole: false, value: s.e.args[1] } : null;
  }
  if (s.k === 'assign') {
    const r = rootVar(s.target);
    if (!r) return null;
    return { name: r, whole: s.target.k === 'var' && !isRef(s.target.ty), value: s.value };
  }
  return null;
}

function analyzeFunction(f: Func, ctx: ActivityContext, writes: Map<string, Set<number>>): FuncActivity {
  const al = aliasesOf(f);
  const callWrittenRoots = (s: Stmt): string[] => {
    const roots: string[] = [];
    for (const c of stmtCalls(s)) {
      const w = writes.get(c.fn);
      c.args.forEach((a, j) => {
        const r = rootVar(a);
        if (r && w?.has(j)) roots.push(al.rep(r));
      });
    }
    return roots;
  };

  const variedTransfer = (s: Stmt, inF: Facts): Facts => {
    if (s.k === 'return') return inF;
    const t = targetOf(s);
    const calls = stmtCalls(s);
    let anyVariedArg = false;
    for (const c of calls) for (const v of diffVars({ k: 'intr', fn: 'args', args: c.args, ty: { k: 'void' } }, al)) if (inF.has(v)) anyVariedArg = true;
    let out: Facts = inF;
    if (t) {
      const rep = al.rep(t.name);
      let isVaried = false;
      if (t.value) for (const v of diffVars(t.value, al)) if (inF.has(v)) isVaried = true;
      const tyIsInt = s.k === 'decl' ? s.ty.k === 'int' : s.k === 'assign' && s.target.ty.k === 'int';
      if (tyIsInt) isVaried = false;
      if (t.whole) {
        out = new Set(inF);
        if (isVaried) out.add(rep);
        else out.delete(rep);
      } else if (isVaried && !inF.has(rep)) {
        out = new Set(inF);
        out.add(rep);
      }
    }
    if (anyVariedArg) {
      const roots = callWrittenRoots(s);
      if (roots.some((r) => !out.has(r))) {
        out = new Set(out);
        roots.forEach((r) => out.add(r));
      }
    }
    return out;
  };

  const entry = new Set<string>();
  for (const p of f.params) if (ctx.variedParams.has(p.name) && hasFloat(p.ty)) entry.add(al.rep(p.name));
  const varied = solveForward(f.body, entry, variedTransfer);

  const usefulTransfer = (s: Stmt, after: Facts): Facts => {
    if (s.k === 'return') {
      if (!s.e || !ctx.usefulResult) return after;
      return union(after, diffVars(s.e, al));
    }
    const t = targetOf(s);
    let before: Facts = after;
    const writtenRoots = callWrittenRoots(s);
    let needed = writtenRoots.some((r) => after.has(r));
    if (t) {
      const rep = al.rep(t.name);
      const targetUseful = after.has(rep);
      if (t.whole) {
        before = new Set(after);
        before.delete(rep);
      }
      if (targetUseful && t.value) {
        before = union(before, diffVars(t.value, al));
        needed = true;
      }
    }
    if (needed) for (const c of stmtCalls(s)) if (c.custom !== 'passive') for (const a of c.args) before = union(before, diffVars(a, al));
    return before;
  };
  const exit = new Set<string>();
  for (const p of f.params) if (ctx.usefulParams.has(p.name)) exit.add(al.rep(p.name));
  const useful = solveBackward(f.body, exit, usefulTransfer);

  const active = new Set<string>();
  const collect = (m1: Map<Stmt, Facts>, m2: Map<Stmt, Facts>) => {
    for (const [s, vs] of m1) {
      const us = m2.get(s);
      if (us) for (const v of vs) if (us.has(v)) active.add(v);
    }
  };
  collect(varied.inOf, useful.inOf);
  collect(varied.outOf, useful.outOf);
  for (const p of f.params) {
    const r = al.rep(p.name);
    if (entry.has(r) && useful.boundary.has(r)) active.add(r);
    if (ctx.usefulParams.has(p.name) && varied.boundary.has(r)) active.add(r);
  }
  return { ctx, aliases: al, varied, useful, active };
}

/**
 * A function's analyses by function object, under the context and the callees' writes they were made
 * for: a fixpoint's later rounds, the adjoint's program (which shares most function objects) and the
 * next compile of an edited module (whose front end shares the unchanged functions) find most of them.
 */
const analysed = new WeakMap<Func, Map<string, FuncActivity>>();

function analyzeFunctionOnce(f: Func, ctx: ActivityContext, writes: Map<string, Set<number>>): FuncActivity {
  const callees = calleeNames(f);
  const sorted = (xs: Iterable<string | number>) => [...xs].map(String).sort().join(',');
  const key = `${sorted(ctx.variedParams)}|${ctx.usefulResult}|${sorted(ctx.usefulParams)}|${callees.map((n) => `${n}:${sorted(writes.get(n) ?? [])}`).join(';')}`;
  let byKey = analysed.get(f);
  if (!byKey) analysed.set(f, (byKey = new Map()));
  const hit = byKey.get(key);
  // (the context object is the analysis' own, which it may grow later: the result holds it, as a fresh analysis would)
  if (hit) return { ...hit, ctx };
  const fa = analyzeFunction(f, ctx, writes);
  if (byKey.size >= 8) byKey.clear();
  byKey.set(key, fa);
  return fa;
}

export interface ProgramActivity {
  funcs: Map<string, FuncActivity>;
  writes: Map<string, Set<number>>;
}

function union(a: Facts, b: Facts): Facts {
  if (b.size === 0) return a;
  const r = new Set(a);
  for (const x of b) r.add(x);
  return r;
}

/**
 * Interprocedural activity from the head's independents and dependents: each reachable function is
 * analyzed in the union of its call contexts, until no context grows.
 */
export function analyzeActivity(mod: Module, head: string, independents: string[], dependents: { result: boolean; params: string[] }): ProgramActivity {
  const writes = computeWrites(mod);
  const ctxs = new Map<string, ActivityContext>();
  ctxs.set(head, { variedParams: new Set(independents), usefulResult: dependents.result, usefulParams: new Set(dependents.params) });
  const results = new Map<string, FuncActivity>();
  for (let round = 0; round < 100; round++) {
    let grew = false;
    for (const name of mod.order) {
      const ctx = ctxs.get(name);
      if (!ctx) continue;
      const f = mod.funcs.get(name)!;
      // a function with a hand-written rule is not differentiated through its body (its callees neither)
      const rule = !!f.custom && !f.custom.passive;
      const fa = rule ? analyzeFunction({ ...f, body: [] }, ctx, writes) : analyzeFunctionOnce(f, ctx, writes);
      results.set(name, fa);
      if (rule) continue;
      // propagate contexts to callees (never into a passive one)
      for (const { s, calls } of callSites(f)) {
        for (const c of calls) {
          const g = mod.funcs.get(c.fn);
          if (!g || c.custom === 'passive') continue;
          let gctx = ctxs.get(c.fn);
          if (!gctx) {
            gctx = { variedParams: new Set(), usefulResult: false, usefulParams: new Set() };
            ctxs.set(c.fn, gctx);
            grew = true;
          }
          const vin = fa.varied.inOf.get(s) ?? new Set<string>();
          const uout = fa.useful.outOf.get(s) ?? new Set<string>();
          c.args.forEach((a, j) => {
            const p = g.params[j];
            if (!p) return;
            if ([...diffVars(a, fa.aliases)].some((v) => vin.has(v)) && !gctx!.variedParams.has(p.name)) {
              gctx!.variedParams.add(p.name);
              grew = true;
            }
            const r = rootVar(a);
            if (isRef(p.ty) && r && uout.has(fa.aliases.rep(r)) && !gctx!.usefulParams.has(p.name)) {
              gctx!.usefulParams.add(p.name);
              grew = true;
            }
          });
          const t = targetOf(s);
          const resultUseful = s.k === 'return' ? ctx.usefulResult : t ? uout.has(fa.aliases.rep(t.name)) : false;
          if (resultUseful && !gctx.usefulResult) {
            gctx.usefulResult = true;
            grew = true;
          }
        }
      }
    }
    if (!grew) break;
  }
  return { funcs: results, writes };
}
