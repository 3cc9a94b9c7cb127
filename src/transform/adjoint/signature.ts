// The generated functions: f_fwd and f_bwd (parameters, local and adjoint declarations, the values
// the forward sweep hands over to the backward one), the head's f_b, and the return statement's seed.
import { timed } from '../../ir/timing.js';
import { TransformError } from '../tangent.js';
import type { Expr, Func, LValue, Param, Stmt, Ty } from '../../ir/types.js';
import { BOOL, countedFor, fixForUpdates, forEachExpr, forEachOwnExpr, forEachStmt, INT, isRef, NUM, stmtExprs, TAPE, tyOf, VOID } from '../../ir/util.js';
import { fuseLoops } from '../fuse.js';
import { forwardElements } from '../forward-elements.js';
import { scratchAdjointZeros } from '../scratch-adjoints.js';
import { iterationLocalArrays } from '../locarrays.js';
import { iterationLocalScalars, mergeIncrements } from '../merge.js';
import { scalarizeLoops } from '../scalarize.js';
import { increments, linctx, linearizeAt, literalAdjoint } from './assign.js';
import { type AdjointContext, adjointNames, primalNames, adjointTy, aliasRep, bwhole, endsWithReturnInside, exprVaried, hasB, type Pair, scratchOf, tapeOp, tapeVar, variedIn } from './context.js';
import { shadowDefault } from '../context.js';
import { arithDefAtEnd, cheapDefBefore, shapeDefAtEnd } from './record.js';
import { storesReferences } from './references.js';
import { callLocalGiveBacks, zeroedBelowLoops } from './reused-shadows.js';

/** The (single, final) return: the seed flows into the returned expression. */
export function ret(cx: AdjointContext, s: Extract<Stmt, { k: 'return' }>): Pair {
  cx.retStmt = s;
  const seed = cx.seedVar;
  if (!seed || !s.e) return { fwd: [], bwd: [] };
  const sv: Expr = { k: 'var', name: seed, ty: adjointTy(cx, cx.f.ret) };
  if (isRef(cx.f.ret)) {
    if (s.e.k === 'arrlit' || s.e.k === 'objlit') return { fwd: [], bwd: literalAdjoint(cx, s, s.e, sv as LValue, false) };
    // a copy returned (`return w.slice()`) passes its adjoint on to what it copied
    const source = s.e.k === 'intr' && (s.e.fn === 'copy' || s.e.fn === 'snapshot') ? s.e.args[0] : s.e;
    const rb = bwhole(cx, source);
    if (!rb && source.k !== 'alloc' && exprVaried(cx, source, variedIn(cx, s)))
      throw new TransformError("tsad does not differentiate this returned array or object where it stands: name it first (`const r = …; return r;`)", s);
    return { fwd: [], bwd: rb ? [{ k: 'expr', e: { k: 'intr', fn: 'addInto', args: [rb, sv], ty: VOID } }] : [] };
  }
  if (!exprVaried(cx, s.e, variedIn(cx, s))) return { fwd: [], bwd: [] };
  const pre: Stmt[] = [];
  const ctx = linctx(cx, s, pre);
  const lin = linearizeAt(cx, s.e, s, pre);
  const incs: Stmt[] = [];
  increments(cx, lin, sv, ctx, incs);
  return { fwd: [], bwd: [...pre, ...incs] };
}

function seedName(cx: AdjointContext): string {
  return cx.seedVar!;
}

/** declarations of every local at function scope (the sweeps assign them) */
function localDecls(cx: AdjointContext, bodies: Stmt[][], skip: Set<string>): Stmt[] {
  const out: Stmt[] = [];
  const seen = new Set<string>(skip);
  // variables the sweeps declare themselves (counters, temporaries) are not hoisted
  for (const body of bodies)
    forEachStmt(body, (s) => {
      if (s.k === 'decl') seen.add(s.name);
    });
  const declare = (name: string, ty: Ty) => {
    if (seen.has(name)) return;
    seen.add(name);
    out.push({ k: 'decl', name, ty, init: zeroOf(ty), konst: false });
  };
  for (const body of bodies)
    forEachStmt(body, (s) => {
      if (s.k === 'assign' && s.target.k === 'var') declare(s.target.name, s.target.ty);
    });
  forEachStmt(cx.f.body, (s) => {
    if (s.k === 'decl') declare(s.name, s.ty);
  });
  return out;
}

