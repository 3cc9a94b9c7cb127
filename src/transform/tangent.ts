// Tangent mode (f_d) and multi-directional tangent mode (f_dv), IR → IR (Tapenade §4.3, §4.7).
// The derivative statement of an assignment is placed just before a copy of it; calls are replaced by
// calls to the callee's tangent, which returns [value, tangent]. In vector mode every derivative gets an
// innermost direction dimension (scalars: Float64Array(nbdirs); innermost number arrays: flat with
// stride nbdirs, element i direction nd at [i * nbdirs + nd]) and derivative statements run in a
// loop over directions `nd`.
import { fuseDirectionLoops } from './direction-loops.js';
import { timed } from '../ir/timing.js';
import type { FuncActivity } from '../analysis/activity.js';
import { diffVars } from '../analysis/activity.js';
import { solveBackward, type Facts, type FlowResult } from '../analysis/dataflow.js';
import type { Expr, Func, LValue, Param, Stmt, Ty } from '../ir/types.js';
import { BOOL, INT, NUM, countedFor, declaredNames, fixForUpdates, hasFloat, isOptionalRead, isRef, settleForHeader, stmtExprs, tyOf } from '../ir/util.js';
import { DerivNames, derivTy, refNames, shadowDefault, tapeNames, zeroFloat32Shadow, type ProgramInfo } from './context.js';
import { customTangentFunc } from './custom.js';
import { hoistInvariantLoads } from './licm.js';
import { reused } from './reuse.js';
import { LinError, Names, linearize, tangentOf, type LinContext } from './linearize.js';

export type TangentMode = 'scalar' | 'vector';

export class TransformError extends Error {
  constructor(
    message: string,
    public node?: { loc?: { file: string; line: number; col: number } },
  ) {
    super(message);
  }
}

const EMPTY: Facts = new Set();

/** tangent liveness by function activity (TangentBuilder.tangentLiveness) */
const tangentLivenessOf = new WeakMap<FuncActivity, FlowResult>();

export function tangentFunc(info: ProgramInfo, name: string, mode: TangentMode): Func {
  if (info.func(name).custom) return customTangentFunc(info, name, mode); // a hand-written rule (custom.ts)
  // (a function and its callees unchanged since an earlier compile: its tangent then, reuse.ts)
  return reused(info, name, mode, () => {
    const built = new TangentBuilder(info, name, mode).build();
    return timed('licm', () => hoistInvariantLoads(built));
  });
}

export function tangentName(info: ProgramInfo, name: string, mode: TangentMode): string {
  return info.generatedName(name, mode === 'vector' ? info.naming.vectorFunc : info.naming.tangentFunc);
}

class TangentBuilder {
  private f: Func;
  private fa: FuncActivity;
  private names: Names;
  private d: DerivNames;
  private nb: Expr = { k: 'var', name: 'nbdirs', ty: INT };
  private nd: Expr = { k: 'var', name: 'nd', ty: INT };
  private vec: boolean;
  private hoisted: Stmt[] = [];
  private paramHasD = new Set<string>();

  constructor(
    private info: ProgramInfo,
    private name: string,
    mode: TangentMode,
  ) {
    this.f = info.func(name);
    this.fa = info.act(name)!;
    this.vec = mode === 'vector';
    this.names = new Names(declaredNames(this.f), info.moduleNames);
    if (this.vec) {
      this.nb = { k: 'var', name: this.names.fresh('nbdirs'), ty: INT };
      this.nd = { k: 'var', name: this.names.fresh('nd'), ty: INT };
    }
    this.d = new DerivNames(info.naming.tangentSuffix, (b) => this.names.fresh(b));
    this.idle = info.idleTapes.get(name) ?? new Set();
    this.tapes = tapeNames(this.f, this.idle);
    if (this.tapes.size && info.refTapes.has(name)) this.tapes = new Set([...this.tapes, ...refNames(this.f)]);
  }

  // ---------- activity queries ----------
  private rep(n: string): string {
    return this.fa.aliases.rep(n);
  }
  /** has derivative storage somewhere in this function */
  private hasD(n: string): boolean {
    // (an idle tape has nothing to differentiate, whatever activity says of it: analysis/idle-tapes.ts)
    if (this.idle.has(n)) return false;
    return this.fa.active.has(this.rep(n)) || this.paramHasD.has(n) || this.tapes.has(n);
  }
  private idle: ReadonlySet<string> = new Set();
  private tapes = new Set<string>();
  private variedIn(s: Stmt): Facts {
    return this.fa.varied.inOf.get(s) ?? EMPTY;
  }
  private usefulOut(s: Stmt): Facts {
    return this.fa.useful.outOf.get(s) ?? EMPTY;
  }
  private exprVaried(e: Expr, V: Facts): boolean {
    for (const v of diffVars(e, this.fa.aliases)) if (V.has(v)) return true;
    return false;
  }

  // ---------- derivative types and locations ----------
  dty(t: Ty): Ty {
    return derivTy(t, this.vec);
  }

  /** Derivative of a reference-typed expression (array, object), or null if it has none here. */
  private dwhole(e: Expr): Expr | null {
    switch (e.k) {
      case 'var':
        return this.hasD(e.name) ? { k: 'var', name: this.d.of(e.name), ty: this.dty(e.ty) } : null;
      case 'idx': {
        const o = this.dwhole(e.obj);
        return o && { k: 'idx', obj: o, index: e.index, ty: this.dty(e.ty) };
      }
      case 'field': {
        const o = this.dwhole(e.obj);
        return o && { k: 'field', obj: o, name: e.name, ty: this.dty(e.ty) };
      }
      case 'sub': {
        const o = this.dwhole(e.obj);
        if (!o) return null;
        const sc = (x: Expr): Expr => (this.vec ? { k: 'bin', op: '*', a: x, b: this.nb, ty: INT } : x);
        return { k: 'sub', obj: o, start: sc(e.start), end: e.end ? sc(e.end) : null, ty: this.dty(e.ty) };
      }
      default:
        return null;
    }
  }

