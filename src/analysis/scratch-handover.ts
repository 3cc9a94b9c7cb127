// Scratch handover elision: when a method's backward sweep can find its scratch contents where its
// forward sweep left them.
//
// A scratch field (analysis/scratch-fields.ts) is written afresh by every call of a method, so the
// adjoint of such a method hands its contents over on the tape (signature.ts): other calls may write
// them between its two sweeps. Nothing writes them in between when
// - every function touching the field (its writers) is called from one host function only, in one
//   counted loop `for (…; …; i++)` at the host's top level, once per iteration, on the instance
//   `A[i]` of an array A whose elements are distinct instances (element ownership, below): each
//   iteration's call writes another instance's field, so the host's forward sweep writes each
//   instance's contents once, and its backward sweep runs the writers' backward sweeps, which write
//   no primal scratch contents once nobody hands them over;
// - the host's two sweeps run back to back, with no other call of the host between them: each call
//   of the host's forward sweep is in the iteration of a fused reduction, which runs the iteration's
//   backward half right after its forward half (adjoint/loops/fused-reduction.ts).
// This module checks the first condition on the program; the second is known only once the adjoints
// are built, and `handoverElisionHolds` checks it on what was built (compile.ts builds again without
// the elision when it fails).
//
// Element ownership: the elements of an array field are distinct instances when every array ever
// stored in the field is a fresh empty literal (`components: []` in the object literal that builds
// the instance, never assigned afterwards), and everything done with it, directly or through a local
// defined once by reading it, is reading elements and the length, and pushing the result of a call of
// a function that returns a fresh object literal of its own (a constructor) — each push a new object.
import type { Expr, Func, Module, Stmt } from '../ir/types.js';
import { forEachChild, forEachExpr, forEachStmt, stmtExprs, tyOf } from '../ir/util.js';
import type { ScratchFields } from './scratch-fields.js';

/** `Class.field` of a field expression on an instance of a named class or type, if it is one */
function keyOf(e: Expr): string | null {
  if (e.k !== 'field') return null;
  const t = tyOf(e.obj);
  return t.k === 'obj' && t.name ? `${t.name}.${e.name}` : null;
}

/** every call expression in `f`, nested statements and loop headers included */
function callsIn(body: Stmt[]): Extract<Expr, { k: 'call' }>[] {
  const out: Extract<Expr, { k: 'call' }>[] = [];
  forEachStmt(body, (s) => {
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'call') out.push(x);
      });
  });
  return out;
}

/** how many times each variable is defined in `f` (a parameter once) */
function definitions(f: Func): Map<string, number> {
  const defs = new Map<string, number>();
  for (const p of f.params) defs.set(p.name, 1);
  forEachStmt(f.body, (s) => {
    const n = s.k === 'decl' ? s.name : s.k === 'assign' && s.target.k === 'var' ? s.target.name : null;
    if (n) defs.set(n, (defs.get(n) ?? 0) + (s.k === 'decl' && !s.init ? 0 : 1));
  });
  return defs;
}

/**
 * The scratch fields whose handover may be elided, each with its host function, provided the host's
 * sweeps run back to back (`handoverElisionHolds`).
 */
export function elidableScratch(mod: Module, scratch: ScratchFields): Map<string, string> {
  const out = new Map<string, string>();
  for (const key of [...scratch.fields].sort()) {
    const host = hostOf(mod, scratch, key);
    if (host) out.set(key, host);
  }
  return out;
}

