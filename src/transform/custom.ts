// Derivatives of functions with hand-written rules (src/frontend/custom-derivatives.ts): their
// generated f_d, f_dv, f_fwd, f_bwd and f_b call the rules instead of differentiating the body, with
// the signatures tsad gives every differentiated callee. Callers therefore call them as any other
// callee: the adjoint's call sites record and restore the arguments the rule reads (calls.ts treats
// the rule as reading every argument), joint mode and checkpoints re-run them like other calls.
import type { FuncActivity } from '../analysis/activity.js';
import { ruleDerivKind } from '../frontend/custom-derivatives.js';
import type { DiagnosticBag } from '../frontend/diagnostics.js';
import type { Expr, Func, Loc, Param, Stmt, Ty } from '../ir/types.js';
import { countedFor, declaredNames, forEachStmt, hasFloat, INT, isRef, NUM, TAPE, VOID } from '../ir/util.js';
import { stmtCalls } from '../analysis/activity.js';
import { adjointNames } from './adjoint/context.js';
import { derivTy, type DiffSignature, type ProgramInfo, zeroFloat32Shadow } from './context.js';
import { Names } from './linearize.js';
import { tangentName, TransformError, type TangentMode } from './tangent.js';

/**
 * The derivative signature of a function with a rule: a derivative for each number-carrying parameter
 * some caller varies (the rule takes them all; the others get zeros), the result's when it is useful.
 */
export function customSignature(f: Func, fa: FuncActivity, isHead: boolean, independents: Set<string>): DiffSignature {
  const derivParams = f.params.map((p) => (ruleDerivKind(p.ty) === 'scalar' || ruleDerivKind(p.ty) === 'array' ? fa.ctx.variedParams.has(p.name) || (isHead && independents.has(p.name)) : false));
  // called only with passive arguments: a passive call (a black box needs no rule there)
  return { derivParams, derivResult: fa.ctx.usefulResult && hasFloat(f.ret) && derivParams.some((d) => d) };
}

const v = (name: string, ty: Ty): Extract<Expr, { k: 'var' }> => ({ k: 'var', name, ty });

/** the zero derivative of a parameter the caller passes none for (an empty array where the rule ignores it: nothing to allocate) */
function zeroOf(f: Func, p: Param, nb: Expr | null = null): Expr {
  if (!isRef(p.ty)) return { k: 'num', v: 0 };
  if (f.custom?.ignores?.includes(p.name)) return { k: 'arrlit', elems: [], ty: derivTy(p.ty, false) };
  const x = v(p.name, p.ty);
  return zeroFloat32Shadow(x, nb) ?? { k: 'intr', fn: 'zerosLike', args: nb ? [x, nb] : [x], ty: derivTy(p.ty, nb !== null) };
}

/**
 * Rules generated for this compilation's activity ignore the parameters no caller varies: one that is
 * differentiated after all would get no derivative (a wrong one, silently), so it is refused.
 */
function refuseIgnoredDerivatives(f: Func, sig: DiffSignature): void {
  const ignores = f.custom?.ignores;
  if (!ignores) return;
  const p = f.params.find((q, i) => sig.derivParams[i] && ignores.includes(q.name));
  if (p) throw new TransformError(`internal error: the coarsened rules of '${f.name}' compute no derivative for '${p.name}', which is differentiated`, f);
}

function names(info: ProgramInfo, f: Func): Names {
  return new Names(declaredNames(f), info.moduleNames);
}

function primalCall(f: Func): Expr {
  return { k: 'call', fn: f.name, args: f.params.map((p) => v(p.name, p.ty)), ty: f.ret };
}