function fwdParams(cx: AdjointContext): Param[] {
  const sig = cx.info.sigs.get(cx.name)!;
  const ps: Param[] = [{ name: cx.tapeName, ty: TAPE, role: 'tape' }];
  cx.f.params.forEach((p, i) => {
    ps.push({ name: p.name, ty: p.ty, def: p.def });
    if (sig.derivParams[i] && isRef(p.ty)) ps.push({ name: cx.b.of(p.name), ty: adjointTy(cx, p.ty), def: shadowDefault(p.def, adjointTy(cx, p.ty)), role: 'adjoint', of: p.name });
  });
  return ps;
}

export function forward(cx: AdjointContext): Func {
  const { fwd } = cx.built!;
  const params = fwdParams(cx);
  const paramNames = new Set(params.map((p) => p.name));
  // locals whose final value the backward sweep reads are handed over on the tape
  const handover = handoverValues(cx);
  const body: Stmt[] = [...localDecls(cx, [fwd], paramNames), ...fwd];
  for (const h of handover) {
    if (h.again) continue;
    if (h.kind === 'S') body.push(contentsHandover(cx, h.v, 'push'));
    else body.push({ k: 'expr', e: tapeOp(cx, h.kind === 'F' ? 'pushF' : h.kind === 'I' ? 'pushI' : 'pushR', [h.kind === 'I' ? { k: 'cond', c: h.v, a: { k: 'num', v: 1 }, b: { k: 'num', v: 0 }, ty: INT } : h.v]) });
  }
  const r = cx.retStmt;
  if (r && r.e) body.push({ k: 'return', e: r.e });
  dropIdleTapes(cx, body);
  // (fused iterations run adjoint code in the forward sweep)
  // (a loop update that became statements, `y = g(y)` recorded around its call, moves into the body)
  const fbody = zeroedBelowLoops(fixForUpdates(cx.info.options.merge !== false ? refineLoops(cx, body) : body));
  return { name: adjointNames(cx.info, cx.name).fwd, params, ret: cx.f.ret, body: fbody, exported: true, loc: cx.f.loc, comments: cx.f.comments };
}

/**
 * A scratch field's contents (analysis/scratch-fields.ts) at the end of the forward sweep, pushed
 * element by element, or popped back into the array in the backward sweep: other calls may have
 * written it in between, and nobody restores it for this one.
 */
function contentsHandover(cx: AdjointContext, a: Expr, dir: 'push' | 'pop'): Stmt {
  const z = cx.names.fresh('z');
  const zv: Expr = { k: 'var', name: z, ty: INT };
  const elem: LValue = { k: 'idx', obj: a, index: zv, ty: NUM };
  if (dir === 'push') return { ...countedFor(z, { k: 'len', obj: a }, [{ k: 'expr', e: tapeOp(cx, 'pushF', [elem]) }]), comments: ['// $ad scratch contents handed over: other calls write them before the backward sweep'] };
  return {
    k: 'for',
    init: [{ k: 'decl', name: z, ty: INT, init: { k: 'bin', op: '-', a: { k: 'len', obj: a }, b: { k: 'num', v: 1 }, ty: INT }, konst: false }],
    cond: { k: 'bin', op: '>=', a: zv, b: { k: 'num', v: 0 }, ty: BOOL },
    update: [{ k: 'assign', target: zv as LValue, value: { k: 'bin', op: '-', a: zv, b: { k: 'num', v: 1 }, ty: INT }, op: '-', inc: true }],
    body: [{ k: 'assign', target: elem, value: tapeOp(cx, 'popF', [], NUM) }],
  };
}