function hostOf(mod: Module, scratch: ScratchFields, key: string): string | null {
  // (a field of the same name on another class may be the same field of a subclass's instance, its
  // writers known under another key: refused)
  const field = key.slice(key.indexOf('.') + 1);
  let namesake = false;
  for (const f of mod.funcs.values())
    forEachStmt(f.body, (s) => {
      for (const e of stmtExprs(s))
        forEachExpr(e, (x) => {
          if (x.k === 'field' && x.name === field && keyOf(x) !== key) namesake = true;
        });
    });
  if (namesake) return null;
  // the writers, each reaching the field through a parameter it never assigns
  const writers = new Map<string, number>();
  for (const [fn, perKey] of scratch.instances) {
    const inst = perKey.get(key);
    if (!inst) continue;
    const f = mod.funcs.get(fn);
    const p = f ? f.params.findIndex((q) => q.name === inst) : -1;
    if (!f || p < 0 || (definitions(f).get(inst) ?? 0) > 1 || callsIn(f.body).length) return null;
    writers.set(fn, p);
  }
  if (!writers.size) return null;
  // one host calls them all
  let host: string | null = null;
  for (const [name, f] of mod.funcs)
    for (const c of callsIn(f.body)) {
      if (!writers.has(c.fn)) continue;
      if (host !== null && host !== name) return null;
      host = name;
    }
  if (host === null || writers.has(host)) return null;
  const h = mod.funcs.get(host)!;
  if (callsIn(h.body).some((c) => c.fn === host)) return null;
  return callsOncePerOwnedElement(mod, h, writers) ? host : null;
}

/** the host's writer calls: one statement at the top of one top-level counted loop's body, on `A[i]` */
function callsOncePerOwnedElement(mod: Module, h: Func, writers: Map<string, number>): boolean {
  const isWriterCall = (s: Stmt) => stmtExprs(s).some((e) => {
    let hit = false;
    forEachExpr(e, (x) => {
      if (x.k === 'call' && writers.has(x.fn)) hit = true;
    });
    return hit;
  });
  let loop: Extract<Stmt, { k: 'for' }> | null = null;
  let site: Stmt | null = null;
  let count = 0;
  forEachStmt(h.body, (s) => {
    if (s.k === 'for' || s.k === 'while' || s.k === 'do' || s.k === 'if' || s.k === 'block' || s.k === 'switch') {
      // (a writer called in a loop header or a condition is refused: it may run many times, or beside the site)
      if (isWriterCall(s) || (s.k === 'for' && (s.init.some(isWriterCall) || s.update.some(isWriterCall)))) count += 2;
      return;
    }
    if (!isWriterCall(s)) return;
    count++;
    site = s;
    loop = h.body.find((t): t is Extract<Stmt, { k: 'for' }> => t.k === 'for' && t.body.includes(s)) ?? null;
  });
  const l = loop as Extract<Stmt, { k: 'for' }> | null;
  const st = site as Stmt | null;
  if (count !== 1 || !l || !st) return false;
  const index = increment(l);
  if (!index || l.body.some((t) => assigns(t, index))) return false;
  const defs = definitions(h);
  const calls: Extract<Expr, { k: 'call' }>[] = [];
  for (const e of stmtExprs(st))
    forEachExpr(e, (x) => {
      if (x.k === 'call' && writers.has(x.fn)) calls.push(x);
    });
  if (calls.length !== 1) return false;
  const call = calls[0];
  // the instance: `A[i]`, or a variable defined once, by `A[i]`, earlier in the iteration
  let inst = call.args[writers.get(call.fn)!];
  if (inst?.k === 'var') {
    const name = inst.name;
    const def = l.body.slice(0, l.body.indexOf(st)).find((t) => t.k === 'decl' && t.name === name);
    if (!def || def.k !== 'decl' || !def.init || defs.get(name) !== 1) return false;
    inst = def.init;
  }
  if (!inst || inst.k !== 'idx' || inst.index.k !== 'var' || inst.index.name !== index) return false;
  // the array: a field read, or a local defined once by one
  let arr: Expr = inst.obj;
  if (arr.k === 'var') {
    const name = arr.name;
    let def: Expr | null = null;
    forEachStmt(h.body, (t) => {
      if (t.k === 'decl' && t.name === name && t.init) def = t.init;
    });
    if (!def || defs.get(name) !== 1) return false;
    arr = def;
  }
  const key = keyOf(arr);
  if (!key || arr.k !== 'field' || arr.obj.k !== 'var' || (defs.get(arr.obj.name) ?? 0) > 1) return false;
  return ownsElements(mod, key);
}