  /** Derivative of a scalar location (variable, element, field) for direction nd in vector mode. */
  private dref(e: Expr): Expr | null {
    if (e.k === 'var') {
      if (!this.hasD(e.name)) return null;
      const v: Expr = { k: 'var', name: this.d.of(e.name), ty: this.dty(e.ty) };
      return this.vec ? { k: 'idx', obj: v, index: this.nd, ty: NUM } : v;
    }
    if (e.k === 'idx') {
      const o = this.dwhole(e.obj);
      if (!o) return null;
      // a tuple mixing arrays and numbers keeps each number's directions in an array of its own (derivTy)
      const objTy = tyOf(e.obj);
      if (this.vec && objTy.k === 'tuple' && derivTy(objTy, true).k === 'tuple') return { k: 'idx', obj: { k: 'idx', obj: o, index: e.index, ty: this.dty(NUM) }, index: this.nd, ty: NUM };
      const index: Expr = this.vec ? { k: 'bin', op: '+', a: { k: 'bin', op: '*', a: e.index, b: this.nb, ty: INT }, b: this.nd, ty: INT } : e.index;
      return { k: 'idx', obj: o, index, ty: NUM };
    }
    if (e.k === 'field') {
      const o = this.dwhole(e.obj);
      if (!o) return null;
      // (an optional field's derivative is optional too: read where the primal field is present, so asserted)
      const fld: Expr = { k: 'field', obj: o, name: e.name, ty: this.dty(e.ty), ...(isOptionalRead(e) ? { nn: true } : {}) };
      return this.vec ? { k: 'idx', obj: fld, index: this.nd, ty: NUM } : fld;
    }
    return null;
  }

  /**
   * The derivative a read of `e` contributes. An optional field absent from the primal object has no
   * derivative array in vector mode: it is read only where the field is present.
   */
  private dread(e: Expr): Expr | null {
    const d = this.dref(e);
    if (!d || !this.vec || e.k !== 'field' || tyOf(e).k !== 'opt') return d;
    return { k: 'cond', c: { k: 'bin', op: '!==', a: e, b: { k: 'undef' }, ty: BOOL }, a: d, b: this.zero(), ty: NUM };
  }

  private zero(): Expr {
    return { k: 'num', v: 0 };
  }

  /** zero derivative structure shaped like `e` */
  private zerosLike(e: Expr): Expr {
    // (the zeros of `zerosLike(x)` are shaped like x: `const xb = zerosLike(x)` in a gradient takes
    // `zerosLike(x)` as its tangent, not a copy of zeros made only to be copied)
    if (e.k === 'intr' && e.fn === 'zerosLike' && e.args.length === 1) e = e.args[0];
    const args = this.vec ? [e, this.nb] : [e];
    return zeroFloat32Shadow(e, this.vec ? this.nb : null) ?? { k: 'intr', fn: 'zerosLike', args, ty: this.dty(tyOf(e)) };
  }

  /** Wraps derivative statements in the direction loop (vector mode), `down` from the last direction. */
  private dirLoop(body: Stmt[], down = false): Stmt[] {
    if (!this.vec || body.length === 0) return body;
    const nd = this.nd as Extract<Expr, { k: 'var' }>;
    const one: Expr = { k: 'num', v: 1 };
    return [
      {
        k: 'for',
        init: [{ k: 'decl', name: nd.name, ty: INT, init: down ? { k: 'bin', op: '-', a: this.nb, b: one, ty: INT } : { k: 'num', v: 0 }, konst: false }],
        cond: down ? { k: 'bin', op: '>=', a: nd, b: { k: 'num', v: 0 }, ty: BOOL } : { k: 'bin', op: '<', a: nd, b: this.nb, ty: BOOL },
        update: [{ k: 'assign', target: nd, value: { k: 'bin', op: down ? '-' : '+', a: nd, b: one, ty: INT }, op: down ? '-' : '+', inc: true }],
        body,
      },
    ];
  }

  private linctx(s: Stmt, pre: Stmt[]): LinContext {
    const V = this.variedIn(s);
    // in loops, an element a partial reads is loaded once, for the tangent and the primal statement alike
    // (straight-line code keeps Tapenade's form, which reads it in both)
    return { varied: (e) => this.exprVaried(e, V), pre, names: this.names, bindLoads: this.loopDepth > 0 };
  }

  private lin(e: Expr, s: Stmt, pre: Stmt[]): { prim: Expr; d: Expr | null } {
    try {
      const ctx = this.linctx(s, pre);
      const n = linearize(e, ctx);
      return { prim: n.prim, d: tangentOf(n, (leaf) => this.dread(leaf), { ctx, bindTangents: !this.vec }) };
    } catch (err) {
      if (err instanceof LinError) throw new TransformError(err.message, err.node.loc ? err.node : s);
      throw err;
    }
  }

