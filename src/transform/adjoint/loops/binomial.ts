// Binomial checkpointing (`$ad binomial` loops): the loop state is saved at a few iterations
// (revolve schedule) and the iterations between them re-run forwards when the backward sweep reaches them.
import { stmtCalls } from '../../../analysis/activity.js';
import type { Expr, Stmt, Ty } from '../../../ir/types.js';
import { BOOL, directiveArgs, forEachStmt, INT, isRef, NUM, rootVar, VOID, WRITING_INTRINSICS } from '../../../ir/util.js';
import { TransformError } from '../../tangent.js';
import { type AdjointContext, type Pair, tapeOp } from '../context.js';
import { primalReads } from '../record.js';
import { seq } from '../traverse.js';
import { declaredInside, freshLocal, isFlatArray, primalCopy } from '../util.js';
import { countedLoop, forInit } from './counted.js';

/**
 * `// $ad binomial-ckp [s]` on a time-stepping loop (Griewank's Revolve): the forward sweep saves
 * the loop's state once and runs the plain primal loop; the backward sweep follows the binomial
 * schedule — primal steps re-run from s snapshots, each step taped and reversed just before its
 * adjoint — so the tape holds one step at a time and the snapshots s states, whatever the step count.
 */
export function binomialLoop(cx: AdjointContext, s: Extract<Stmt, { k: 'for' | 'while' | 'do' }>, slots: number): Pair {
  const counted = s.k === 'for' ? countedLoop(cx, s) : null;
  if (s.k !== 'for' || !counted)
    throw new TransformError(
      "'$ad binomial-ckp' needs a counted loop: write it as for (let t = a; t < b; t++) with t and b not assigned in the body and no break, continue or return inside",
      s,
    );
  const init = seq(cx, s.init);
  cx.loopDepth++;
  cx.loops.push(s);
  const body = seq(cx, s.body);
  cx.loopDepth--;
  cx.loops.pop();
  if (body.bwd.length === 0) return { fwd: forInit(cx, { ...s, init: init.fwd, body: body.fwd }, init), bwd: init.bwd };
  const state = loopState(cx, s);
  const i = counted.index;
  const step = counted.step;
  for (const n of declaredInside(s.body)) cx.loopScoped.add(n);
  cx.loopScoped.add(i.name);
  const num = (v: number): Expr => ({ k: 'num', v });
  const v = (name: string, ty: Ty): Extract<Expr, { k: 'var' }> => ({ k: 'var', name, ty });
  const exprSt = (e: Expr): Stmt => ({ k: 'expr', e });
  const primal = primalCopy(s.body);
  // forward sweep: the state before the loop, the first index and the step count go on the tape
  const stepsF = v(cx.names.fresh('adSteps'), INT);
  const fwd: Stmt[] = [...init.fwd];
  for (const x of state) fwd.push(exprSt(ckpSaveOp(cx, x, 'tape')));
  fwd.push(exprSt(tapeOp(cx, 'pushF', [i])));
  fwd.push({ k: 'decl', name: stepsF.name, ty: INT, init: num(0), konst: false });
  fwd.push({ ...s, init: [], body: [...primal, { k: 'assign', target: stepsF, value: { k: 'bin', op: '+', a: stepsF, b: num(1), ty: INT }, op: '+', inc: true }], comments: s.comments });
  fwd.push(exprSt(tapeOp(cx, 'pushI', [stepsF])));
  // backward sweep: the schedule, operation by operation
  const steps = v(cx.names.fresh('adSteps'), INT);
  const first = v(cx.names.fresh('adFirst'), NUM);
  const op = v(cx.names.fresh('adOp'), INT);
  const k = v(cx.names.fresh('adStep'), INT);
  const at = (kk: Expr): Stmt => ({ k: 'assign', target: i, value: { k: 'bin', op: '+', a: first, b: step === 1 ? kk : { k: 'bin', op: '*', a: kk, b: num(step), ty: INT }, ty: NUM } });
  const isOp = (n: number): Expr => ({ k: 'bin', op: '===', a: op, b: num(n), ty: BOOL });
  const advance: Stmt = {
    k: 'for',
    init: [{ k: 'decl', name: k.name, ty: INT, init: tapeOp(cx, 'ckpA', [], INT), konst: false }],
    cond: { k: 'bin', op: '<', a: k, b: tapeOp(cx, 'ckpB', [], INT), ty: BOOL },
    update: [{ k: 'assign', target: k, value: { k: 'bin', op: '+', a: k, b: num(1), ty: INT }, op: '+', inc: true }],
    body: [at(k), ...primalCopy(s.body)],
  };
  const save = state.map((x) => exprSt(ckpSaveOp(cx, x, 'ckp')));
  const load = state.flatMap((x) => ckpLoadOp(cx, x, 'ckp'));
  const turn: Stmt[] = [at(tapeOp(cx, 'ckpA', [], INT)), ...body.fwd, exprSt(tapeOp(cx, 'notePeak', [])), ...body.bwd];
  const schedule: Stmt = {
    k: 'for',
    init: [{ k: 'decl', name: op.name, ty: INT, init: tapeOp(cx, 'ckpNext', [], INT), konst: false }],
    cond: { k: 'bin', op: '!==', a: op, b: num(0), ty: BOOL },
    update: [{ k: 'assign', target: op, value: tapeOp(cx, 'ckpNext', [], INT) }],
    body: [
      {
        k: 'if',
        c: isOp(1),
        then: [advance],
        else: [{ k: 'if', c: isOp(2), then: save, else: [{ k: 'if', c: isOp(3), then: load, else: turn }] }],
        comments: ['// 1: advance (primal steps), 2: take a snapshot, 3: restore one, 4: tape one step and reverse it'],
      },
    ],
    loc: s.loc,
  };
  const bwd: Stmt[] = [
    { k: 'decl', name: steps.name, ty: INT, init: tapeOp(cx, 'popI', [], INT), konst: true },
    { k: 'decl', name: first.name, ty: NUM, init: tapeOp(cx, 'popF', [], NUM), konst: true },
    ...[...state].reverse().flatMap((x) => ckpLoadOp(cx, x, 'tape')),
    { ...exprSt(tapeOp(cx, 'ckpBegin', [steps, num(slots)])), comments: [`// $ad binomial-ckp: ${slots} snapshots`] },
    schedule,
    exprSt(tapeOp(cx, 'ckpFinish', [])),
    ...load,
    exprSt(tapeOp(cx, 'ckpEnd', [])),
    ...init.bwd,
  ];
  // the schedule re-runs primal steps: what they read must hold its value at the loop
  const reads = primalReads(cx, bwd);
  for (const x of state) reads.delete(x.name);
  for (const n of declaredInside(s.body)) reads.delete(n);
  reads.delete(i.name);
  cx.readsAt.set(s, reads);
  return { fwd, bwd };
}