/** `i` of a loop whose update is `i++` (or `i += 1`, `i = i + 1`) */
function increment(l: Extract<Stmt, { k: 'for' }>): string | null {
  if (l.update.length !== 1) return null;
  const u = l.update[0];
  if (u.k !== 'assign' || u.target.k !== 'var') return null;
  const i = u.target.name;
  const v = u.value;
  const one = (e: Expr) => e.k === 'num' && e.v === 1;
  if (v.k === 'bin' && v.op === '+' && ((v.a.k === 'var' && v.a.name === i && one(v.b)) || (v.b.k === 'var' && v.b.name === i && one(v.a)))) return i;
  return null;
}

function assigns(s: Stmt, name: string): boolean {
  let hit = false;
  forEachStmt([s], (t) => {
    if ((t.k === 'assign' && t.target.k === 'var' && t.target.name === name) || (t.k === 'decl' && t.name === name)) hit = true;
  });
  return hit;
}

/** does a function return, on every path, a fresh object literal of its own (a constructor's `self`)? */
function returnsFreshObject(f: Func): boolean {
  const defs = definitions(f);
  let ok = true;
  let any = false;
  forEachStmt(f.body, (s) => {
    if (s.k !== 'return') return;
    any = true;
    const e = s.e;
    if (!e || e.k !== 'var' || defs.get(e.name) !== 1) return void (ok = false);
    let fresh = false;
    forEachStmt(f.body, (t) => {
      if (t.k === 'decl' && t.name === e.name && t.init?.k === 'objlit') fresh = true;
    });
    if (!fresh) ok = false;
  });
  return ok && any;
}

/** the element ownership of the module header: distinct instances in every array the field holds */
function ownsElements(mod: Module, key: string): boolean {
  for (const f of mod.funcs.values()) if (!ownedIn(mod, f, key)) return false;
  return true;
}

function ownedIn(mod: Module, f: Func, key: string): boolean {
  const defs = definitions(f);
  // locals holding the array: defined once, by reading the field
  const holders = new Set<string>();
  forEachStmt(f.body, (s) => {
    if (s.k === 'decl' && s.init && keyOf(s.init) === key && defs.get(s.name) === 1) holders.add(s.name);
  });
  const holds = (e: Expr) => keyOf(e) === key || (e.k === 'var' && holders.has(e.name));
  // values pushed: a constructor's result, directly or through a local used by this push only
  const uses = new Map<string, number>();
  forEachStmt(f.body, (s) => {
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'var') uses.set(x.name, (uses.get(x.name) ?? 0) + 1);
      });
  });
  const freshCall = (e: Expr | null | undefined): boolean => {
    if (!e || e.k !== 'call') return false;
    const g = mod.funcs.get(e.fn);
    return !!g && returnsFreshObject(g);
  };
  const freshPushed = (e: Expr): boolean => {
    if (freshCall(e)) return true;
    if (e.k !== 'var' || defs.get(e.name) !== 1 || uses.get(e.name) !== 1) return false;
    let ok = false;
    forEachStmt(f.body, (t) => {
      if (t.k === 'decl' && t.name === e.name && freshCall(t.init)) ok = true;
    });
    return ok;
  };
  let ok = true;
  // every mention: an element read, a length, a push of a fresh instance, a holder's definition, or
  // the field's fresh empty array in an object literal
  const visit = (e: Expr, allowed: boolean): void => {
    if (e.k === 'objlit' && e.ty.k === 'obj' && e.ty.name && key.startsWith(`${e.ty.name}.`)) {
      for (const fl of e.fields) {
        if (`${e.ty.name}.${fl.name}` === key && !(fl.value.k === 'arrlit' && fl.value.elems.length === 0)) ok = false;
        visit(fl.value, false);
      }
      return;
    }
    if ((e.k === 'idx' || e.k === 'len') && holds(e.obj)) {
      if (e.obj.k === 'field') visit(e.obj.obj, false);
      if (e.k === 'idx') visit(e.index, false);
      return;
    }
    if (e.k === 'intr' && e.fn === 'push' && e.args.length >= 2 && holds(e.args[0])) {
      if (e.args[0].k === 'field') visit(e.args[0].obj, false);
      for (const a of e.args.slice(1)) {
        if (!freshPushed(a)) ok = false;
        visit(a, false);
      }
      return;
    }
    if (holds(e) && !allowed) ok = false;
    forEachChild(e, (c) => visit(c, false));
  };
  forEachStmt(f.body, (s) => {
    // (a store into an element or into the field, or a holder rebound, puts another array or object there)
    if (s.k === 'assign' && (holds(s.target) || (s.target.k !== 'var' && holdsInside(s.target, holds)))) ok = false;
    const holderDef = s.k === 'decl' && holders.has(s.name);
    for (const e of stmtExprs(s)) visit(e, holderDef);
  });
  return ok;
}