  // ---------- function ----------
  build(): Func {
    const sig = this.info.sigs.get(this.name)!;
    const params: Param[] = [];
    const entry: Stmt[] = [];
    this.f.params.forEach((p, i) => {
      params.push({ name: p.name, ty: p.ty, def: p.def });
      if (sig.derivParams[i]) {
        this.paramHasD.add(p.name);
        const dn = this.d.of(p.name);
        params.push({ name: dn, ty: this.dty(p.ty), def: shadowDefault(p.def, this.dty(p.ty)), role: 'tangent', of: p.name });
        const isIndep = this.fa.ctx.variedParams.has(p.name);
        if (isRef(p.ty) && !isIndep && p.ty.k !== 'tape' && this.name === this.info.head) {
          // an output-only array: its incoming derivative is meaningless (Tapenade's contract), so zero it
          entry.push({ k: 'expr', e: { k: 'intr', fn: 'zeroFill', args: [{ k: 'var', name: dn, ty: this.dty(p.ty) }], ty: { k: 'void' } } });
        } else if (!isRef(p.ty) && this.vec && this.assignsParam(p.name)) {
          // the caller's direction array must not be overwritten
          entry.push({ k: 'assign', target: { k: 'var', name: dn, ty: this.dty(p.ty) }, value: { k: 'intr', fn: 'copy', args: [{ k: 'var', name: dn, ty: this.dty(p.ty) }], ty: this.dty(p.ty) } });
        }
      } else if (hasFloat(p.ty) && this.hasD(p.name) && !isRef(p.ty)) {
        // a passive scalar parameter that becomes active in the body
        entry.push(this.declD(p.name, p.ty, null, false));
      } else if (isRef(p.ty) && this.hasD(p.name)) {
        entry.push({ k: 'decl', name: this.d.of(p.name), ty: this.dty(p.ty), init: this.zerosLike({ k: 'var', name: p.name, ty: p.ty }), konst: true });
      }
    });
    if (this.vec) params.push({ name: (this.nb as { name: string }).name, ty: INT, role: 'directions' });
    const body = this.stmts(this.f.body);
    const ret: Ty = sig.derivResult ? { k: 'tuple', elems: [this.f.ret, this.dty(this.f.ret)], ro: false } : this.f.ret;
    return {
      name: tangentName(this.info, this.name, this.vec ? 'vector' : 'scalar'),
      params,
      ret,
      body: this.vec ? fuseDirectionLoops(fixForUpdates([...this.hoisted, ...entry, ...body]), (this.nd as { name: string }).name, (this.nb as { name: string }).name) : fixForUpdates([...this.hoisted, ...entry, ...body]),
      exported: this.f.exported,
      loc: this.f.loc,
      comments: this.f.comments,
    };
  }

  private assignsParam(p: string): boolean {
    let found = false;
    const visit = (ss: Stmt[]) => {
      for (const s of ss) {
        if (s.k === 'assign' && s.target.k === 'var' && s.target.name === p) found = true;
        if (s.k === 'if') {
          visit(s.then);
          visit(s.else);
        } else if (s.k === 'for') {
          visit(s.init);
          visit(s.update);
          visit(s.body);
        } else if (s.k === 'while' || s.k === 'do' || s.k === 'block') visit(s.body);
        else if (s.k === 'switch') s.cases.forEach((c) => visit(c.body));
      }
    };
    visit(this.f.body);
    return found;
  }

  /** Declares the derivative of scalar `name`, initialised to `d` (or zero). */
  private declD(name: string, ty: Ty, d: Expr | null, konst: boolean): Stmt {
    const dn = this.d.of(name);
    if (!this.vec) return { k: 'decl', name: dn, ty: NUM, init: d ?? this.zero(), konst: konst && d !== null };
    void ty;
    this.hoisted.push({ k: 'decl', name: dn, ty: this.dty(NUM), init: { k: 'alloc', len: this.nb, fill: null, ty: this.dty(NUM) }, konst: true });
    return { k: 'block', body: [] }; // placeholder removed by caller
  }

  private stmts(body: Stmt[]): Stmt[] {
    const out: Stmt[] = [];
    for (const s of body) {
      const at = out.length;
      this.stmt(s, out);
      // (source maps) what a statement became sits at its position, unless placed otherwise; a copy, never the object
      if (s.loc) for (const x of out.slice(at)) x.loc ??= { ...s.loc };
    }
    return out;
  }

  private stmt(s: Stmt, out: Stmt[]): void {
    switch (s.k) {
      case 'decl':
      case 'assign':
        this.assignLike(s, out);
        return;
      case 'expr':
        if (s.e.k === 'call') this.call(s, s.e, null, out);
        else if (s.e.k === 'intr' && s.e.fn === 'push') this.push(s, s.e, out);
        else if (s.e.k === 'intr' && s.e.fn === 'pop') this.pop(s, s.e, out);
        else if (s.e.k === 'intr' && s.e.fn.startsWith('tape.push')) this.tapePush(s, s.e, out);
        else if (s.e.k === 'intr' && (s.e.fn === 'Tape.release' || s.e.fn === 'zeroFill' || s.e.fn === 'restoreInto' || s.e.fn === 'addInto')) this.runtimeStmt(s, s.e, out);
        else out.push(s);
        return;
      case 'if':
        out.push({ ...s, then: this.stmts(s.then), else: this.stmts(s.else) });
        return;
      case 'for':
        this.forLoop(s, out);
        return;
      case 'while':
      case 'do':
        this.loopDepth++;
        out.push({ ...s, body: this.stmts(s.body) });
        this.loopDepth--;
        return;
      case 'block':
        out.push({ ...s, body: this.stmts(s.body) });
        return;
      case 'switch':
        out.push({ ...s, cases: s.cases.map((c) => ({ tests: c.tests, body: this.stmts(c.body) })) });
        return;
      case 'return':
        this.ret(s, out);
        return;
      default:
        out.push(s);
    }
  }

  /**
   * A counted loop. The tangent of a float its header sets (`t = Math.tanh(c ? 0.5 : x)`) may need
   * constants (`const branch = c`), and in vector mode is a loop over the directions, neither of which
   * a header can hold: such an initialiser goes before the loop, in a block of its own (for its scope).
   */
  private forLoop(s: Extract<Stmt, { k: 'for' }>, out: Stmt[]): void {
    this.loopDepth++;
    const init = this.stmts(s.init);
    const update = this.stmts(s.update);
    const body = this.stmts(s.body);
    this.loopDepth--;
    const loop: Extract<Stmt, { k: 'for' }> = { ...s, init, update, body };
    out.push(settleForHeader(loop));
  }