/** f_d / f_dv of a function with a tangent rule: the rule, called once per direction in vector mode */
export function customTangentFunc(info: ProgramInfo, name: string, mode: TangentMode): Func {
  const f = info.func(name);
  const sig = info.sigs.get(name)!;
  const rule = f.custom!.tangent!;
  refuseIgnoredDerivatives(f, sig);
  const vec = mode === 'vector';
  const nm = names(info, f);
  const nb = v(vec ? nm.fresh('nbdirs') : 'nbdirs', INT);
  const params: Param[] = [];
  const dname = new Map<string, string>();
  f.params.forEach((p, i) => {
    params.push({ name: p.name, ty: p.ty, def: p.def });
    if (!sig.derivParams[i]) return;
    const dn = nm.fresh(p.name + info.naming.tangentSuffix);
    dname.set(p.name, dn);
    params.push({ name: dn, ty: derivTy(p.ty, vec), role: 'tangent', of: p.name });
  });
  if (vec) params.push({ name: nb.name, ty: INT, role: 'directions' });
  const ret: Ty = sig.derivResult ? { k: 'tuple', elems: [f.ret, derivTy(f.ret, vec)], ro: false } : f.ret;
  const comments = [`// ${f.name}'s hand-written tangent rule ${rule}${vec ? ', once per direction' : ''}`];
  const out = (body: Stmt[]): Func => ({ name: tangentName(info, name, mode), params, ret, body, exported: true, loc: f.loc, comments });
  if (!sig.derivResult) return out([{ k: 'return', e: primalCall(f) }]);
  const ruleTy: Ty = { k: 'tuple', elems: [NUM, NUM], ro: false };
  if (!vec) {
    const args: Expr[] = [];
    f.params.forEach((p) => {
      args.push(v(p.name, p.ty));
      if (!ruleDerivKind(p.ty) || ruleDerivKind(p.ty) === 'none') return;
      const dn = dname.get(p.name);
      args.push(dn ? v(dn, derivTy(p.ty, false)) : zeroOf(f, p));
    });
    return out([{ k: 'return', e: { k: 'call', fn: rule, args, ty: ruleTy } }]);
  }
  // vector mode: per direction, gather each argument's tangent, call the rule, scatter its tangent
  const body: Stmt[] = [];
  const nd = v(nm.fresh('nd'), INT);
  const value = nm.fresh('value');
  const resd = nm.fresh('resultd');
  const dirTy = derivTy(NUM, true);
  body.push({ k: 'decl', name: value, ty: f.ret, init: primalCall(f), konst: true });
  body.push({ k: 'decl', name: resd, ty: dirTy, init: { k: 'alloc', len: nb, fill: null, ty: dirTy }, konst: true });
  const loop: Stmt[] = [];
  const args: Expr[] = [];
  f.params.forEach((p) => {
    args.push(v(p.name, p.ty));
    const kind = ruleDerivKind(p.ty);
    if (kind !== 'scalar' && kind !== 'array') return;
    const dn = dname.get(p.name);
    if (!dn) {
      if (kind === 'scalar') args.push({ k: 'num', v: 0 });
      else {
        const z = nm.fresh(p.name + 'Zero');
        body.push({ k: 'decl', name: z, ty: derivTy(p.ty, false), init: zeroOf(f, p), konst: true });
        args.push(v(z, derivTy(p.ty, false)));
      }
      return;
    }
    if (kind === 'scalar') {
      args.push({ k: 'idx', obj: v(dn, dirTy), index: nd, ty: NUM });
      return;
    }
    // element i of direction nd sits at [i * nbdirs + nd]
    const one = nm.fresh(p.name + 'Dir');
    const oneTy = derivTy(p.ty, false);
    const i = nm.fresh('i');
    const len: Expr = { k: 'len', obj: v(p.name, p.ty) };
    loop.push({ k: 'decl', name: one, ty: oneTy, init: { k: 'alloc', len, fill: null, ty: oneTy }, konst: true });
    const at: Expr = { k: 'bin', op: '+', a: { k: 'bin', op: '*', a: v(i, INT), b: nb, ty: INT }, b: nd, ty: INT };
    loop.push(countedFor(i, len, [{ k: 'assign', target: { k: 'idx', obj: v(one, oneTy), index: v(i, INT), ty: NUM }, value: { k: 'idx', obj: v(dn, derivTy(p.ty, true)), index: at, ty: NUM } }]));
    args.push(v(one, oneTy));
  });
  const r = nm.fresh('ruleResult');
  loop.push({ k: 'decl', name: r, ty: ruleTy, init: { k: 'call', fn: rule, args, ty: ruleTy }, konst: true });
  loop.push({ k: 'assign', target: { k: 'idx', obj: v(resd, dirTy), index: nd, ty: NUM }, value: { k: 'idx', obj: v(r, ruleTy), index: { k: 'num', v: 1 }, ty: NUM } });
  body.push(countedFor(nd.name, nb, loop));
  body.push({ k: 'return', e: { k: 'arrlit', elems: [v(value, f.ret), v(resd, dirTy)], ty: ret } });
  return out(body);
}

