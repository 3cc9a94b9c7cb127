// Structuring for the adjoint: break, continue, early return and switch become boolean flags, guarded
// sequences and if-chains, so that the reversal only has to handle if/else and loops with trip counts.
// Loops without jumps keep their exact form (and stay counted loops).
import type { Expr, Func, Stmt, Ty } from '../ir/types.js';
import { BOOL, declaredNames, forEachStmt, hasDirectiveIn, mapBodies, tyOf } from '../ir/util.js';
import { Names } from './linearize.js';
import { TransformError } from './tangent.js';

interface Target {
  label?: string;
  /** a labelled block: only `break label` leaves it */
  block?: boolean;
  loop: boolean;
  brk?: string; // flag set by a break to this target
  cont?: string; // flag set by a continue to this target
}

export function lowerJumps(f: Func): Func {
  if (!hasJumps(f.body)) return f;
  const names = new Names(declaredNames(f));
  const l = new JumpLowering(names, f.ret.k !== 'void' ? f.ret : null);
  const body = l.seq(searchesBeforeReturns(f, names), true);
  const pre: Stmt[] = [...l.decls];
  if (l.resultName) body.push({ k: 'return', e: { k: 'var', name: l.resultName, ty: f.ret } });
  return { ...f, body: [...pre, ...body] };
}

/**
 * `for (…) { if (c) return e; }` — a search whose only work is the value it returns — becomes
 * `for (…) { if (c) { found = true; break; } } if (found) return e;`: the state at the break is the
 * state at the return, so `e` has the same value. The loop is then passive when `c` and the loop's
 * own statements are, and the adjoint does not reverse it pass by pass (recording each test) only to
 * reach the one that returned: `e`'s adjoint runs once, after the loop. The loop's declarations move
 * before it, where `e` can read them (only names declared once in the function).
 */
function searchesBeforeReturns(f: Func, names: Names): Stmt[] {
  const counts = new Map<string, number>();
  forEachStmt(f.body, (s) => {
    if (s.k === 'decl') counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
  });
  const rewrite = (list: Stmt[]): Stmt[] =>
    list.flatMap((s): Stmt[] => {
      const inner = mapBodies(s, rewrite);
      const loop = inner.k === 'for' || inner.k === 'while' || inner.k === 'do' ? inner : null;
      const test = loop && !loop.label && loop.body.length === 1 && loop.body[0].k === 'if' ? loop.body[0] : null;
      const ret = test && test.then.length === 1 && test.else.length === 0 && test.then[0].k === 'return' ? test.then[0] : null;
      if (!loop || !test || !ret || !ret.e) return [inner];
      const init = loop.k === 'for' ? loop.init : [];
      if (init.some((x) => x.k === 'decl' && counts.get(x.name) !== 1)) return [inner];
      const found = names.fresh('found');
      const body: Stmt[] = [{ ...test, then: [setFlag(found, true), { k: 'break' }] }];
      return [
        { k: 'decl', name: found, ty: BOOL, init: { k: 'bool', v: false }, konst: false },
        ...init,
        loop.k === 'for' ? { ...loop, init: [], body } : { ...loop, body },
        { k: 'if', c: flagVar(found), then: [ret], else: [] },
      ];
    });
  return rewrite(f.body);
}

function hasJumps(body: Stmt[], top = true): boolean {
  for (let i = 0; i < body.length; i++) {
    const s = body[i];
    switch (s.k) {
      case 'break':
      case 'continue':
      case 'switch':
        return true;
      case 'return':
        if (!(top && i === body.length - 1)) return true;
        break;
      case 'if':
        if (hasJumps(s.then, false) || hasJumps(s.else, false)) return true;
        break;
      case 'for':
      case 'while':
      case 'do':
        if (hasJumps(s.body, false)) return true;
        break;
      case 'block':
        return true;
      default:
        break;
    }
  }
  return false;
}