/** is an element of a held array the target (`A[j] = …`, `A[j].f = …` is a store into an instance and fine)? */
function holdsInside(target: Expr, holds: (e: Expr) => boolean): boolean {
  return target.k === 'idx' && holds(target.obj);
}

/**
 * The second condition, on the adjoints as built: every call of a host's forward sweep is in the body
 * of a fused reduction's loop, once, outside any inner loop, beside one call of its backward sweep;
 * the host's backward sweep is called nowhere else; the writers' sweeps are called by the host's
 * sweeps only; no generated function calls primal code that reaches the host or a writer (`reaching`).
 */
export function handoverElisionHolds(
  funcs: Func[],
  hosts: ReadonlyMap<string, string>,
  writersOf: (key: string) => string[],
  reaching: (key: string) => ReadonlySet<string>,
  names: (fn: string) => { fwd: string; bwd: string },
): boolean {
  for (const [key, host] of hosts) {
    const h = names(host);
    const writers = writersOf(key);
    const wf = new Set(writers.map((w) => names(w).fwd));
    const wb = new Set(writers.map((w) => names(w).bwd));
    // (primal code reaching a writer would write the contents without any sweep knowing)
    const primal = reaching(key);
    for (const f of funcs) {
      for (const c of callsIn(f.body)) {
        if (primal.has(c.fn)) return false;
        if (wf.has(c.fn) && f.name !== h.fwd) return false;
        if (wb.has(c.fn) && f.name !== h.bwd) return false;
      }
      let fused = 0;
      forEachStmt(f.body, (s) => {
        if (s.k !== 'for' || !(s.comments ?? []).some((c) => c.includes('$ad fused reduction'))) return;
        const inLoops = countCalls(s.body, h.fwd, true) + countCalls(s.body, h.bwd, true);
        const fwd = countCalls(s.body, h.fwd, false);
        const bwd = countCalls(s.body, h.bwd, false);
        if (inLoops || fwd > 1 || bwd > 1 || fwd !== bwd) fused = -Infinity;
        else fused += fwd;
      });
      // (every call of the host's sweeps is one of those)
      if (countCalls(f.body, h.fwd, false) + countCalls(f.body, h.fwd, true) !== Math.max(fused, 0) || fused < 0) return false;
      if (countCalls(f.body, h.bwd, false) + countCalls(f.body, h.bwd, true) !== Math.max(fused, 0)) return false;
    }
  }
  return true;
}

/** calls of `fn` in `body`: outside nested loops (`inLoops` false) or inside them */
function countCalls(body: Stmt[], fn: string, inLoops: boolean): number {
  let n = 0;
  const walk = (list: Stmt[], nested: boolean) => {
    for (const s of list) {
      for (const e of stmtExprs(s))
        forEachExpr(e, (x) => {
          if (x.k === 'call' && x.fn === fn && nested === inLoops) n++;
        });
      const loop = s.k === 'for' || s.k === 'while' || s.k === 'do';
      if (s.k === 'for') {
        walk(s.init, nested);
        walk(s.update, true);
      }
      for (const child of childBodies(s)) walk(child, nested || loop);
    }
  };
  walk(body, false);
  return n;
}

/** the statement lists directly inside a statement */
function childBodies(s: Stmt): Stmt[][] {
  switch (s.k) {
    case 'for':
    case 'while':
    case 'do':
    case 'block':
      return [s.body];
    case 'if':
      return [s.then, s.else];
    case 'switch':
      return s.cases.map((c) => c.body);
    default:
      return [];
  }
}
