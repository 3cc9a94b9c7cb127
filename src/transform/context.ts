// What every derivative transformation needs to know about the program: the activity of each function,
// which parameters of each differentiated function carry derivatives, and the naming scheme.
import type { FuncActivity, ProgramActivity } from '../analysis/activity.js';
import type { Expr, Func, Module, Param, Stmt, Ty } from '../ir/types.js';
import { customSignature } from './custom.js';
import type { FieldReads } from './adjoint/field-reads.js';
import { INT, NUM, forEachExpr, forEachStmt, hasFloat, isRef, stmtExprs, tyOf } from '../ir/util.js';
import { idleTapes } from '../analysis/idle-tapes.js';
import { perFunction } from '../ir/per-function.js';

export interface Naming {
  tangentSuffix: string; // xd
  adjointSuffix: string; // xb
  tangentFunc: string; // f_d
  vectorFunc: string; // f_dv
  adjointFunc: string; // f_b
  forwardFunc: string; // f_fwd
  backwardFunc: string; // f_bwd
}

export const DEFAULT_NAMING: Naming = {
  tangentSuffix: 'd',
  adjointSuffix: 'b',
  tangentFunc: '_d',
  vectorFunc: '_dv',
  adjointFunc: '_b',
  forwardFunc: '_fwd',
  backwardFunc: '_bwd',
};

export interface DiffSignature {
  /** parameters (by index) that get a derivative parameter next to them */
  derivParams: boolean[];
  /** the result carries a derivative (tangent: returned with the value; adjoint: a seed) */
  derivResult: boolean;
}

/** Refinements of the adjoint that can be switched off (the naive model stays available). */
export interface AdjointOptions {
  /** to-be-recorded analysis: push a value only if the backward sweep reads it */
  tbr: boolean;
  /** recompute cheap loop-local constants in the backward sweep instead of recording them (default true) */
  recompute?: boolean;
  /** diff-liveness: the head's forward sweep computes only what derivatives and kept results need (default true) */
  diffLiveness?: boolean;
  /** keep the primal's results (return value, written arrays) in the head's f_b (default true) */
  primalResults?: boolean;
  /** merge increments of one adjoint location and resets followed by an increment (default true) */
  merge?: boolean;
  /** static tape: values a counted loop records go to one buffer indexed by iteration (default true) */
  staticTape?: boolean;
  /** reduction loops (`acc += e` over private iterations): each iteration's adjoint runs right after it, seeded with 1 (default true) */
  fuseReductions?: boolean;
  /**
   * …also where the loop reads an object (an instance holding arrays), whose unit adjoint is then added
   * field by field (default true; off for gradient code that is differentiated again, where those writes
   * into an object holding arrays it was given cannot be followed yet)
   */
  fuseObjectReductions?: boolean;
  /** small leaf functions called in the iterations of a fused reduction loop are written out there (default true) */
  inlineCalls?: boolean;
  /** adjacent loops over the same range fuse when no dependence forbids it (default true; needs merge) */
  fuseLoops?: boolean;
  /** joint mode for every differentiated call: checkpointed, re-run in the backward sweep (default false) */
  checkpointCalls?: boolean;
  /** an array a loop allocates afresh each pass, named by one variable only, keeps one shadow buffer (default true; off for gradient code that is differentiated again) */
  reuseShadows?: boolean;
  /** `$ad binomial-ckp` loops use Revolve's snapshots (default true); false records them like any loop (second derivatives: the tangent of a Revolve schedule is not generated) */
  binomial?: boolean;
}

export const DEFAULT_ADJOINT: AdjointOptions = { tbr: true };