export function handoverValues(cx: AdjointContext): { v: Expr; kind: 'F' | 'I' | 'R' | 'S'; again?: Expr; chainAt?: number }[] {
  const out: { v: Expr; kind: 'F' | 'I' | 'R' | 'S'; again?: Expr; chainAt?: number }[] = [];
  const scratch = scratchOf(cx).aliases.get(cx.name);
  const locals = primalNames(cx);
  const needed = [...cx.readsInBwd].filter((n) => locals.has(n) && !cx.loopScoped.has(n)).sort();
  const tyOfName = new Map<string, Ty>();
  cx.f.params.forEach((p) => tyOfName.set(p.name, p.ty));
  // parameters the body never assigns arrive unchanged from the caller
  const assigned = new Set<string>();
  forEachStmt(cx.f.body, (s) => {
    if (s.k === 'decl') tyOfName.set(s.name, s.ty);
    if (s.k === 'assign' && s.target.k === 'var') assigned.add(s.target.name);
  });
  // adjoints of local arrays used by the backward sweep are handed over with them
  const usedB = new Set<string>();
  const use = (x: Expr) => {
    if (x.k === 'var') usedB.add(x.name);
  };
  forEachStmt(cx.built!.bwd, (s) => forEachOwnExpr(s, use));
  const isParam = (n: string) => cx.f.params.some((p) => p.name === n);
  // (a selection loop's re-run iteration allocates the adjoints of its own locals)
  // (nor does a checkpointed loop's taped step: its locals live inside it)
  // (a reference parameter the body rebinds ends the forward sweep holding another array than the
  // caller's, and so does its adjoint: both are handed over like a local's)
  const refLocals = [...locals].filter((n) => (!isParam(n) || assigned.has(n)) && !cx.rerunLocals.has(n) && !cx.loopScoped.has(n) && isRef(tyOfName.get(n) ?? NUM) && hasB(cx, n) && usedB.has(cx.b.of(n))).sort();
  // a final value from a cheap assignment of unchanging inputs is evaluated again, not handed over
  const recomputable = cx.info.options.recompute !== false && !endsWithReturnInside(cx);
  // …and one from arithmetic on such inputs and on other numbers handed over (record.ts arithDefAtEnd)
  const handedNumber = (n: string) => needed.includes(n) && (tyOfName.get(n)?.k === 'num' || tyOfName.get(n)?.k === 'int');
  for (const n of [...new Set([...needed, ...refLocals])].sort()) {
    const ty = tyOfName.get(n) ?? NUM;
    if (isParam(n) && !assigned.has(n)) continue;
    const v: Expr = { k: 'var', name: n, ty };
    const scalar = ty.k === 'num' || ty.k === 'int';
    const cheapAgain = needed.includes(n) && scalar && recomputable ? cheapDefBefore(cx, { list: cx.f.body, index: cx.f.body.length, parent: null }, n, true) : null;
    // (a reference or a length read again from unchanging parameters: `diff = self.centered`, `d = self.mean.length`)
    const shape = recomputable && (scalar || isRef(ty)) ? shapeDefAtEnd(cx, n) : null;
    const chain = !cheapAgain && !shape && needed.includes(n) && scalar && recomputable ? arithDefAtEnd(cx, n, handedNumber) : null;
    const again = cheapAgain ?? (needed.includes(n) ? shape : null) ?? chain?.e ?? null;
    // (a scratch field's contents go before the array itself: the backward sweep pops the array first)
    // (…unless nothing writes them between the two sweeps: analysis/scratch-handover.ts)
    if (needed.includes(n) && scratch?.has(n) && !cx.info.elidedScratch.has(scratch.get(n)!)) out.push({ v, kind: 'S' });
    if (needed.includes(n)) out.push({ v, kind: scalar ? 'F' : ty.k === 'bool' ? 'I' : 'R', ...(again ? { again } : {}), ...(chain && again === chain.e ? { chainAt: chain.at } : {}) });
    if (isRef(ty) && hasB(cx, n) && usedB.has(cx.b.of(n))) {
      // (the adjoint of a reference read again is the same read of the adjoints: `diffb = selfb.centered`)
      // (only from parameters whose adjoints are parameters too: the same arrays in both sweeps)
      const againB = shape && isRef(ty) && adjointParamsOnly(cx, shape) ? bwhole(cx, shape) : null;
      out.push({ v: { k: 'var', name: cx.b.of(n), ty: adjointTy(cx, ty) }, kind: 'R', ...(againB ? { again: againB } : {}) });
    }
  }
  return out;
}

