// One array passed to a function under two of its parameter names, one of which the function writes
// (`cross(w, w, f)` with `cross(out, a, b)` writing `out`): the function's derivatives read the other
// name's old values after the write has changed them. tsad assumes the arrays a function writes are
// not also given to it under another name, so such a call is refused where it is written.
// Two elements of one array (`resolve(balls[i], balls[j])`, a pair loop's call) are one object only
// when the two slots hold the same reference: the call gets a guard before it that throws then, and
// the derivatives, which assume two objects, are right wherever the guard lets the call run.
import { aliasesOf, callSites, computeWrites } from '../analysis/activity.js';
import type { Expr, Func, Module, Stmt } from '../ir/types.js';
import { BOOL, VOID, containsCall, exprEq, forEachExpr, forEachStmt, isRef, mapBodies, rootVar, stmtExprs } from '../ir/util.js';
import { TransformError } from './tangent.js';

export function refuseAliasedWrittenArguments(mod: Module): void {
  const writes = computeWrites(mod);
  for (const n of mod.order) {
    const f = mod.funcs.get(n)!;
    // (in code that keeps references on a tape — differentiated code — every reference restored from it
    // may alias any parameter: there only one name given twice counts)
    const usesTape = f.params.some((p) => p.ty.k === 'tape');
    const al = aliasesOf(f);
    const same = (a: string, b: string) => a === b || (!usesTape && al.rep(a) === al.rep(b));
    const guards = new Map<Stmt, Stmt[]>();
    // (a guarded statement the guards cannot be placed before, in a loop's header: refused as before)
    const refusals = new Map<Stmt, TransformError>();
    for (const { s, calls } of callSites(f)) {
      for (const c of calls) {
        const callee = mod.funcs.get(c.fn);
        const written = writes.get(c.fn);
        if (!callee || !written?.size) continue;
        const roots = c.args.map((a, j) => (callee.params[j] && isRef(callee.params[j].ty) ? rootVar(a) : null));
        for (let j = 0; j < roots.length; j++)
          for (let k = j + 1; k < roots.length; k++) {
            const a = roots[j], b = roots[k];
            if (!a || !b || !same(a, b) || !(written.has(j) || written.has(k))) continue;
            // (two parameters the callee only adds into, `ab[i] += …; bb[i] += …` as a backward sweep
            // does for `dot(x, x)`: the additions commute, one array may take both)
            if (accumulatedOnly(mod, callee, j) && accumulatedOnly(mod, callee, k)) continue;
            const [w, o] = written.has(j) ? [j, k] : [k, j];
            // (two elements of one array, `g(balls[i], balls[j])`: they may be one object where i === j)
            const part = (x: Expr) => x.k === 'idx' || x.k === 'field';
            const elements = part(c.args[j]) && part(c.args[k]);
            if (elements && (s.k === 'expr' || s.k === 'decl' || s.k === 'assign') && !containsCall(c.args[j]) && !containsCall(c.args[k])) {
              const list = guards.get(s) ?? [];
              list.push(distinctGuard(c.args[j], c.args[k], `tsad: '${c.fn}' was given one object as both '${callee.params[w].name}', which it writes, and '${callee.params[o].name}' (two places of '${a}' holding the same reference); its derivatives assume two objects`, s));
              guards.set(s, list);
              refusals.set(s, new TransformError(elementsMessage(c.fn, a, callee.params[w].name, callee.params[o].name), c.loc ? c : s));
              continue;
            }
            throw new TransformError(
              elements
                ? elementsMessage(c.fn, a, callee.params[w].name, callee.params[o].name)
                : `'${c.fn}' is given one array as both '${callee.params[w].name}', which it writes, and '${callee.params[o].name}': tsad assumes an array a function writes is not also passed to it under another name`,
              c.loc ? c : s,
            );
          }
      }
    }
    if (!guards.size) continue;
    const placed = new Set<Stmt>();
    // (a new function in the module's map: the function object may be shared with other compiles)
    mod.funcs.set(n, { ...f, body: withGuards(f.body, guards, placed) });
    for (const [st, err] of refusals) if (!placed.has(st)) throw err;
  }
}

function elementsMessage(fn: string, arr: string, written: string, other: string): string {
  return `'${fn}' is given two elements of '${arr}' as '${written}', which it writes, and '${other}': tsad cannot tell whether they are one object (tsad assumes an array or object a function writes is not also passed to it under another name); pass '${arr}' and the indices instead, and read the elements in '${fn}' (\`${fn}(${arr}, i, j)\`)`;
}

/** `if (a === b) throw new Error(message)`, at the call's statement (unless the statement before is the same guard) */
function distinctGuard(a: Expr, b: Expr, message: string, at: Stmt): Stmt {
  return { k: 'if', c: { k: 'bin', op: '===', a, b, ty: BOOL }, then: [{ k: 'throw', e: { k: 'raw', text: `new Error(${JSON.stringify(message)})`, ty: VOID }, loc: at.loc }], else: [], loc: at.loc };
}

/** the statement lists with each guarded statement preceded by its guards (not twice: the module is checked again after binding) */
function withGuards(body: Stmt[], guards: Map<Stmt, Stmt[]>, placed: Set<Stmt>): Stmt[] {
  const out: Stmt[] = [];
  for (const s of body) {
    if (guards.has(s)) placed.add(s);
    for (const g of guards.get(s) ?? []) {
      const prev = out[out.length - 1];
      if (!(prev && prev.k === 'if' && g.k === 'if' && exprEq(prev.c, g.c) && prev.then[0]?.k === 'throw')) out.push(g);
    }
    out.push(mapBodies(s, (list) => withGuards(list, guards, placed)));
  }
  return out;
}

/** Is parameter `j` of `f` used only as the target of additions into its elements (`p[i] += e`, `p[i] -= e`)? */
function accumulatedOnly(mod: Module, f: Func, j: number, seen: Set<Func> = new Set()): boolean {
  const name = f.params[j]?.name;
  if (!name || seen.has(f)) return false;
  seen.add(f);
  const mentions = (e: Expr) => {
    let hit = false;
    forEachExpr(e, (x) => void (x.k === 'var' && x.name === name && (hit = true)));
    return hit;
  };
  let ok = true;
  forEachStmt(f.body, (s) => {
    if (!ok) return;
    if (s.k === 'assign' && (s.op === '+' || s.op === '-') && s.target.k !== 'var' && rootVar(s.target) === name) {
      const v = s.value;
      const indexReads = s.target.k === 'idx' ? mentions(s.target.index) : false;
      if (indexReads || v.k !== 'bin' || !exprEq(v.a, s.target) || mentions(v.b)) ok = false;
      return;
    }
    // (handed whole to a function that only adds into it: a backward sweep calling a hand-written
    // adjoint rule, `dot_bwd` calling `dot_vjp(a, ab, b, bb, yb)`)
    if (s.k === 'expr' && s.e.k === 'call') {
      const call = s.e;
      const callee = mod.funcs.get(call.fn);
      const rest = call.args.filter((a) => !(a.k === 'var' && a.name === name));
      const at = call.args.findIndex((a) => a.k === 'var' && a.name === name);
      if (at >= 0 && call.args.length - rest.length === 1 && !rest.some(mentions) && callee && accumulatedOnly(mod, callee, at, seen)) return;
    }
    for (const e of stmtExprs(s)) if (mentions(e)) ok = false;
  });
  return ok;
}
