// Traversal and dispatch: builds both sweeps of a statement list, sending each statement kind to the
// module that differentiates it (assignments, calls, loops, returns, checkpointed regions); branches
// are reversed here (the condition recorded on the tape, or evaluated again when it cannot have changed).
import { timed } from '../../ir/timing.js';
import type { Expr, Stmt, Ty } from '../../ir/types.js';
import { BOOL, forEachExpr, forEachStmt, INT } from '../../ir/util.js';
import { DerivNames } from '../context.js';
import { Names } from '../linearize.js';
import { TransformError } from '../tangent.js';
import { assign, deadAssign } from './assign.js';
import { arrayValueReads, call, usesTape } from './calls.js';
import { checkpointedCall, checkpointRegion } from './checkpoint.js';
import { type AdjointContext, hasDirective, primalNames, joinPairs, type Pair, tapeOp } from './context.js';
import { deadSignature, diffDead, readNames } from './liveness.js';
import { countedLoop } from './loops/counted.js';
import { loop } from './loops/reverse-loop.js';
import { pop, primalReads, push, tapePush, toBeRecorded } from './record.js';
import { isBwdFunction, numberFieldReads } from './field-reads.js';
import { ret } from './signature.js';

/** the function's adjoint variables: its derivative names and the seed of its result */
function adjointVars(cx: AdjointContext): Set<string> {
  const out = cx.b.given();
  if (cx.seedVar) out.add(cx.seedVar);
  return out;
}

// ---------- the two sweeps ----------
export function build(cx: AdjointContext): void {
  // (the number fields the backward sweep reads are those of the last round finished: found once, for
  // it, even when a later round throws)
  const last: { bwd: Stmt[] | null; adjoints: Set<string> } = { bwd: null, adjoints: new Set() };
  try {
    buildRounds(cx, (bwd) => {
      last.bwd = bwd;
      last.adjoints = adjointVars(cx);
    });
  } finally {
    if (last.bwd) cx.info.fieldReads.set(cx.name, numberFieldReads(last.bwd, last.adjoints, (n) => isBwdFunction(cx.info, n)));
  }
}

/** `roundDone` gets each round's backward statements (the fused iterations' too) */
function buildRounds(cx: AdjointContext, roundDone: (bwd: Stmt[]) => void): void {
  // The set of restored variables grows with the pops the backward sweep needs (their indices);
  // with TBR, which kills push is decided by the to-be-recorded analysis of the previous round.
  let lastPushes = '';
  let lastDead = '';
  for (let iter = 0; iter < 12; iter++) {
    // diff-liveness needs the backward sweep's reads: from the previous round
    cx.dead = cx.diffLiveness && iter > 0 ? diffDead(cx, cx.readsAt) : new Set();
    const deadSig = deadSignature(cx);
    cx.prevReadsAt = cx.readsAt;
    cx.readsAt = new Map();
    cx.inverted = new Set();
    cx.pushSites = [];
    cx.fusedBwds = [];
    cx.bwdLocals.clear();
    cx.loopDepth = 0;
    cx.names = new Names(primalNames(cx), cx.info.moduleNames);
    cx.tapeName = cx.names.fresh('tape');
    cx.b = new DerivNames(cx.info.naming.adjointSuffix, (x) => cx.names.fresh(x));
    cx.seedVar = cx.info.sigs.get(cx.name)!.derivResult ? cx.names.fresh('resultb') : null;
    const pair = seq(cx, cx.f.body);
    const reads = primalReads(cx, pair.bwd);
    let grew = false;
    // what fused iterations' backward halves read is restored there too, but never handed over
    const fusedReads = primalReads(cx, cx.fusedBwds.flat());
    if ([...fusedReads].some((r) => !cx.readsInFused.has(r))) grew = true;
    cx.readsInFused = fusedReads;
    for (const r of [...reads, ...fusedReads])
      if (!cx.restore.has(r)) {
        cx.restore.add(r);
        grew = true;
      }
    cx.built = { fwd: pair.fwd, bwd: pair.bwd };
    cx.readsInBwd = reads;
    roundDone([...pair.bwd, ...cx.fusedBwds.flat()]);
    // (a fused reduction's iterations run their backward sweeps inside the forward sweep)
    const values = cx.info.options.tbr ? arrayValueReads(cx, [...pair.bwd, ...cx.fusedBwds.flat()]) : null;
    if (values && cx.valueReads && [...values].some((v) => !cx.valueReads!.has(v))) grew = true;
    cx.valueReads = values;
    const deadStable = !cx.diffLiveness || (iter > 0 && deadSig === lastDead && deadSignature(cx, diffDead(cx, cx.readsAt)) === deadSig);
    lastDead = deadSig;
    if (cx.info.options.tbr) {
      cx.tbr = timed('tbr', () => toBeRecorded(cx));
      const pushes = cx.pushSites.join(',');
      if (!grew && pushes === lastPushes && iter > 0 && deadStable) return;
      lastPushes = pushes;
      continue;
    }
    if (!grew && deadStable) return;
  }
  // no fixed point with dead forward code: build again with every primal statement kept
  if (cx.diffLiveness) {
    cx.diffLiveness = false;
    buildRounds(cx, roundDone);
  }
}