  private assignLike(s: Extract<Stmt, { k: 'decl' | 'assign' }>, out: Stmt[]): void {
    const value = s.k === 'decl' ? s.init : s.value;
    const target: LValue = s.k === 'decl' ? { k: 'var', name: s.name, ty: s.ty } : s.target;
    const tty = s.k === 'decl' ? s.ty : s.target.ty;
    const root = target.k === 'var' ? target.name : rootName(target);
    if (value && value.k === 'call' && this.info.differentiated(value.fn)) {
      this.call(s, value, target, out);
      return;
    }
    if (value && value.k === 'intr' && (value.fn === 'tape.popF' || value.fn === 'tape.popR') && value.args[0].k === 'var' && this.hasD(value.args[0].name)) {
      this.tapePop(s, target, value, out);
      return;
    }
    if (!root || !hasFloat(tty) || tty.k === 'int' || !this.hasD(root)) {
      out.push(s);
      return;
    }
    if (isRef(tty)) {
      // an array or object: its derivative aliases, or is allocated like, the primal
      this.currentVaried = this.variedIn(s);
      const dv = value ? this.refDeriv(value, out) : null;
      this.currentVaried = null;
      if (target.k === 'var') {
        const dn = this.d.of(target.name);
        if (s.k === 'decl') out.push({ k: 'decl', name: dn, ty: this.dty(tty), init: dv ?? (value ? this.zerosLike(value) : null), konst: s.konst, loc: s.loc });
        else out.push({ k: 'assign', target: { k: 'var', name: dn, ty: this.dty(tty) }, value: dv ?? this.zerosLike(value!), loc: s.loc });
      } else {
        const dt = this.dwhole(target) as LValue | null;
        if (dt) out.push({ k: 'assign', target: dt, value: dv ?? this.zerosLike(value!), loc: s.loc });
      }
      out.push(s);
      return;
    }
    // a scalar location
    const V = this.variedIn(s);
    const U = this.usefulOut(s);
    const valueVaried = !!value && this.exprVaried(value, V);
    const rep = this.rep(root);
    if (value && value.k === 'intr' && value.fn === 'Math.hypotOf' && valueVaried && U.has(rep) && target.k === 'var') {
      this.hypotOfArray(s, target, value.args[0], out);
      return;
    }
    const pre: Stmt[] = [];
    let prim = value;
    let d: Expr | null = null;
    if (value && valueVaried && U.has(rep)) {
      const r = this.lin(value, s, pre);
      prim = r.prim;
      d = r.d;
    }
    const primal: Stmt = s.k === 'decl' ? { ...s, init: prim } : { ...s, value: prim! };
    if (s.k === 'decl') {
      out.push(...pre);
      if (this.vec) {
        this.declD(s.name, NUM, null, false);
        out.push(...this.dirLoop([{ k: 'assign', target: this.dref(target) as LValue, value: d ?? this.zero() }]));
      } else out.push(this.declD(s.name, NUM, d, s.konst));
      out.push(primal);
      return;
    }
    // a derivative that stops being varied is reset only if it is read again (after a merge); usefulness
    // is not enough to decide: a later passive redefinition kills usefulness but leaves the tangent as is.
    // An element of a plain array that has a tangent array gets a zero tangent where nothing varied is
    // written: the write may grow the array (`b = []; b[j] = 0`) and the tangent array has no element
    // there yet, for this function's later statements or for code it hands the tangent to (a tape).
    const objTy = target.k === 'idx' ? tyOf(target.obj) : null;
    const growable = target.k === 'idx' && objTy?.k === 'arr' && !objTy.typed && objTy.elem.k === 'num' && this.dwhole(target.obj) !== null;
    const needReset = ((V.has(rep) || valueVaried) && this.tangentLiveOut(s).has(rep)) || growable;
    if (d || needReset || (valueVaried && U.has(rep))) {
      const dt = this.dref(target) as LValue | null;
      out.push(...pre);
      if (dt) out.push(...this.dirLoop([{ k: 'assign', target: dt, value: d ?? this.zero(), loc: s.loc }]));
      out.push(primal);
      return;
    }
    out.push(s);
  }

  /**
   * `h = Math.hypot(...a)` (normalization gives it a variable of its own): the primal stays one n-ary
   * call, and ḣ = Σ aᵢ·ȧᵢ / h, 0 at the origin like the two-argument rule.
   */
  private hypotOfArray(s: Extract<Stmt, { k: 'decl' | 'assign' }>, target: LValue & { k: 'var' }, arr: Expr, out: Stmt[]): void {
    if (s.k === 'decl') {
      const d = this.declD(s.name, NUM, null, false);
      if (!this.vec) out.push(d);
    }
    const dt = this.dref(target) as LValue;
    const i = this.names.fresh('i');
    const elem: Expr = { k: 'idx', obj: arr, index: { k: 'var', name: i, ty: INT }, ty: NUM };
    const de = this.dref(elem);
    out.push(s);
    if (s.k !== 'decl' || this.vec) out.push(...this.dirLoop([{ k: 'assign', target: dt, value: this.zero() }]));
    if (de) out.push(countedFor(i, { k: 'len', obj: arr }, this.dirLoop([{ k: 'assign', target: dt, value: { k: 'bin', op: '+', a: dt, b: { k: 'bin', op: '*', a: elem, b: de, ty: NUM }, ty: NUM }, op: '+' }])));
    const atOrigin: Expr = { k: 'bin', op: '===', a: target, b: this.zero(), ty: BOOL };
    out.push(...this.dirLoop([{ k: 'assign', target: dt, value: { k: 'cond', c: atOrigin, a: this.zero(), b: { k: 'bin', op: '/', a: dt, b: target, ty: NUM }, ty: NUM } }]));
  }