const flagVar = (name: string): Expr => ({ k: 'var', name, ty: BOOL });
const setFlag = (name: string, v: boolean): Stmt => ({ k: 'assign', target: flagVar(name) as Extract<Expr, { k: 'var' }>, value: { k: 'bool', v } });
const not = (e: Expr): Expr => ({ k: 'un', op: '!', a: e, ty: BOOL });
const anyOf = (flags: string[]): Expr => flags.map(flagVar).reduce((a, b) => ({ k: 'bin', op: '||', a, b, ty: BOOL }));
/** a && b, where `true` drops out (`while (true)` with a break becomes `while (!broke)`) */
const and = (a: Expr, b: Expr): Expr => (b.k === 'bool' && b.v ? a : a.k === 'bool' && a.v ? b : { k: 'bin', op: '&&', a, b, ty: BOOL });

class JumpLowering {
  decls: Stmt[] = [];
  resultName: string | null = null;
  private retFlag: string | null = null;
  private targets: Target[] = [];

  constructor(
    private names: Names,
    private retTy: Func['ret'] | null,
  ) {
    if (retTy) {
      this.resultName = names.fresh('result');
      this.decls.push({ k: 'decl', name: this.resultName, ty: retTy, init: null, konst: false });
    }
  }

  private flag(base: string): string {
    const n = this.names.fresh(base);
    this.decls.push({ k: 'decl', name: n, ty: BOOL, init: { k: 'bool', v: false }, konst: false });
    return n;
  }


  /** Lowers a sequence; statements after one that may jump are guarded by the jump's flags. */
  seq(ss: Stmt[], top = false): Stmt[] {
    const out: Stmt[] = [];
    const esc = new Set<string>();
    for (let i = 0; i < ss.length; i++) {
      const s = ss[i];
      if (top && s.k === 'return' && i === ss.length - 1 && esc.size === 0) {
        if (this.resultName && s.e) out.push({ k: 'assign', target: { k: 'var', name: this.resultName, ty: this.retTy! }, value: s.e, loc: s.loc, comments: s.comments });
        break;
      }
      const [ls, e] = this.stmt(s);
      out.push(...ls);
      e.forEach((x) => esc.add(x));
      if (e.size && i < ss.length - 1) {
        const rest = this.seq(ss.slice(i + 1), top);
        const restEsc = this.lastEscapes;
        if (rest.length) out.push({ k: 'if', c: not(anyOf([...e].sort())), then: rest, else: [] });
        restEsc.forEach((x) => esc.add(x));
        break;
      }
    }
    this.lastEscapes = esc;
    return out;
  }

  private lastEscapes = new Set<string>();

  private find(label: string | undefined, isContinue: boolean, s: Stmt): Target {
    for (let i = this.targets.length - 1; i >= 0; i--) {
      const t = this.targets[i];
      // (an unlabelled break leaves the innermost loop or switch, never a block: JavaScript's rule)
      if (label ? t.label === label : isContinue ? t.loop : !t.block) return t;
    }
    throw new TransformError(`'${isContinue ? 'continue' : 'break'}${label ? ' ' + label : ''}' has no enclosing target`, s);
  }

  private stmt(s: Stmt): [Stmt[], Set<string>] {
    switch (s.k) {
      case 'return': {
        this.retFlag ??= this.flag('returned');
        const out: Stmt[] = [];
        if (this.resultName && s.e) out.push({ k: 'assign', target: { k: 'var', name: this.resultName, ty: this.retTy! }, value: s.e, loc: s.loc, comments: s.comments });
        out.push(setFlag(this.retFlag, true));
        return [out, new Set([this.retFlag])];
      }
      case 'break': {
        const t = this.find(s.label, false, s);
        t.brk ??= this.flag(t.loop ? 'broke' : 'done');
        return [[setFlag(t.brk, true)], new Set([t.brk])];
      }
      case 'continue': {
        const t = this.find(s.label, true, s);
        t.cont ??= this.flag('skip');
        return [[setFlag(t.cont, true)], new Set([t.cont])];
      }
      case 'if': {
        const then = this.seq(s.then);
        const e1 = this.lastEscapes;
        const els = this.seq(s.else);
        const e2 = this.lastEscapes;
        return [[{ ...s, then, else: els }], new Set([...e1, ...e2])];
      }
      case 'block': {
        const t: Target = { label: s.label, loop: false, block: true };
        this.targets.push(t);
        const body = this.seq(s.body);
        const esc = this.lastEscapes;
        this.targets.pop();
        const out: Stmt[] = [];
        if (t.brk) {
          out.push(setFlag(t.brk, false));
          esc.delete(t.brk);
        }
        // a checkpointed region stays a block (the adjoint re-runs it as one)
        if (!s.label && hasDirectiveIn(s.comments, 'checkpoint-region')) out.push({ ...s, body });
        else out.push(...body);
        return [out, esc];
      }
      case 'switch':
        return this.switchStmt(s);
      case 'while':
      case 'do':
      case 'for':
        return this.loop(s);
      default:
        return [[s], new Set()];
    }
  }