export function seq(cx: AdjointContext, ss: Stmt[]): Pair {
  return joinPairs(stmtPairs(cx, ss));
}

/** the sweeps of each statement of a sequence */
export function stmtPairs(cx: AdjointContext, ss: Stmt[]): Pair[] {
  const pairs = ss.map((s) => stmt(cx, s));
  // `best = first(); for (…) if (d < best) best = d`: the first candidate's adjoint runs only when no
  // iteration was taken (else its seed is zero); it must leave the tape alone
  for (let k = 1; k < ss.length; k++) {
    const sel = pairs[k].selection;
    const init = ss[k - 1];
    if (!sel || sel.saved || sel.rerun.else.length) continue;
    const target = init.k === 'decl' && init.init ? init.name : init.k === 'assign' && init.target.k === 'var' ? init.target.name : null;
    const value = init.k === 'decl' ? init.init : init.k === 'assign' ? init.value : null;
    if (!target || !value || !sel.selected.has(target) || readNames(cx, value).some((v) => sel.selected.has(v))) continue;
    if (pairs[k - 1].fwd.some((x) => x.k === 'expr' && x.e.k === 'intr' && x.e.fn.startsWith('tape.')) || usesTape(cx, pairs[k - 1].bwd)) continue;
    sel.rerun.else = pairs[k - 1].bwd;
    pairs[k - 1] = { fwd: pairs[k - 1].fwd, bwd: [] };
  }
  return pairs;
}

function stmt(cx: AdjointContext, s: Stmt): Pair {
  const p = cx.dead.has(s) ? deadAssign(cx, s as Extract<Stmt, { k: 'decl' | 'assign' }>) : stmtPair(cx, s);
  // (source maps) both sweeps' statements sit at the statement they differentiate, unless placed otherwise; a copy, never the object
  if (s.loc) for (const x of [...p.fwd, ...p.bwd]) x.loc ??= { ...s.loc };
  if (s.k === 'decl' || s.k === 'assign' || s.k === 'expr' || s.k === 'return') cx.readsAt.set(s, primalReads(cx, p.bwd));
  return p;
}

function stmtPair(cx: AdjointContext, s: Stmt): Pair {
  if (cx.checkpointing !== s && checkpointedCall(cx, s)) return checkpointRegion(cx, [s], s);
  if (s.k === 'block' && isCheckpointBlock(s)) return checkpointRegion(cx, s.body, s);
  switch (s.k) {
    case 'decl':
    case 'assign':
      return assign(cx, s);
    case 'expr':
      if (s.e.k === 'call') return call(cx, s, s.e, null);
      if (s.e.k === 'intr' && s.e.fn === 'push') return push(cx, s, s.e);
      if (s.e.k === 'intr' && s.e.fn === 'pop') return pop(cx, s, s.e);
      if (s.e.k === 'intr' && (s.e.fn === 'tape.pushF' || s.e.fn === 'tape.pushR')) return tapePush(cx, s, s.e);
      return { fwd: [s], bwd: [] };
    case 'if':
      return ifStmt(cx, s);
    case 'for':
    case 'while':
    case 'do':
      return loop(cx, s);
    case 'block':
      return seq(cx, s.body);
    case 'return':
      return ret(cx, s);
    case 'throw':
      return { fwd: [s], bwd: [] };
    default:
      throw new TransformError(`'${s.k}' should have been lowered before the adjoint`, s);
  }
}