/** does `e` read only parameters whose adjoints the sweeps take as parameters? */
function adjointParamsOnly(cx: AdjointContext, e: Expr): boolean {
  const sig = cx.info.sigs.get(cx.name)!;
  let ok = true;
  forEachExpr(e, (x) => {
    if (x.k !== 'var') return;
    const i = cx.f.params.findIndex((p) => p.name === x.name);
    if (i < 0 || !sig.derivParams[i] || !isRef(cx.f.params[i].ty)) ok = false;
  });
  return ok;
}

export function backward(cx: AdjointContext): Func {
  const sig = cx.info.sigs.get(cx.name)!;
  const { bwd } = cx.built!;
  const params: Param[] = [{ name: cx.tapeName, ty: TAPE, role: 'tape' }];
  cx.f.params.forEach((p, i) => {
    params.push({ name: p.name, ty: p.ty, def: p.def });
    if (sig.derivParams[i] && isRef(p.ty)) params.push({ name: cx.b.of(p.name), ty: adjointTy(cx, p.ty), def: shadowDefault(p.def, adjointTy(cx, p.ty)), role: 'adjoint', of: p.name });
  });
  const seed = sig.derivResult ? seedName(cx) : null;
  if (seed) params.push({ name: seed, ty: adjointTy(cx, cx.f.ret), role: 'seed' });
  const paramNames = new Set(params.map((p) => p.name));
  const body: Stmt[] = [];
  const handover = handoverValues(cx);
  for (let k = handover.length - 1; k >= 0; k--) {
    const h = handover[k];
    if (h.chainAt !== undefined) continue;
    if (h.again) {
      body.push({ k: 'assign', target: h.v as LValue, value: h.again });
      continue;
    }
    if (h.kind === 'S') {
      body.push(contentsHandover(cx, h.v, 'pop'));
      continue;
    }
    const pop = h.kind === 'F' ? tapeOp(cx, 'popF', [], NUM) : h.kind === 'I' ? { k: 'bin' as const, op: '===' as const, a: tapeOp(cx, 'popI', [], INT), b: { k: 'num' as const, v: 1 }, ty: BOOL } : tapeOp(cx, 'popR', [], h.v.k === 'var' ? h.v.ty : NUM);
    body.push({ k: 'assign', target: h.v as LValue, value: pop });
  }
  // final values evaluated again from final values: after the pops, in the order of their assignments
  for (const h of handover.filter((x) => x.chainAt !== undefined).sort((a, b) => a.chainAt! - b.chainAt!)) body.push({ k: 'assign', target: h.v as LValue, value: h.again! });
  const seedStmts: Stmt[] = [];
  const scalarB: Expr[] = [];
  cx.f.params.forEach((p, i) => {
    if (sig.derivParams[i] && !isRef(p.ty)) scalarB.push({ k: 'var', name: cx.b.of(p.name), ty: NUM });
  });
  // statement-level optimizations of the backward sweep: merged increments, then scalar replacement
  const optimized = cx.info.options.merge === false ? bwd : timed('merge', () => scalarizeLoops(mergeIncrements(bwd, storageClasses(cx)), storageClasses(cx), (base) => cx.names.fresh(base)));
  const allBodies = [body, seedStmts, optimized];
  const decls = localDecls(cx, allBodies, paramNames);
  // adjoint scalars start at zero; adjoints of local arrays arrive with the handover
  const adjDecls = adjointDecls(cx, allBodies, paramNames, new Set(decls.map((d) => (d as { name: string }).name)));
  // (the call's own arrays go back to the tape once nothing reads them: reused-shadows.ts callLocalArrays)
  const handedOver = new Set(handover.filter((h) => h.kind === 'R' && !h.again && h.v.k === 'var').map((h) => (h.v as { name: string }).name));
  let fbody: Stmt[] = [...decls, ...adjDecls, ...body, ...seedStmts, ...allBodies[2], ...callLocalGiveBacks(cx, handedOver)];
  // the return is in place before loops are refined: it reads the parameters' adjoints after every loop,
  // so none of them is local to a loop's iteration (a parameter overwritten in a loop kept the last
  // iteration's increment, its reset dropped as if nothing read it afterwards)
  if (scalarB.length === 1) fbody.push({ k: 'return', e: scalarB[0] });
  else if (scalarB.length > 1) fbody.push({ k: 'return', e: { k: 'arrlit', elems: scalarB, ty: { k: 'tuple', elems: scalarB.map(() => NUM), ro: false } } });
  dropIdleTapes(cx, fbody);
  if (cx.info.options.merge !== false) fbody = timed('merge', () => refineLoops(cx, fbody));
  fbody = zeroedBelowLoops(fixForUpdates(fbody));
  const ret: Ty = scalarB.length === 0 ? VOID : scalarB.length === 1 ? NUM : { k: 'tuple', elems: scalarB.map(() => NUM), ro: false };
  return { name: adjointNames(cx.info, cx.name).bwd, params, ret, body: fbody, exported: true, loc: cx.f.loc };
}