export class ProgramInfo {
  readonly sigs = new Map<string, DiffSignature>();
  /** the module's function and data names, which no generated local may take */
  readonly moduleNames: ReadonlySet<string>;
  /** functions that put arrays on a tape, themselves or through callees (see refTapeFunctions) */
  readonly refTapes: Set<string>;
  /**
   * Number fields no backward sweep reads (adjoint/field-reads.ts): a write into one in a function
   * other than the head records nothing. Set by compile.ts for a second build; null: none assumed.
   */
  unreadNumberFields: ReadonlySet<string> | null = null;
  /**
   * Scratch fields (`Class.field`) whose contents adjoints do not hand over on the tape
   * (analysis/scratch-handover.ts). Set by compile.ts for a build it then checks; empty: none.
   */
  elidedScratch: ReadonlySet<string> = new Set();
  /** per function, its tape variables no code records on (analysis/idle-tapes.ts) */
  readonly idleTapes: ReadonlyMap<string, ReadonlySet<string>>;
  /** what each function's backward sweep reads of number fields, as last built */
  readonly fieldReads = new Map<string, FieldReads>();

  constructor(
    readonly mod: Module,
    readonly activity: ProgramActivity,
    readonly head: string,
    readonly independents: Set<string>,
    readonly naming: Naming,
    readonly options: AdjointOptions = DEFAULT_ADJOINT,
  ) {
    this.moduleNames = new Set([...mod.order, ...mod.globals.keys()]);
    const refTapes = (this.refTapes = refTapeFunctions(mod));
    const idle = (this.idleTapes = idleTapes(mod));
    for (const [name, fa] of activity.funcs) {
      const f = mod.funcs.get(name)!;
      const isHead = name === head;
      // in code that keeps arrays on a tape, derivative aliases must travel with every array
      const tapeCode = refTapes.has(name);
      if ((f.custom && !f.custom.passive) || f.external) {
        this.sigs.set(name, customSignature(f, fa, isHead, independents)); // src/transform/custom.ts
        continue;
      }
      this.sigs.set(name, {
        // (a tape no code records on has nothing to differentiate: analysis/idle-tapes.ts)
        derivParams: f.params.map((p) => hasFloat(p.ty) && (p.ty.k === 'tape' ? !idle.get(name)?.has(p.name) : (tapeCode && isRef(p.ty)) || fa.active.has(fa.aliases.rep(p.name)) || (isHead && independents.has(p.name)))),
        derivResult: fa.ctx.usefulResult && hasFloat(f.ret),
      });
    }
  }

  private generated = new Map<string, string>();
  /** the function and suffix each generated name was made for (generatedName's inverse) */
  private generatedBy = new Map<string, { func: string; suffix: string }>();
  private taken = new Set<string>();

  /**
   * The name of a generated function: `base`, or `base0`, `base1`, … when the input already has a
   * function (or a generated one) of that name. Stable for a given (function, suffix).
   */
  generatedName(func: string, suffix: string): string {
    const key = `${func}\u0000${suffix}`;
    let n = this.generated.get(key);
    if (n) {
      for (const w of this.watchers) w(func, suffix, n);
      return n;
    }
    if (this.taken.size === 0) for (const x of [...this.mod.order, ...this.mod.failed.keys(), ...this.mod.globals.keys()]) this.taken.add(x);
    const base = func + suffix;
    n = base;
    for (let i = 0; this.taken.has(n); i++) n = `${base}${i}`;
    this.taken.add(n);
    this.generated.set(key, n);
    this.generatedBy.set(n, { func, suffix });
    if (n !== base) this.renamed = true;
    for (const w of this.watchers) w(func, suffix, n);
    return n;
  }

  private watchers: ((func: string, suffix: string, name: string) => void)[] = [];
  private renamed = false;

  /** runs `work`, telling `watch` each generated name asked for meanwhile (reuse.ts replays them) */
  watchGeneratedNames<T>(watch: (func: string, suffix: string, name: string) => void, work: () => T): T {
    this.watchers.push(watch);
    try {
      return work();
    } finally {
      this.watchers.splice(this.watchers.indexOf(watch), 1);
    }
  }

  /** did a generated name collide with another name (and get a number)? Then which one got the plain name depends on the order of asking. */
  renamedAny(): boolean {
    return this.renamed;
  }

  /** the function and suffix a generated name was made for, if it is one (constant time: callers ask per call site) */
  generatedFor(name: string): { func: string; suffix: string } | undefined {
    return this.generatedBy.get(name);
  }