  /** Tape pushes of generated code: tangents go on the derivative tape, in the same order. */
  private tapePush(s: Stmt, e: Extract<Expr, { k: 'intr' }>, out: Stmt[]): void {
    const [tape, v] = e.args;
    const td = this.dwhole(tape);
    if (!td || e.fn === 'tape.pushI') {
      out.push(s);
      return;
    }
    const op = (fn: string, x: Expr): Stmt => ({ k: 'expr', e: { k: 'intr', fn, args: [td, x], ty: { k: 'void' } } });
    if (e.fn === 'tape.pushR') {
      // (a checkpoint's `snapshot(m[i])` pushes the snapshot of the tangent beside it)
      const d = this.refDeriv(v, out) ?? this.zerosLike(v);
      out.push(op('tape.pushR', this.vec && !isRef(tyOf(v)) ? this.directionsCopy(d) : d), s);
      return;
    }
    let d: Expr | null = null;
    const pre: Stmt[] = [];
    let prim = v;
    if (this.exprVaried(v, this.variedIn(s))) {
      const r = this.lin(v, s, pre);
      d = r.d;
      prim = r.prim;
    }
    out.push(...pre);
    if (!this.vec) out.push(op('tape.pushF', d ?? this.zero()));
    // (vector mode: nbdirs floats, last direction first, so that the pops, first direction first, give
    // them back in order; an array per value pushed cost an allocation per push)
    else out.push(...this.dirLoop([op('tape.pushF', d ?? this.zero())], true));
    out.push({ ...s, e: { ...e, args: [tape, prim] } } as Stmt);
  }

  /**
   * A number pushed by reference (`tape.pushR(set ? r : undefined)`, a nullable number) has, in vector
   * mode, its directions in one buffer the function keeps updating: what goes on the tape is a copy of
   * it, or every pop would read the buffer's last directions.
   */
  private directionsCopy(d: Expr): Expr {
    if (d.k === 'cond') return { ...d, a: this.directionsCopy(d.a), b: this.directionsCopy(d.b) };
    if (d.k === 'var' || d.k === 'idx' || d.k === 'field') return { k: 'intr', fn: 'copy', args: [d], ty: tyOf(d) };
    return d;
  }

  /** Runtime calls of generated code: the same call on the derivatives. */
  private runtimeStmt(s: Stmt, e: Extract<Expr, { k: 'intr' }>, out: Stmt[]): void {
    // `restoreInto(x, tape.popR())` (a checkpoint restored): the tangent's snapshot comes off the
    // derivative tape, where tapePush put it, restored into x's tangent or dropped
    const popped = e.fn === 'restoreInto' && e.args[1]?.k === 'intr' && e.args[1].fn === 'tape.popR' ? e.args[1] : null;
    const td = popped ? this.dwhole(popped.args[0]) : null;
    if (popped && td) {
      const xd = this.dwhole(e.args[0]);
      const pop: Expr = { k: 'intr', fn: 'tape.popR', args: [td], ty: this.dty(tyOf(e.args[0])) };
      out.push({ k: 'expr', e: xd ? { ...e, args: [xd, pop] } : pop }, s);
      return;
    }
    const ds = e.args.map((a) => this.dwhole(a));
    if (ds.every((d) => d !== null)) out.push({ k: 'expr', e: { ...e, args: ds as Expr[] } });
    out.push(s);
  }

  /** `x = tape.popF()` / `x = tape.popR()`: the tangent comes off the derivative tape first. */
  private tapePop(s: Extract<Stmt, { k: 'decl' | 'assign' }>, target: LValue, value: Extract<Expr, { k: 'intr' }>, out: Stmt[]): void {
    const td = this.dwhole(value.args[0])!;
    const root = target.k === 'var' ? target.name : rootName(target);
    // (an integer typed array carries no float: its zero tangent comes off the derivative tape unused)
    const active = !!root && this.hasD(root) && hasFloat(target.ty);
    const isF = value.fn === 'tape.popF';
    const pop = (ty: Ty): Expr => ({ k: 'intr', fn: isF ? 'tape.popF' : 'tape.popR', args: [td], ty });
    // (vector mode: a float's tangent is nbdirs floats, tapePush)
    if (!active) out.push(...(isF ? this.dirLoop([{ k: 'expr', e: pop(NUM) }]) : [{ k: 'expr' as const, e: pop(this.dty(target.ty)) }]));
    else if (!isF) {
      if (s.k === 'decl') out.push({ k: 'decl', name: this.d.of(root!), ty: this.dty(target.ty), init: pop(this.dty(target.ty)), konst: s.konst });
      else out.push({ k: 'assign', target: this.dwhole(target) as LValue, value: pop(this.dty(target.ty)) });
    } else if (!this.vec) {
      if (s.k === 'decl') out.push({ k: 'decl', name: this.d.of(root!), ty: NUM, init: pop(NUM), konst: s.konst });
      else out.push({ k: 'assign', target: this.dref(target) as LValue, value: pop(NUM) });
    } else {
      if (s.k === 'decl') this.declD(root!, NUM, null, false);
      out.push(...this.dirLoop([{ k: 'assign', target: this.dref(target) as LValue, value: pop(NUM) }]));
    }
    out.push(s);
  }

  /** `a.push(v)`: the derivative array grows with it (by nbdirs entries in vector mode). */
  private push(s: Stmt, e: Extract<Expr, { k: 'intr' }>, out: Stmt[]): void {
    const [arr, v] = e.args;
    const root = rootName(arr);
    const ad = root && this.hasD(root) ? this.dwhole(arr) : null;
    if (!ad) {
      out.push(s);
      return;
    }
    const pushD = (x: Expr): Stmt => ({ k: 'expr', e: { k: 'intr', fn: 'push', args: [ad, x], ty: { k: 'void' } } });
    if (v.k === 'intr' && (v.fn === 'tape.popF' || v.fn === 'tape.popR') && v.args[0].k === 'var' && this.hasD(v.args[0].name)) {
      this.pushTapePop(s, v, pushD, out);
      return;
    }
    if (isRef(tyOf(v))) {
      this.currentVaried = this.variedIn(s);
      const d = this.refDeriv(v, out) ?? this.zerosLike(v);
      this.currentVaried = null;
      out.push(pushD(d), s);
      return;
    }
    const pre: Stmt[] = [];
    let prim = v;
    let d: Expr | null = null;
    if (this.exprVaried(v, this.variedIn(s))) {
      const r = this.lin(v, s, pre);
      prim = r.prim;
      d = r.d;
    }
    out.push(...pre, ...(this.vec ? this.dirLoop([pushD(d ?? this.zero())]) : [pushD(d ?? this.zero())]));
    out.push({ ...s, e: { ...e, args: [arr, prim] } } as Stmt);
  }