/** storage classes for merging: a variable and its adjoint map to the alias class of the primal */
/** iteration-local adjoint arrays and scalars (their resets go), then fused loops */
function refineLoops(cx: AdjointContext, body: Stmt[]): Stmt[] {
  const local = iterationLocalScalars(iterationLocalArrays(body, (base) => cx.names.fresh(base)));
  const known = storageClasses(cx);
  const names = new Set<string>();
  for (const n of primalNames(cx)) {
    names.add(n);
    if (hasB(cx, n)) names.add(cx.b.of(n));
  }
  const storage = (n: string) => (names.has(n) ? known(n) : null);
  if (cx.info.options.fuseLoops === false) return local;
  const forwarded = forwardElements(fuseLoops(local, storage), storage, (base) => cx.names.fresh(base));
  // (a scratch field's adjoint: its class is `scratch Class.field'b`)
  return scratchAdjointZeros(forwarded, (n) => {
    const c = storage(n);
    return c !== null && c.startsWith('scratch ') && c.endsWith("'b");
  });
}

export function storageClasses(cx: AdjointContext): (name: string) => string {
  const cls = new Map<string, string>();
  // (a scratch field's array is reached through its aliases only: a class of its own, `scratch Class.field`)
  const scratch = scratchOf(cx).aliases.get(cx.name);
  for (const n of primalNames(cx)) {
    const field = scratch?.get(n);
    const rep = field !== undefined ? `scratch ${field}` : aliasRep(cx, n);
    cls.set(n, rep);
    if (hasB(cx, n)) cls.set(cx.b.of(n), `${rep}'b`);
  }
  return (n) => cls.get(n) ?? n;
}

function adjointDecls(cx: AdjointContext, bodies: Stmt[][], skip: Set<string>, declared: Set<string>): Stmt[] {
  const out: Stmt[] = [];
  const seen = new Set([...skip, ...declared]);
  const bnames = new Map<string, Ty>();
  // every adjoint variable mentioned in the sweeps
  const primal = primalNames(cx);
  const tyOfName = new Map<string, Ty>();
  cx.f.params.forEach((p) => tyOfName.set(p.name, p.ty));
  forEachStmt(cx.f.body, (s) => {
    if (s.k === 'decl') tyOfName.set(s.name, s.ty);
  });
  for (const n of primal) if (hasB(cx, n)) bnames.set(cx.b.of(n), tyOfName.get(n) ?? NUM);
  for (const body of bodies)
    forEachStmt(body, (s) => {
      const visit = (e: Expr) =>
        forEachExpr(e, (x) => {
          if (x.k === 'var' && bnames.has(x.name) && !seen.has(x.name)) {
            seen.add(x.name);
            const t = bnames.get(x.name)!;
            out.push({ k: 'decl', name: x.name, ty: adjointTy(cx, t), init: zeroOf(adjointTy(cx, t)), konst: false });
          }
        });
      if (s.k === 'assign') {
        visit(s.target);
        visit(s.value);
      } else if (s.k === 'decl' && s.init) visit(s.init);
      else if (s.k === 'expr') visit(s.e);
      else if (s.k === 'if') visit(s.c);
    });
  for (const p of cx.f.params) {
    const bn = hasB(cx, p.name) ? cx.b.of(p.name) : null;
    if (bn && !isRef(p.ty) && !seen.has(bn)) {
      seen.add(bn);
      out.push({ k: 'decl', name: bn, ty: NUM, init: { k: 'num', v: 0 }, konst: false });
    }
  }
  return out;
}