function ifStmt(cx: AdjointContext, s: Extract<Stmt, { k: 'if' }>): Pair {
  const t = seq(cx, s.then);
  const e = seq(cx, s.else);
  if (t.bwd.length === 0 && e.bwd.length === 0) return { fwd: [{ ...s, then: t.fwd, else: e.fwd }], bwd: [] };
  if (conditionHoldsInBwd(cx, s.c)) {
    // the backward sweep evaluates the condition again (it reads it at the branch, as a call its arguments)
    cx.readsAt.set(s, primalReads(cx, [{ k: 'expr', e: s.c }]));
    return { fwd: [{ ...s, then: t.fwd, else: e.fwd }], bwd: [{ k: 'if', c: s.c, then: t.bwd, else: e.bwd, loc: s.loc }] };
  }
  // Tapenade's control codes: 0 at the end of the then-branch, 1 at the end of the else-branch
  const push = (v: number): Stmt => ({ k: 'expr', e: tapeOp(cx, 'pushI', [{ k: 'num', v }]) });
  const fwd: Stmt = { ...s, then: [...t.fwd, push(0)], else: [...e.fwd, push(1)] };
  const branch = cx.names.fresh('branch');
  const bv: Expr = { k: 'var', name: branch, ty: INT };
  const bwd: Stmt[] = [
    { k: 'decl', name: branch, ty: INT, init: tapeOp(cx, 'popI', [], INT), konst: true },
    { k: 'if', c: { k: 'bin', op: '===', a: bv, b: { k: 'num', v: 0 }, ty: BOOL }, then: t.bwd, else: e.bwd, loc: s.loc },
  ];
  return { fwd: [fwd], bwd };
}

/**
 * Does a branch condition have the same value where the backward sweep reverses the branch? So when it
 * is arithmetic (no element, field, call or tape read) over numbers that cannot have changed: parameters
 * the function never assigns (the backward sweep gets the caller's values again) and indices of the
 * enclosing counted loops (their reversals set the index themselves; the body never writes it). Then
 * nothing is recorded: det's `if ((removed >> j & 1) === 0)`, one push and pop per column per minor.
 */
function conditionHoldsInBwd(cx: AdjointContext, c: Expr): boolean {
  const params = new Map(cx.f.params.map((p) => [p.name, p.ty]));
  const assigned = assignedNames(cx);
  let ok = true;
  forEachExpr(c, (x) => {
    if (!ok) return;
    if (x.k === 'var') ok = (params.has(x.name) && !assigned.has(x.name) && isScalar(params.get(x.name)!)) || countedIndex(cx, x.name);
    else ok = x.k === 'num' || x.k === 'bool' || x.k === 'un' || x.k === 'bin' || x.k === 'cond';
  });
  return ok;
}

function isScalar(ty: Ty): boolean {
  return ty.k === 'num' || ty.k === 'int' || ty.k === 'bool';
}

/** the names the function's body assigns or declares */
function assignedNames(cx: AdjointContext): Set<string> {
  const out = new Set<string>();
  forEachStmt(cx.f.body, (st) => {
    if (st.k === 'decl') out.add(st.name);
    else if (st.k === 'assign') {
      const root = st.target.k === 'var' ? st.target.name : null;
      if (root) out.add(root);
    }
  });
  return out;
}

/** is `name` the index of a loop around the statement being differentiated that is reversed as a counted loop? */
function countedIndex(cx: AdjointContext, name: string): boolean {
  return cx.loops.some((l) => l.k === 'for' && countedLoop(cx, l)?.index.name === name);
}

/** the block the front end makes of the statements between checkpoint-start and checkpoint-end */
function isCheckpointBlock(s: Extract<Stmt, { k: 'block' }>): boolean {
  return !s.label && hasDirective(s, 'checkpoint-region');
}