  private loop(s: Extract<Stmt, { k: 'while' | 'do' | 'for' }>): [Stmt[], Set<string>] {
    const t: Target = { label: s.label, loop: true };
    this.targets.push(t);
    const body = this.seq(s.body);
    const esc = new Set(this.lastEscapes);
    this.targets.pop();
    if (esc.size === 0) return [[{ ...s, label: undefined, body }], esc];
    const outer = [...esc].filter((x) => x !== t.brk && x !== t.cont).sort();
    const stop = [...(t.brk ? [t.brk] : []), ...outer];
    const pre: Stmt[] = [];
    if (t.brk) pre.push(setFlag(t.brk, false));
    const head: Stmt[] = t.cont ? [setFlag(t.cont, false)] : [];
    const guardCond = (c: Expr | null): Expr | null => {
      if (!stop.length) return c;
      const g = not(anyOf(stop));
      return c ? and(g, c) : g;
    };
    let loop: Stmt;
    if (s.k === 'while') loop = { k: 'while', cond: guardCond(s.cond)!, body: [...head, ...body], loc: s.loc, comments: s.comments };
    else if (s.k === 'do') loop = { k: 'do', body: [...head, ...body], cond: guardCond(s.cond)!, loc: s.loc, comments: s.comments };
    else {
      const upd = s.update.length ? (stop.length ? [{ k: 'if', c: not(anyOf(stop)), then: s.update, else: [] } as Stmt] : s.update) : [];
      pre.push(...s.init);
      loop = { k: 'while', cond: guardCond(s.cond) ?? { k: 'bool', v: true }, body: [...head, ...body, ...upd], loc: s.loc, comments: s.comments };
    }
    return [[...pre, loop], new Set(outer)];
  }

  private switchStmt(s: Extract<Stmt, { k: 'switch' }>): [Stmt[], Set<string>] {
    if (fallsThrough(s)) return this.switchWithFallThrough(s);
    // cases with an empty body fall into the next one (the others end in a jump): an if-chain
    const groups: { tests: Expr[] | null; body: Stmt[] }[] = [];
    let pending: Expr[] = [];
    let pendingDefault = false;
    s.cases.forEach((c, i) => {
      if (c.tests === null) pendingDefault = true;
      else pending.push(...c.tests);
      if (c.body.length === 0 && i < s.cases.length - 1) return;
      groups.push({ tests: pendingDefault ? null : pending, body: c.body });
      pending = [];
      pendingDefault = false;
    });
    const t: Target = { label: s.label, loop: false };
    this.targets.push(t);
    const pre: Stmt[] = [];
    let disc = s.disc;
    if (disc.k !== 'var' && disc.k !== 'num' && disc.k !== 'str') {
      const n = this.names.fresh('selector');
      // (`switch (true)` has a literal selector, typed by tyOf)
      const ty: Ty = disc.k === 'bin' || disc.k === 'un' ? { k: 'num' } : tyOf(disc);
      const selTy: Ty = ty.k === 'bool' ? ty : { k: 'num' };
      this.decls.push({ k: 'decl', name: n, ty, init: null, konst: false });
      pre.push({ k: 'assign', target: { k: 'var', name: n, ty: selTy }, value: disc });
      disc = { k: 'var', name: n, ty: selTy };
    }
    const esc = new Set<string>();
    const lowered = groups.map((g) => {
      // a trailing `break` ends the case: the if-chain does that already
      const body = g.body.length && g.body[g.body.length - 1].k === 'break' && !(g.body[g.body.length - 1] as { label?: string }).label ? g.body.slice(0, -1) : g.body;
      const b = this.seq(body);
      this.lastEscapes.forEach((x) => esc.add(x));
      return { tests: g.tests, body: b };
    });
    this.targets.pop();
    let chain: Stmt[] = [];
    const def = lowered.find((g) => g.tests === null);
    if (def) chain = def.body;
    for (let i = lowered.length - 1; i >= 0; i--) {
      const g = lowered[i];
      if (g.tests === null) continue;
      const c = g.tests.map((x): Expr => ({ k: 'bin', op: '===', a: disc, b: x, ty: BOOL })).reduce((a, b) => ({ k: 'bin', op: '||', a, b, ty: BOOL }));
      chain = [{ k: 'if', c, then: g.body, else: chain, loc: s.loc }];
    }
    if (t.brk) {
      pre.push(setFlag(t.brk, false));
      esc.delete(t.brk);
    }
    if (chain.length && s.comments) chain[0] = { ...chain[0], comments: s.comments };
    return [[...pre, ...chain], esc];
  }