/**
 * A local tape of the primal that no code records on (analysis/idle-tapes.ts), once its callees' sweeps
 * take the caller's own tape in its place (calls.ts): its declaration, `Tape.acquire()` and
 * `Tape.release` go from the sweep `body` (in place) when nothing else there names it.
 */
function dropIdleTapes(cx: AdjointContext, body: Stmt[]): void {
  const idle = cx.info.idleTapes.get(cx.name);
  if (!idle?.size) return;
  const params = new Set(cx.f.params.map((p) => p.name));
  const tapeOnly = (s: Stmt, n: string): boolean =>
    (s.k === 'decl' && s.name === n && (!s.init || (s.init.k === 'intr' && s.init.fn === 'Tape.acquire'))) ||
    (s.k === 'assign' && !s.op && s.target.k === 'var' && s.target.name === n && s.value.k === 'intr' && s.value.fn === 'Tape.acquire') ||
    (s.k === 'expr' && s.e.k === 'intr' && s.e.fn === 'Tape.release' && s.e.args.length === 1 && s.e.args[0].k === 'var' && s.e.args[0].name === n);
  for (const n of idle) {
    if (params.has(n) || n === cx.tapeName) continue;
    let used = false;
    forEachStmt(body, (s) => {
      if (used || tapeOnly(s, n)) return;
      for (const e of stmtExprs(s))
        forEachExpr(e, (x) => {
          if (x.k === 'var' && x.name === n) used = true;
        });
      if (s.k === 'assign' && s.target.k === 'var' && s.target.name === n) used = true;
    });
    if (used) continue;
    const prune = (list: Stmt[]): void => {
      for (let k = list.length - 1; k >= 0; k--) {
        const s = list[k];
        if (tapeOnly(s, n)) list.splice(k, 1);
        else forEachChildList(s, prune);
      }
    };
    prune(body);
  }
}

/** the statement lists directly inside `s` */
function forEachChildList(s: Stmt, f: (list: Stmt[]) => void): void {
  if (s.k === 'if') {
    f(s.then);
    f(s.else);
  } else if (s.k === 'for') {
    f(s.init);
    f(s.body);
    f(s.update);
  } else if (s.k === 'while' || s.k === 'do' || s.k === 'block') f(s.body);
  else if (s.k === 'switch') for (const c of s.cases) f(c.body);
}

/**
 * Does the forward sweep `body` only compute its result? No store outside its locals, no tape
 * operation, call, loop or throw: intrinsics of Math and Number only. Then `f_b`, which drops the
 * result, need not run it (the backward sweep computes what it needs: nothing was recorded).
 */
function onlyComputes(body: Stmt[]): boolean {
  let ok = true;
  forEachStmt(body, (s) => {
    if (s.k === 'throw' || s.k === 'for' || s.k === 'while' || s.k === 'do' || s.k === 'switch') ok = false;
    if (s.k === 'assign' && s.target.k !== 'var') ok = false;
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'call' || x.k === 'raw') ok = false;
        if (x.k === 'intr' && !/^(Math|Number)\.[a-zA-Z0-9]+$/.test(x.fn)) ok = false;
      });
  });
  return ok;
}