  /**
   * `a.push(tape.popF())` / `a.push(tape.popR())` (an adjoint putting back what a `pop` took): the
   * element's tangent comes off the derivative tape, as in `x = tape.popF()` (tapePop). The pop is
   * never evaluated twice.
   */
  private pushTapePop(s: Stmt, v: Extract<Expr, { k: 'intr' }>, pushD: (x: Expr) => Stmt, out: Stmt[]): void {
    const td = this.dwhole(v.args[0])!;
    const vty = tyOf(v);
    if (isRef(vty)) out.push(pushD({ k: 'intr', fn: 'tape.popR', args: [td], ty: this.dty(vty) }));
    // (vector mode: nbdirs floats, first direction first: tapePush)
    else out.push(...this.dirLoop([pushD({ k: 'intr', fn: 'tape.popF', args: [td], ty: NUM })]));
    out.push(s);
  }

  /** `a.pop()` (a statement: its value, if used, was read before it): the derivative array shrinks with it. */
  private pop(s: Stmt, e: Extract<Expr, { k: 'intr' }>, out: Stmt[]): void {
    const root = rootName(e.args[0]);
    const ad = root && this.hasD(root) ? this.dwhole(e.args[0]) : null;
    if (ad) {
      const popD: Stmt = { k: 'expr', e: { k: 'intr', fn: 'pop', args: [ad], ty: { k: 'void' } } };
      // (vector mode: a number has nbdirs entries to take off, a row or object one shadow)
      const at = tyOf(e.args[0]);
      out.push(...(this.vec && !(at.k === 'arr' && isRef(at.elem)) ? this.dirLoop([popD]) : [popD]));
    }
    out.push(s);
  }

  /** Derivative of the value of a reference-typed assignment. */
  private refDeriv(e: Expr, out: Stmt[]): Expr | null {
    switch (e.k) {
      case 'var':
      case 'idx':
      case 'field':
      case 'sub':
        return this.dwhole(e);
      case 'alloc': {
        const t = this.dty(e.ty);
        if (this.vec && t.k === 'arr' && t.elem.k === 'num') return { k: 'alloc', len: { k: 'bin', op: '*', a: e.len, b: this.nb, ty: INT }, fill: t.typed ? null : this.zero(), ty: t };
        return { k: 'alloc', len: e.len, fill: e.fill && tyOf(e.fill).k !== 'bool' ? this.zero() : null, ty: t };
      }
      case 'intr':
        if (e.fn === 'copy' || e.fn === 'snapshot') {
          const a = this.dwhole(e.args[0]);
          return a ? { k: 'intr', fn: e.fn, args: [a], ty: this.dty(e.ty) } : null;
        }
        if (e.fn === 'Tape.acquire') return e;
        return null;
      case 'cond': {
        const a = this.refDeriv(e.a, out) ?? this.zerosLike(e.a);
        const b = this.refDeriv(e.b, out) ?? this.zerosLike(e.b);
        return { k: 'cond', c: e.c, a, b, ty: this.dty(e.ty) };
      }
      case 'arrlit':
        return this.literalDeriv(e, out);
      case 'objlit':
        return this.literalDeriv(e, out);
      default:
        return null;
    }
  }