  func(name: string): Func {
    return this.mod.funcs.get(name)!;
  }

  act(name: string): FuncActivity | undefined {
    return this.activity.funcs.get(name);
  }

  /** Is this callee differentiated (called with derivatives somewhere)? */
  differentiated(name: string): boolean {
    const s = this.sigs.get(name);
    return !!s && (s.derivResult || s.derivParams.some((x) => x));
  }
}

/** Derivative variable names of one function: `x` → `xd`, avoiding every name already in use. */
export class DerivNames {
  private map = new Map<string, string>();
  constructor(
    private suffix: string,
    private fresh: (base: string) => string,
  ) {}
  of(name: string): string {
    let d = this.map.get(name);
    if (!d) {
      d = this.fresh(name + this.suffix);
      this.map.set(name, d);
    }
    return d;
  }
  known(name: string): boolean {
    return this.map.has(name);
  }
  /** the derivative names given so far */
  given(): Set<string> {
    return new Set(this.map.values());
  }
}

/**
 * The type of a derivative (tangent or adjoint) of a value of type `t`: writable, and an object keeps
 * only the fields that can carry a derivative (it keeps its name when that drops nothing). In vector
 * mode each float becomes one per direction: a scalar a Float64Array, a number array a flat array.
 */
/**
 * The default of a derivative parameter: `optsd = {}` where the primal's is `opts = {}` (an empty
 * object or array literal), so that a caller leaving both out passes an empty shadow, as the primal
 * gets an empty value; none otherwise (a default with values has no derivative to give).
 */
export function shadowDefault(def: Expr | undefined, shadowTy: Ty): Expr | undefined {
  if (def?.k === 'objlit' && def.fields.length === 0) return { k: 'objlit', fields: [], ty: shadowTy };
  if (def?.k === 'arrlit' && def.elems.length === 0) return { k: 'arrlit', elems: [], ty: shadowTy };
  return undefined;
}

export function derivTy(t: Ty, vec: boolean): Ty {
  switch (t.k) {
    case 'num':
      return vec ? { k: 'arr', elem: NUM, typed: true, ro: false } : t;
    case 'arr':
      // a typed array's derivative is a Float64Array whatever the primal's precision (no `ctor`)
      if (vec && t.elem.k === 'num') return { k: 'arr', elem: NUM, typed: t.typed, ro: false };
      return { k: 'arr', elem: derivTy(t.elem, vec), typed: vec ? false : t.typed, ro: false };
    case 'tuple': {
      if (vec && t.elems.every((e) => e.k === 'num' || e.k === 'int')) return { k: 'arr', elem: NUM, typed: false, ro: false };
      // (a flag's slot, `[xs, isSet]`, holds the zero a number's would: its derivative is not read)
      const flag = (e: Ty) => e.k === 'bool' || e.k === 'str';
      if (!vec && !t.elems.some(flag)) return { ...t, ro: false };
      return { k: 'tuple', elems: t.elems.map((e) => derivTy(flag(e) ? NUM : e, vec)), ro: false };
    }
    case 'opt': // the derivative of a nullable number is a number, zero (and ignored) where the value is absent
      return derivTy(t.base, vec);
    case 'obj': {
      const kept = t.fields.filter((f) => hasFloat(f.ty));
      if (!vec && kept.length === t.fields.length && kept.every((f) => sameDeriv(f.ty))) return t;
      return { k: 'obj', name: null, fields: kept.map((f) => ({ name: f.name, ty: derivTy(f.ty, vec), ...(f.optional ? { optional: true } : {}) })) };
    }
    default:
      return t;
  }
}

/**
 * The zero derivative of a Float32Array-valued `e` (`nb` directions in vector mode), or null for any
 * other type (`zerosLike` serves those): its shadow is a Float64Array, which `zerosLike` (copying the
 * constructor's kind) would not make, so it is allocated by the length of what `e` is built from.
 */