  /**
   * A switch whose cases fall into the next: the index of the case it enters (the first whose test
   * matches, else the default's, else past the last) is taken once, then each case's body runs where
   * that index is at or before it, `if (entry <= i) { … }`, in order; a `break` sets the switch's flag,
   * which guards the bodies after it as any jump guards what follows it.
   */
  private switchWithFallThrough(s: Extract<Stmt, { k: 'switch' }>): [Stmt[], Set<string>] {
    const entry = this.names.fresh('entry');
    const ety: Ty = { k: 'int' };
    this.decls.push({ k: 'decl', name: entry, ty: ety, init: null, konst: false });
    const ev: Expr = { k: 'var', name: entry, ty: ety };
    const n = s.cases.length;
    const def = s.cases.findIndex((c) => c.tests === null);
    let index: Expr = { k: 'num', v: def < 0 ? n : def };
    // (the selector is read once per test, as JavaScript reads it once: named first unless it is plain)
    const pre: Stmt[] = [];
    let disc = s.disc;
    if (disc.k !== 'var' && disc.k !== 'num' && disc.k !== 'str') {
      const d = this.names.fresh('selector');
      const ty: Ty = tyOf(disc).k === 'int' ? { k: 'num' } : tyOf(disc);
      this.decls.push({ k: 'decl', name: d, ty, init: null, konst: false });
      pre.push({ k: 'assign', target: { k: 'var', name: d, ty }, value: disc });
      disc = { k: 'var', name: d, ty };
    }
    for (let i = n - 1; i >= 0; i--) {
      const tests = s.cases[i].tests;
      if (!tests) continue;
      const c = tests.map((x): Expr => ({ k: 'bin', op: '===', a: disc, b: x, ty: BOOL })).reduce((a, b) => ({ k: 'bin', op: '||', a, b, ty: BOOL }));
      index = { k: 'cond', c, a: { k: 'num', v: i }, b: index, ty: ety };
    }
    pre.push({ k: 'assign', target: ev as Extract<Expr, { k: 'var' }>, value: index, loc: s.loc, comments: s.comments });
    const bodies: Stmt[] = s.cases.flatMap((c, i): Stmt[] => (c.body.length ? [{ k: 'if', c: { k: 'bin', op: '<=', a: ev, b: { k: 'num', v: i }, ty: BOOL }, then: c.body, else: [] }] : []));
    const t: Target = { label: s.label, loop: false };
    this.targets.push(t);
    const body = this.seq(bodies);
    const esc = new Set(this.lastEscapes);
    this.targets.pop();
    if (t.brk) {
      pre.push(setFlag(t.brk, false));
      esc.delete(t.brk);
    }
    return [[...pre, ...body], esc];
  }
}

/** does a non-empty case (not the last) run on into the next one, its body not ending in a jump? */
function fallsThrough(s: Extract<Stmt, { k: 'switch' }>): boolean {
  return s.cases.some((c, i) => {
    if (!c.body.length || i === s.cases.length - 1) return false;
    const last = c.body[c.body.length - 1];
    return !(last.k === 'break' || last.k === 'return' || last.k === 'continue' || last.k === 'throw');
  });
}