  private literalDeriv(e: Extract<Expr, { k: 'arrlit' | 'objlit' }>, out: Stmt[]): Expr {
    const parts = e.k === 'arrlit' ? e.elems.map((x, i) => ({ key: i as number | string, value: x })) : e.fields.map((f) => ({ key: f.name as number | string, value: f.value }));
    const t = this.dty(e.ty);
    // tangents of scalar parts are evaluated at the point of the enclosing statement
    const scalarD = (x: Expr): Expr | null => {
      const V = this.currentVaried ?? EMPTY;
      if (!this.exprVaried(x, V)) return null;
      const ctx: LinContext = { varied: (y) => this.exprVaried(y, V), pre: out, names: this.names };
      const n = linearize(x, ctx);
      return tangentOf(n, (leaf) => this.dread(leaf), { ctx, bindTangents: !this.vec });
    };
    if (!this.vec) {
      if (e.k === 'arrlit') return { k: 'arrlit', elems: e.elems.map((x) => (isRef(tyOf(x)) ? this.refDeriv(x, out) ?? this.zerosLike(x) : scalarD(x) ?? this.zero())), ty: t };
      // (an optional field the literal leaves out has no derivative either)
      const fields = (e.ty.k === 'obj' ? e.ty.fields : []).filter((f) => hasFloat(f.ty) && e.fields.some((x) => x.name === f.name));
      return {
        k: 'objlit',
        fields: fields.map((f) => {
          const v = e.fields.find((x) => x.name === f.name)!.value;
          return { name: f.name, value: isRef(tyOf(v)) ? this.refDeriv(v, out) ?? this.zerosLike(v) : scalarD(v) ?? this.zero() };
        }),
        ty: t,
      };
    }
    // vector mode: allocate, then fill per direction
    const tmp = this.names.fresh('litd');
    const tv: Expr = { k: 'var', name: tmp, ty: t };
    if (e.k === 'arrlit' && t.k === 'arr' && t.elem.k === 'num' && e.elems.every((x) => !isRef(tyOf(x)))) {
      out.push({ k: 'decl', name: tmp, ty: t, init: { k: 'alloc', len: { k: 'bin', op: '*', a: { k: 'num', v: e.elems.length }, b: this.nb, ty: INT }, fill: t.typed ? null : this.zero(), ty: t }, konst: true });
      const body: Stmt[] = [];
      parts.forEach((p) => {
        const d = scalarD(p.value);
        if (d) body.push({ k: 'assign', target: { k: 'idx', obj: tv, index: { k: 'bin', op: '+', a: { k: 'bin', op: '*', a: { k: 'num', v: p.key as number }, b: this.nb, ty: INT }, b: this.nd, ty: INT }, ty: NUM }, value: d });
      });
      out.push(...this.dirLoop(body));
      return tv;
    }
    const body: Stmt[] = [];
    if (e.k === 'arrlit' && e.elems.every((x) => isRef(tyOf(x)))) return { k: 'arrlit', elems: e.elems.map((x) => this.refDeriv(x, out) ?? this.zerosLike(x)), ty: t };
    if (e.k === 'arrlit') {
      // a tuple mixing arrays and numbers: each number's directions are an array of their own
      const elems = e.elems.map((x, k): Expr => {
        if (isRef(tyOf(x))) return this.refDeriv(x, out) ?? this.zerosLike(x);
        const d = scalarD(x);
        const elemTy = t.k === 'tuple' ? t.elems[k] : this.dty(NUM);
        if (d) body.push({ k: 'assign', target: { k: 'idx', obj: { k: 'idx', obj: tv, index: { k: 'num', v: k }, ty: elemTy }, index: this.nd, ty: NUM }, value: d });
        return { k: 'alloc', len: this.nb, fill: null, ty: this.dty(NUM) };
      });
      out.push({ k: 'decl', name: tmp, ty: t, init: { k: 'arrlit', elems, ty: t }, konst: true });
      out.push(...this.dirLoop(body));
      return tv;
    }
    const fields = (e.ty.k === 'obj' ? e.ty.fields : []).filter((f) => hasFloat(f.ty) && e.fields.some((x) => x.name === f.name));
    const init: Expr = {
      k: 'objlit',
      fields: fields.map((f) => {
        const v = e.fields.find((x) => x.name === f.name)!.value;
        if (isRef(tyOf(v))) return { name: f.name, value: this.refDeriv(v, out) ?? this.zerosLike(v) };
        const d = scalarD(v);
        if (d) body.push({ k: 'assign', target: { k: 'idx', obj: { k: 'field', obj: tv, name: f.name, ty: this.dty(NUM), ...(f.optional ? { nn: true } : {}) }, index: this.nd, ty: NUM }, value: d });
        return { name: f.name, value: { k: 'alloc', len: this.nb, fill: null, ty: this.dty(NUM) } };
      }),
      ty: t,
    };
    out.push({ k: 'decl', name: tmp, ty: t, init, konst: true });
    out.push(...this.dirLoop(body));
    return tv;
  }

  private currentVaried: Facts | null = null;
  private loopDepth = 0;

  /**
   * Tangent liveness (backward): the tangent of v is live where some later statement reads it, i.e.
   * uses v while v is varied there, before v is redefined.
   */
  private tangentLiveOut(s: Stmt): Facts {
    return this.tangentLiveness().outOf.get(s) ?? EMPTY;
  }

  /** found once per function's activity: the scalar and the vector tangent share it (it reads no mode) */
  private tangentLiveness(): FlowResult {
    let live = tangentLivenessOf.get(this.fa);
    if (!live) {
      const transfer = (st: Stmt, after: Facts): Facts => {
        const V = this.variedIn(st);
        let out = after;
        const def = st.k === 'decl' && !isRef(st.ty) ? st.name : st.k === 'assign' && st.target.k === 'var' && !isRef(st.target.ty) ? st.target.name : null;
        // a scalar assignment writes the tangent only if its value or its old tangent is varied
        const writesTangent = st.k === 'decl' || (st.k === 'assign' && (V.has(this.rep(def ?? '')) || this.exprVaried(st.value, V)));
        if (def && writesTangent && out.has(this.rep(def))) {
          out = new Set(out);
          out.delete(this.rep(def));
        }
        for (const e of stmtExprs(st))
          for (const v of diffVars(e, this.fa.aliases))
            if (V.has(v) && !out.has(v)) {
              if (out === after) out = new Set(out);
              out.add(v);
            }
        return out;
      };
      // the caller reads the tangents of array and object arguments after the call
      const exit = new Set(this.f.params.filter((p) => isRef(p.ty) && hasFloat(p.ty)).map((p) => this.rep(p.name)));
      live = solveBackward(this.f.body, exit, transfer);
      tangentLivenessOf.set(this.fa, live);
    }
    return live;
  }