/** Saving a state variable: on the tape (forward sweep) or in the current snapshot slot. */
function ckpSaveOp(cx: AdjointContext, x: Extract<Expr, { k: 'var' }>, where: 'tape' | 'ckp'): Expr {
  const flat = isFlatArray(x.ty);
  if (!isRef(x.ty)) {
    const val: Expr = x.ty.k === 'bool' ? { k: 'cond', c: x, a: { k: 'num', v: 1 }, b: { k: 'num', v: 0 }, ty: INT } : x;
    return where === 'tape' ? tapeOp(cx, 'pushF', [val]) : tapeOp(cx, 'ckpSaveF', [val]);
  }
  if (where === 'ckp' && flat) return tapeOp(cx, 'ckpSaveA', [x]);
  const copy: Expr = { k: 'intr', fn: 'snapshot', args: [x], ty: x.ty };
  return where === 'tape' ? tapeOp(cx, 'pushR', [copy]) : tapeOp(cx, 'ckpSaveR', [copy]);
}

/** Loading a state variable back, in place for arrays (references held elsewhere stay valid). */
function ckpLoadOp(cx: AdjointContext, x: Extract<Expr, { k: 'var' }>, where: 'tape' | 'ckp'): Stmt[] {
  if (!isRef(x.ty)) {
    const raw = where === 'tape' ? tapeOp(cx, 'popF', [], NUM) : tapeOp(cx, 'ckpLoadF', [], NUM);
    const val: Expr = x.ty.k === 'bool' ? { k: 'bin', op: '!==', a: raw, b: { k: 'num', v: 0 }, ty: BOOL } : raw;
    return [{ k: 'assign', target: x, value: val }];
  }
  if (where === 'ckp' && isFlatArray(x.ty)) return [{ k: 'expr', e: tapeOp(cx, 'ckpLoadA', [x]) }];
  const src = where === 'tape' ? tapeOp(cx, 'popR', [], x.ty) : tapeOp(cx, 'ckpLoadR', [], x.ty);
  return [{ k: 'expr', e: { k: 'intr', fn: 'restoreInto', args: [x, src], ty: VOID } }];
}