/**
 * f_fwd, f_bwd (and f_b for a head) of a function with an adjoint rule: the forward sweep is the primal
 * call (nothing to record: the caller restores the arguments the backward sweep reads), the backward
 * sweep the rule, seeded with the result's adjoint; number adjoints come back in parameter order.
 */
export function customAdjointFuncs(info: ProgramInfo, name: string): { func: Func; role: 'reverse' | 'forward' | 'backward' }[] {
  const f = info.func(name);
  const sig = info.sigs.get(name)!;
  const rule = f.custom!.adjoint!;
  refuseIgnoredDerivatives(f, sig);
  const nm = names(info, f);
  const tape = nm.fresh('tape');
  const bname = new Map<string, string>();
  f.params.forEach((p, i) => {
    if (sig.derivParams[i]) bname.set(p.name, nm.fresh(p.name + info.naming.adjointSuffix));
  });
  const seed = sig.derivResult ? nm.fresh('resultb') : null;
  const primalAndArrays = (): Param[] => {
    const ps: Param[] = [];
    f.params.forEach((p, i) => {
      ps.push({ name: p.name, ty: p.ty, def: p.def });
      if (sig.derivParams[i] && isRef(p.ty)) ps.push({ name: bname.get(p.name)!, ty: derivTy(p.ty, false), role: 'adjoint', of: p.name });
    });
    return ps;
  };
  const scalars = f.params.filter((p, i) => sig.derivParams[i] && !isRef(p.ty));
  const ret: Ty = scalars.length === 0 ? VOID : scalars.length === 1 ? NUM : { k: 'tuple', elems: scalars.map(() => NUM), ro: false };
  const ruleScalars = f.params.filter((p) => ruleDerivKind(p.ty) === 'scalar');
  const ruleRet: Ty = ruleScalars.length === 0 ? VOID : ruleScalars.length === 1 ? NUM : { k: 'tuple', elems: ruleScalars.map(() => NUM), ro: false };
  const backwardBody = (): Stmt[] => {
    const body: Stmt[] = [];
    const zero = (): Expr => ({ k: 'num', v: 0 });
    if (!seed) {
      if (scalars.length === 1) body.push({ k: 'return', e: zero() });
      else if (scalars.length > 1) body.push({ k: 'return', e: { k: 'arrlit', elems: scalars.map(zero), ty: ret } });
      return body;
    }
    const args: Expr[] = [];
    f.params.forEach((p) => {
      args.push(v(p.name, p.ty));
      if (ruleDerivKind(p.ty) !== 'array') return;
      const bn = bname.get(p.name);
      args.push(bn ? v(bn, derivTy(p.ty, false)) : zeroOf(f, p));
    });
    args.push(v(seed, NUM));
    const call: Expr = { k: 'call', fn: rule, args, ty: ruleRet };
    if (ruleScalars.length === 0) {
      body.push({ k: 'expr', e: call });
      return body;
    }
    const adj = nm.fresh('adjoints');
    body.push({ k: 'decl', name: adj, ty: ruleRet, init: call, konst: true });
    const pick = (p: Param): Expr => (ruleScalars.length === 1 ? v(adj, NUM) : { k: 'idx', obj: v(adj, ruleRet), index: { k: 'num', v: ruleScalars.indexOf(p) }, ty: NUM });
    if (scalars.length === 1) body.push({ k: 'return', e: pick(scalars[0]) });
    else if (scalars.length > 1) body.push({ k: 'return', e: { k: 'arrlit', elems: scalars.map(pick), ty: ret } });
    return body;
  };
  const names2 = adjointNames(info, name);
  const comments = [`// ${f.name}'s hand-written adjoint rule ${rule}`];
  const seedParam: Param[] = seed ? [{ name: seed, ty: NUM, role: 'seed' }] : [];
  const tapeParam: Param = { name: tape, ty: TAPE, role: 'tape' };
  const out: { func: Func; role: 'reverse' | 'forward' | 'backward' }[] = [
    { func: { name: names2.fwd, params: [tapeParam, ...primalAndArrays()], ret: f.ret, body: [{ k: 'return', e: primalCall(f) }], exported: true, loc: f.loc, comments: [`// ${f.name}'s forward sweep: the primal call (the adjoint rule ${rule} needs nothing recorded)`] }, role: 'forward' },
    { func: { name: names2.bwd, params: [tapeParam, ...primalAndArrays(), ...seedParam], ret, body: backwardBody(), exported: true, loc: f.loc, comments }, role: 'backward' },
  ];
  if (name === info.head) out.push({ func: { name: names2.b, params: [...primalAndArrays(), ...seedParam], ret, body: backwardBody(), exported: true, loc: f.loc, comments }, role: 'reverse' });
  return out;
}