  private call(s: Stmt, c: Extract<Expr, { k: 'call' }>, target: LValue | null, out: Stmt[]): void {
    if (!this.info.differentiated(c.fn)) {
      out.push(s);
      return;
    }
    const sig = this.info.sigs.get(c.fn)!;
    const g = this.info.func(c.fn);
    const V = this.variedIn(s);
    this.currentVaried = V;
    const pre: Stmt[] = [];
    const args: Expr[] = [];
    c.args.forEach((a, i) => {
      if (!sig.derivParams[i]) {
        args.push(a);
        return;
      }
      const pty = g.params[i].ty;
      if (isRef(pty)) {
        args.push(a);
        // (a copy or a literal written as the argument carries its source's tangent: `g(x.slice())`)
        args.push(this.refDeriv(a, pre) ?? this.zerosLike(a));
        return;
      }
      let prim = a;
      let d: Expr | null = null;
      if (this.exprVaried(a, V)) {
        const r = this.lin(a, s, pre);
        prim = r.prim;
        d = r.d;
      }
      args.push(prim);
      if (!this.vec) args.push(d ?? this.zero());
      else {
        // a direction array for this argument
        const simple = a.k === 'var' && this.hasD(a.name) && d !== null;
        if (simple) args.push({ k: 'var', name: this.d.of(a.name), ty: this.dty(NUM) });
        else {
          const tmp = this.names.fresh('argd');
          const t = this.dty(NUM);
          pre.push({ k: 'decl', name: tmp, ty: t, init: { k: 'alloc', len: this.nb, fill: null, ty: t }, konst: true });
          if (d) pre.push(...this.dirLoop([{ k: 'assign', target: { k: 'idx', obj: { k: 'var', name: tmp, ty: t }, index: this.nd, ty: NUM }, value: d }]));
          args.push({ k: 'var', name: tmp, ty: t });
        }
      }
    });
    if (this.vec) args.push(this.nb);
    const fn = tangentName(this.info, c.fn, this.vec ? 'vector' : 'scalar');
    const rty: Ty = sig.derivResult ? { k: 'tuple', elems: [g.ret, this.dty(g.ret)], ro: false } : g.ret;
    const call: Expr = { k: 'call', fn, args, ty: rty, loc: c.loc };
    out.push(...pre);
    this.currentVaried = null;
    if (!target) {
      out.push({ ...s, k: 'expr', e: call } as Stmt);
      return;
    }
    const root = target.k === 'var' ? target.name : rootName(target);
    const tActive = !!root && this.hasD(root) && hasFloat(target.ty);
    if (!sig.derivResult) {
      this.emitTarget(s, target, call, out);
      if (tActive && !isRef(target.ty)) {
        const dt = this.dref(target) as LValue | null;
        if (s.k === 'decl' && !this.vec) out.splice(out.length - 1, 0, this.declD(root!, NUM, null, false));
        else if (s.k === 'decl') this.declD(root!, NUM, null, false);
        else if (dt) out.splice(out.length - 1, 0, ...this.dirLoop([{ k: 'assign', target: dt, value: this.zero() }]));
      } else if (tActive) {
        const dn = this.dwhole(target);
        if (s.k === 'decl') out.push({ k: 'decl', name: this.d.of(root!), ty: this.dty(target.ty), init: this.zerosLike(target), konst: true });
        else if (dn) out.push({ k: 'assign', target: dn as LValue, value: this.zerosLike(target) });
      }
      return;
    }
    const res = this.names.fresh(`${c.fn}Res`);
    const rv: Expr = { k: 'var', name: res, ty: rty };
    out.push({ k: 'decl', name: res, ty: rty, init: call, konst: true, loc: s.loc });
    const val: Expr = { k: 'idx', obj: rv, index: { k: 'num', v: 0 }, ty: g.ret };
    const der: Expr = { k: 'idx', obj: rv, index: { k: 'num', v: 1 }, ty: this.dty(g.ret) };
    if (tActive) {
      if (isRef(target.ty)) {
        if (s.k === 'decl') out.push({ k: 'decl', name: this.d.of(root!), ty: this.dty(target.ty), init: der, konst: s.konst });
        else out.push({ k: 'assign', target: this.dwhole(target) as LValue, value: der });
      } else if (!this.vec) {
        if (s.k === 'decl') out.push({ k: 'decl', name: this.d.of(root!), ty: NUM, init: der, konst: s.konst });
        else out.push({ k: 'assign', target: this.dref(target) as LValue, value: der });
      } else {
        if (s.k === 'decl') this.declD(root!, NUM, null, false);
        out.push(...this.dirLoop([{ k: 'assign', target: this.dref(target) as LValue, value: { k: 'idx', obj: der, index: this.nd, ty: NUM } }]));
      }
    }
    this.emitTarget(s, target, val, out);
  }

  private emitTarget(s: Stmt, target: LValue, value: Expr, out: Stmt[]): void {
    if (s.k === 'decl') out.push({ ...s, init: value });
    else out.push({ k: 'assign', target, value, loc: s.loc, comments: s.comments });
  }

  private ret(s: Extract<Stmt, { k: 'return' }>, out: Stmt[]): void {
    const sig = this.info.sigs.get(this.name)!;
    if (!sig.derivResult || !s.e) {
      out.push(s);
      return;
    }
    const e = s.e;
    const rty: Ty = { k: 'tuple', elems: [this.f.ret, this.dty(this.f.ret)], ro: false };
    if (isRef(this.f.ret)) {
      this.currentVaried = this.variedIn(s);
      const d = this.refDeriv(e, out) ?? this.zerosLike(e);
      this.currentVaried = null;
      out.push({ ...s, e: { k: 'arrlit', elems: [e, d], ty: rty } });
      return;
    }
    const V = this.variedIn(s);
    const pre: Stmt[] = [];
    let prim = e;
    let d: Expr | null = null;
    if (this.exprVaried(e, V)) {
      const r = this.lin(e, s, pre);
      prim = r.prim;
      d = r.d;
    }
    out.push(...pre);
    if (!this.vec) {
      out.push({ ...s, e: { k: 'arrlit', elems: [prim, d ?? this.zero()], ty: rty } });
      return;
    }
    const tmp = this.names.fresh('resultd');
    const t = this.dty(NUM);
    out.push({ k: 'decl', name: tmp, ty: t, init: { k: 'alloc', len: this.nb, fill: null, ty: t }, konst: true });
    if (d) out.push(...this.dirLoop([{ k: 'assign', target: { k: 'idx', obj: { k: 'var', name: tmp, ty: t }, index: this.nd, ty: NUM }, value: d }]));
    out.push({ ...s, e: { k: 'arrlit', elems: [prim, { k: 'var', name: tmp, ty: t }], ty: rty } });
  }
}

function rootName(e: Expr): string | null {
  switch (e.k) {
    case 'var':
      return e.name;
    case 'idx':
    case 'field':
    case 'sub':
      return rootName(e.obj);
    default:
      return null;
  }
}