export function head(cx: AdjointContext, fwd: Func): Func {
  const sig = cx.info.sigs.get(cx.name)!;
  const nm = adjointNames(cx.info, cx.name);
  const params: Param[] = [];
  const fargs: Expr[] = [tapeVar(cx)];
  const bargs: Expr[] = [tapeVar(cx)];
  cx.f.params.forEach((p, i) => {
    params.push({ name: p.name, ty: p.ty, def: p.def });
    const pv: Expr = { k: 'var', name: p.name, ty: p.ty };
    fargs.push(pv);
    bargs.push(pv);
    if (sig.derivParams[i] && isRef(p.ty)) {
      const bn = cx.b.of(p.name);
      params.push({ name: bn, ty: adjointTy(cx, p.ty), def: shadowDefault(p.def, adjointTy(cx, p.ty)), role: 'adjoint', of: p.name });
      fargs.push({ k: 'var', name: bn, ty: adjointTy(cx, p.ty) });
      bargs.push({ k: 'var', name: bn, ty: adjointTy(cx, p.ty) });
    }
  });
  const body: Stmt[] = [{ k: 'decl', name: cx.tapeName, ty: TAPE, init: { k: 'intr', fn: 'Tape.acquire', args: [], ty: TAPE }, konst: true }];
  if (sig.derivResult) {
    const seed = seedName(cx);
    params.push({ name: seed, ty: adjointTy(cx, cx.f.ret), role: 'seed' });
    bargs.push({ k: 'var', name: seed, ty: adjointTy(cx, cx.f.ret) });
  }
  const w = cx.info.activity.writes.get(cx.name);
  // an output array whose rows the function moves (`A[i] = A[j]`): the caller's seed is laid out as the
  // output is, so it is set aside, and added back once the forward sweep has moved the shadow's rows too
  const seeds = storesReferences(cx.info, cx.f.body) ? cx.f.params.filter((p, i) => sig.derivParams[i] && isRef(p.ty) && w?.has(i)) : [];
  const seedCopies = seeds.map((p) => ({ b: { k: 'var', name: cx.b.of(p.name), ty: adjointTy(cx, p.ty) } as Expr, copy: cx.names.fresh(`${cx.b.of(p.name)}Seed`) }));
  for (const s of seedCopies) {
    body.push({ k: 'decl', name: s.copy, ty: tyOf(s.b), init: { k: 'intr', fn: 'snapshot', args: [s.b], ty: tyOf(s.b) }, konst: true });
    body.push({ k: 'expr', e: { k: 'intr', fn: 'zeroFill', args: [s.b], ty: VOID } });
  }
  // (a forward sweep that only computes the result, which f_b drops, is not run)
  if (seedCopies.length > 0 || !onlyComputes(fwd.body)) body.push({ k: 'expr', e: { k: 'call', fn: nm.fwd, args: fargs, ty: cx.f.ret } });
  for (const s of seedCopies) body.push({ k: 'expr', e: { k: 'intr', fn: 'addInto', args: [s.b, { k: 'var', name: s.copy, ty: tyOf(s.b) }], ty: VOID } });
  // the backward sweep restores arrays to their inputs: keep what the primal left in them
  const snaps: { p: Param; n: string }[] = [];
  cx.f.params.forEach((p, i) => {
    if (w?.has(i) && cx.info.options.primalResults !== false) {
      const n = cx.names.fresh(`${p.name}Out`);
      snaps.push({ p, n });
      body.push({ k: 'decl', name: n, ty: p.ty, init: { k: 'intr', fn: 'snapshot', args: [{ k: 'var', name: p.name, ty: p.ty }], ty: p.ty }, konst: true });
    }
  });
  const scalarCount = cx.f.params.filter((p, i) => sig.derivParams[i] && !isRef(p.ty)).length;
  const rty: Ty = scalarCount === 0 ? VOID : scalarCount === 1 ? NUM : { k: 'tuple', elems: Array(scalarCount).fill(NUM), ro: false };
  const bcall: Expr = { k: 'call', fn: nm.bwd, args: bargs, ty: rty };
  const resName = cx.names.fresh('adjoints');
  if (scalarCount) body.push({ k: 'decl', name: resName, ty: rty, init: bcall, konst: true });
  else body.push({ k: 'expr', e: bcall });
  for (const s of snaps) body.push({ k: 'expr', e: { k: 'intr', fn: 'restoreInto', args: [{ k: 'var', name: s.p.name, ty: s.p.ty }, { k: 'var', name: s.n, ty: s.p.ty }], ty: VOID } });
  body.push({ k: 'expr', e: { k: 'intr', fn: 'Tape.release', args: [tapeVar(cx)], ty: VOID } });
  if (scalarCount) body.push({ k: 'return', e: { k: 'var', name: resName, ty: rty } });
  return { name: nm.b, params, ret: rty, body, exported: true, loc: cx.f.loc, comments: cx.f.comments };
}




function zeroOf(t: Ty): Expr | null {
  switch (t.k) {
    case 'num':
    case 'int':
      return { k: 'num', v: 0 };
    case 'bool':
      return { k: 'bool', v: false };
    default:
      return null;
  }
}