export function zeroFloat32Shadow(e: Expr, nb: Expr | null): Expr | null {
  const t = tyOf(e);
  if (t.k !== 'arr' || t.ctor !== 'Float32Array') return null;
  const len: Expr = e.k === 'alloc' ? e.len : e.k === 'intr' && e.fn === 'copy' && e.args.length === 1 ? { k: 'len', obj: e.args[0] } : { k: 'len', obj: e };
  return { k: 'alloc', len: nb ? { k: 'bin', op: '*', a: len, b: nb, ty: INT } : len, fill: null, ty: derivTy(t, nb !== null) };
}

/** is the scalar-mode derivative type of `t` the type itself (nothing readonly, no passive fields)? */
function sameDeriv(t: Ty): boolean {
  if (t.k === 'arr') return !t.ro && sameDeriv(t.elem);
  if (t.k === 'tuple') return !t.ro;
  if (t.k === 'obj') return t.fields.every((f) => hasFloat(f.ty) && sameDeriv(f.ty));
  return t.k !== 'opt';
}

export function paramsWithDerivs(params: Param[], sig: DiffSignature, dname: (p: Param) => string, dty: (t: Ty) => Ty): Param[] {
  const out: Param[] = [];
  params.forEach((p, i) => {
    out.push({ name: p.name, ty: p.ty, def: p.def });
    if (sig.derivParams[i]) out.push({ name: dname(p), ty: dty(p.ty) });
  });
  return out;
}

export function isRefParam(p: Param): boolean {
  return isRef(p.ty);
}

export type Emit = (s: Stmt) => void;

/** Parameters and locals of a function whose type satisfies `pred`. */
function namesOfType(f: Func, pred: (t: Ty) => boolean): Set<string> {
  const s = new Set(f.params.filter((p) => pred(p.ty)).map((p) => p.name));
  forEachStmt(f.body, (st) => {
    if (st.k === 'decl' && pred(st.ty)) s.add(st.name);
  });
  return s;
}

/** Variables of type Tape in a function: they always carry a derivative tape (tangents or adjoints). */
/** The tape variables of a function that code records on (an idle one has no derivative). */
export function tapeNames(f: Func, idle: ReadonlySet<string> = new Set()): Set<string> {
  const out = namesOfType(f, (t) => t.k === 'tape');
  for (const n of idle) out.delete(n);
  return out;
}

/** Float-carrying reference variables (arrays, objects) of a function, parameters included. */
export function refNames(f: Func): Set<string> {
  return namesOfType(f, (t) => isRef(t) && hasFloat(t));
}

/**
 * Functions that put arrays or objects on a tape (`tape.pushR`/`popR`), themselves or through a
 * callee: there an array popped back must bring its derivative alias along, so every array carries one.
 * Tape code that records only numbers keeps plain activity.
 */
export function refTapeFunctions(mod: Module): Set<string> {
  const direct = new Set<string>();
  const callers = new Map<string, Set<string>>();
  for (const name of mod.order) {
    const { tapesReferences, callees } = tapeFacts(mod.funcs.get(name)!);
    if (tapesReferences) direct.add(name);
    for (const fn of callees) {
      if (!callers.has(fn)) callers.set(fn, new Set());
      callers.get(fn)!.add(name);
    }
  }
  const out = new Set<string>();
  const todo = [...direct];
  while (todo.length) {
    const n = todo.pop()!;
    if (out.has(n)) continue;
    out.add(n);
    for (const c of callers.get(n) ?? []) todo.push(c);
  }
  return out;
}

function forEachStmtExpr(st: Stmt, f: (e: Expr) => void): void {
  for (const e of stmtExprs(st)) forEachExpr(e, f);
}

/** does a function put references on a tape itself, and the functions it calls (refTapeFunctions asks these of every function) */
const tapeFacts = perFunction((f) => {
  let tapesReferences = false;
  const callees = new Set<string>();
  forEachStmt(f.body, (st) => {
    forEachStmtExpr(st, (e) => {
      if (e.k === 'intr' && (e.fn === 'tape.pushR' || e.fn === 'tape.popR')) tapesReferences = true;
      if (e.k === 'call') callees.add(e.fn);
    });
  });
  return { tapesReferences, callees };
});