/** the first call of `fn` in a function that is differentiated (where the error belongs), or the declaration */
function callSite(info: ProgramInfo, fn: string): Loc | undefined {
  for (const n of info.mod.order) {
    if (!info.act(n) || n === fn) continue;
    let at: Loc | undefined;
    forEachStmt(info.func(n).body, (s) => {
      for (const c of stmtCalls(s)) if (!at && c.fn === fn && c.loc) at = c.loc;
    });
    if (at) return at;
  }
  return info.func(fn).loc;
}

/**
 * Which modes a function's rules give (a tangent rule the forward modes, an adjoint rule reverse mode;
 * neither is derived from the other), and black boxes without rules: each differentiated call of one
 * that the requested modes cannot serve is an error, located at a call in differentiated code.
 */
export function customRuleErrors(info: ProgramInfo, modes: readonly string[], diags: DiagnosticBag): void {
  for (const n of info.mod.order) {
    const f = info.func(n);
    if (!info.act(n) || !(n === info.head || info.differentiated(n))) continue;
    const at = () => callSite(info, n); // (looked for only when there is an error to place)
    if (f.custom?.passive) {
      if (n === info.head) diags.error(f.loc, `'${n}' is marked passive: it has no derivative to generate`, 'differentiate a function that calls it, or leave out `$ad passive`');
      continue;
    }
    if (!f.custom) {
      if (f.external) diags.error(at(), `'${n}' is declared without a body: tsad cannot differentiate calls of it`, `give it a derivative rule (export ${n}_jvp and/or ${n}_vjp, a \`// $ad custom-derivative tangent=… adjoint=…\` directive, or the customDerivatives option), or mark it \`// $ad passive\` if its result carries no derivative`);
      continue;
    }
    const forward = modes.includes('tangent') || modes.includes('vector');
    if (forward && !f.custom.tangent) diags.error(at(), `'${n}' has a hand-written adjoint rule (${f.custom.adjoint}) but no tangent rule: the forward modes cannot differentiate calls of it`, `add a tangent rule (${n}_jvp, or tangent=… in the directive), or ask for reverse mode only (--mode reverse)`);
    if (modes.includes('reverse') && !f.custom.adjoint) diags.error(at(), `'${n}' has a hand-written tangent rule (${f.custom.tangent}) but no adjoint rule: reverse mode cannot differentiate calls of it`, `add an adjoint rule (${n}_vjp, or adjoint=… in the directive), or ask for the forward modes only (--mode tangent,vector)`);
  }
}