/**
 * The state of a checkpointed loop: variables declared before it that its body writes — scalars it
 * assigns, arrays and objects whose contents it changes (directly, through calls, through aliases).
 */
function loopState(cx: AdjointContext, s: Extract<Stmt, { k: 'for' }>): Extract<Expr, { k: 'var' }>[] {
  const inner = declaredInside(s.body);
  const tyOfName = new Map<string, Ty>();
  cx.f.params.forEach((p) => tyOfName.set(p.name, p.ty));
  forEachStmt(cx.f.body, (st) => {
    if (st.k === 'decl') tyOfName.set(st.name, st.ty);
  });
  const out = new Map<string, Ty>();
  const contents = (r: string | null, at: Stmt) => {
    if (!r) return;
    let root = r;
    if (inner.has(root)) {
      const rep = cx.fa.aliases.rep(root);
      if (freshLocal(s.body, root)) return;
      if (inner.has(rep) || rep === root)
        throw new TransformError(`'$ad binomial-ckp': cannot tell which array '${root}' writes into; write through the array declared outside the loop`, at);
      root = rep;
    }
    out.set(root, tyOfName.get(root) ?? NUM);
  };
  forEachStmt(s.body, (st) => {
    if (st.k === 'assign' && st.target.k === 'var' && !inner.has(st.target.name)) {
      if (isRef(st.target.ty))
        throw new TransformError(`'$ad binomial-ckp': the loop replaces the array '${st.target.name}'; update it in place (${st.target.name}[j] = …) so that snapshots can restore it`, st);
      out.set(st.target.name, st.target.ty);
    }
    if (st.k === 'assign' && st.target.k !== 'var') contents(rootVar(st.target), st);
    if (st.k === 'expr' && st.e.k === 'intr' && WRITING_INTRINSICS.has(st.e.fn)) contents(rootVar(st.e.args[0]), st);
    for (const c of stmtCalls(st)) {
      const w = cx.info.activity.writes.get(c.fn);
      c.args.forEach((a, j) => {
        if (w?.has(j)) contents(rootVar(a), st);
      });
    }
  });
  out.delete(cx.tapeName);
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, ty]) => ({ k: 'var', name, ty }));
}

/** The snapshot count of a `// $ad binomial-ckp [s]` directive on a loop, or null without one. */
export function binomialDirective(s: Stmt): number | null {
  for (const c of s.comments ?? []) {
    const args = directiveArgs(c, 'binomial-ckp');
    if (args === null) continue;
    const m = /^\s+(\d+)/.exec(args);
    return m ? Math.max(1, parseInt(m[1], 10)) : DEFAULT_SNAPSHOTS;
  }
  return null;
}

/** snapshots of a binomial-ckp loop that does not say how many */
const DEFAULT_SNAPSHOTS = 50;
