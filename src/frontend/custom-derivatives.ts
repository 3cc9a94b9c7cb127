// Hand-written derivatives and passive functions (JAX's custom_jvp/custom_vjp, Tapenade's black-box
// rules): which functions are differentiated by rules instead of through their bodies, from three
// forms that give one representation (`Func.custom`):
// - companions by name: `export function f_jvp(…)` and/or `export function f_vjp(…)` next to `f`;
// - a directive on f's declaration: `// $ad custom-derivative tangent=T adjoint=A`, or `// $ad passive`;
// - compile()'s option `customDerivatives: { f: { tangent: 'T', adjoint: 'A' } | { passive: true } }`
//   (a name that is no function of the module is a black box bound at run time, as the runtime API's).
// A rule has exactly the signature tsad gives f_d / f_b when every number-carrying parameter of f is
// differentiated (see docs/semantics.md); the transformation calls it through f's generated
// derivatives (src/transform/custom.ts), so callers treat f like any differentiated callee.
import ts from 'typescript';
import { computeWrites } from '../analysis/activity.js';
import type { CustomRule, Expr, Func, Loc, Module, Param, Ty } from '../ir/types.js';
import { directiveArgs, hasFloat, mapStmts, NUM, VOID } from '../ir/util.js';
import type { DiagnosticBag } from './diagnostics.js';

/** the call forms this concern adds (coverage: test/fuzz/coverage.ts) */
export const CUSTOM_FORMS = [
  'call.custom', // a call of a function with a hand-written derivative rule (companion, directive or option)
  'call.passive', // a call of a function marked `// $ad passive`: its result carries no derivative
] as const;

/** compile()'s `customDerivatives` entry for one function */
export interface CustomDerivativeOption {
  tangent?: string;
  adjoint?: string;
  passive?: boolean;
}

/** `declare function f(…): T;`: a function tsad cannot see, usable with a rule or as passive */
export function isBlackBoxDeclaration(st: ts.FunctionDeclaration): boolean {
  return !st.body && !st.asteriskToken && !!ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword);
}

/** how a parameter of a function with a rule carries a derivative: a number, an array of numbers, none; null: unsupported */
export function ruleDerivKind(t: Ty): 'scalar' | 'array' | 'none' | null {
  if (t.k === 'num' || t.k === 'int') return 'scalar';
  if (t.k === 'bool' || t.k === 'str') return 'none';
  if (t.k === 'arr' && (t.elem.k === 'num' || t.elem.k === 'int')) return t.ctor && t.ctor !== 'Float32Array' ? 'none' : 'array';
  return null;
}

/** the derivative type of a rule's parameter (a Float32Array's is a Float64Array, as everywhere) */
function derivParamTy(t: Ty): Ty {
  return t.k === 'arr' ? { k: 'arr', elem: NUM, typed: t.typed, ro: false } : NUM;
}

/** the parameter list a tangent (`f_jvp`) or adjoint (`f_vjp`) rule of `f` must have */
export function ruleParams(f: Func, kind: 'tangent' | 'adjoint'): Param[] {
  const out: Param[] = [];
  for (const p of f.params) {
    out.push({ name: p.name, ty: p.ty });
    const k = ruleDerivKind(p.ty);
    if (k === 'array' || (k === 'scalar' && kind === 'tangent')) out.push({ name: p.name + (kind === 'tangent' ? 'd' : 'b'), ty: derivParamTy(p.ty) });
  }
  if (kind === 'adjoint') out.push({ name: 'yb', ty: NUM });
  return out;
}

/** what a rule returns: `[value, tangent]`, or the adjoints of the number parameters (none, one, a tuple) */
export function ruleResult(f: Func, kind: 'tangent' | 'adjoint'): Ty {
  if (kind === 'tangent') return { k: 'tuple', elems: [NUM, NUM], ro: false };
  const m = f.params.filter((p) => ruleDerivKind(p.ty) === 'scalar').length;
  return m === 0 ? VOID : m === 1 ? NUM : { k: 'tuple', elems: Array(m).fill(NUM), ro: false };
}

/** a directive among a declaration's comments: `// $ad passive`, `// $ad custom-derivative tangent=T adjoint=A` */
function directive(f: Func, diags: DiagnosticBag): CustomRule | null {
  // (a directive is a comment of its own: a comment that mentions one in its prose is not one)
  for (const c of f.comments ?? []) {
    if (directiveArgs(c, 'passive') !== null) return { passive: true, from: 'directive', loc: f.loc };
    const m = directiveArgs(c, 'custom-derivative');
    if (m === null) continue;
    const rule: CustomRule = { passive: false, from: 'directive', loc: f.loc };
    for (const item of m.trim().split(/\s+/).filter(Boolean)) {
      const kv = /^(tangent|adjoint)=([A-Za-z_$][\w$]*)$/.exec(item);
      if (!kv) {
        diags.error(f.loc, `'$ad custom-derivative' on '${f.name}': cannot read '${item}'`, "write `// $ad custom-derivative tangent=myTangent adjoint=myAdjoint` (either one may be left out)");
        return null;
      }
      rule[kv[1] as 'tangent' | 'adjoint'] = kv[2];
    }
    if (!rule.tangent && !rule.adjoint) {
      diags.error(f.loc, `'$ad custom-derivative' on '${f.name}' names no rule`, "write `// $ad custom-derivative tangent=myTangent adjoint=myAdjoint` (either one may be left out)");
      return null;
    }
    return rule;
  }
  return null;
}

/** companions by name: exported `f_jvp` and/or `f_vjp` of the module */
function companions(mod: Module, f: Func): CustomRule | null {
  // (a companion outside the subset is one too: its own diagnostics are reported where it is reached)
  const has = (n: string) => mod.funcs.get(n)?.exported === true || mod.failed.has(n);
  const tangent = has(`${f.name}_jvp`) ? `${f.name}_jvp` : undefined;
  const adjoint = has(`${f.name}_vjp`) ? `${f.name}_vjp` : undefined;
  return tangent || adjoint ? { passive: false, from: 'companion', loc: f.loc, ...(tangent ? { tangent } : {}), ...(adjoint ? { adjoint } : {}) } : null;
}

function fromOption(o: CustomDerivativeOption, loc: Loc | undefined): CustomRule {
  if (o.passive) return { passive: true, from: 'option', loc };
  return { passive: false, from: 'option', loc, ...(o.tangent ? { tangent: o.tangent } : {}), ...(o.adjoint ? { adjoint: o.adjoint } : {}) };
}

function sameRule(a: CustomRule, b: CustomRule): boolean {
  return a.passive === b.passive && a.tangent === b.tangent && a.adjoint === b.adjoint;
}

/** compile()'s option, checked for JavaScript callers (a TypeError says what to pass) */
export function checkCustomOption(v: unknown): asserts v is Record<string, CustomDerivativeOption> | undefined {
  if (v === undefined) return;
  const bad = (what: string) => new TypeError(`tsad: options.customDerivatives ${what}; pass e.g. { f: { tangent: 'f_tangent', adjoint: 'f_adjoint' } } or { f: { passive: true } }`);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad('must be an object mapping function names to rules');
  for (const [k, r] of Object.entries(v)) {
    if (typeof r !== 'object' || r === null) throw bad(`entry '${k}' must be an object`);
    for (const [key, x] of Object.entries(r)) {
      if (key === 'passive' ? typeof x !== 'boolean' : key === 'tangent' || key === 'adjoint' ? typeof x !== 'string' || !/^[A-Za-z_$][\w$]*$/.test(x) : true) throw bad(`entry '${k}' has '${key}': ${key === 'passive' ? 'a boolean' : key === 'tangent' || key === 'adjoint' ? 'a function name' : 'not a known key (tangent, adjoint, passive)'} is expected`);
    }
    if (!r.passive && !('tangent' in r) && !('adjoint' in r)) throw bad(`entry '${k}' names no rule`);
  }
}

/** are two parameter or result types the same for a rule (readonly aside; int is a number) */
function fits(want: Ty, got: Ty): boolean {
  const norm = (t: Ty): Ty => (t.k === 'int' ? NUM : t.k === 'arr' ? { ...t, elem: norm(t.elem), ro: false } : t.k === 'tuple' ? { ...t, elems: t.elems.map(norm), ro: false } : t);
  return JSON.stringify(norm(want)) === JSON.stringify(norm(got));
}

function tyText(t: Ty): string {
  switch (t.k) {
    case 'num':
    case 'int':
      return 'number';
    case 'bool':
      return 'boolean';
    case 'void':
      return 'void';
    case 'str':
      return t.lits.length ? t.lits.map((l) => JSON.stringify(l)).join(' | ') : 'string';
    case 'arr':
      return t.typed ? t.ctor ?? 'Float64Array' : `${tyText(t.elem)}[]`;
    case 'tuple':
      return `[${t.elems.map(tyText).join(', ')}]`;
    default:
      return t.k;
  }
}

function signatureText(name: string, ps: Param[], ret: Ty): string {
  return `${name}(${ps.map((p) => `${p.name}: ${tyText(p.ty)}`).join(', ')}): ${tyText(ret)}`;
}

/**
 * The module with every function's rule recorded (`custom`) and the calls of such functions marked, or
 * the same module when there are none. Problems are reported on `diags`; rule functions named by the
 * option that the module does not declare are added as black boxes bound at run time.
 */
export function applyCustomDerivatives(mod: Module, option: Record<string, CustomDerivativeOption> | undefined, diags: DiagnosticBag): Module {
  checkCustomOption(option);
  const rules = new Map<string, CustomRule>();
  for (const n of mod.order) {
    const f = mod.funcs.get(n)!;
    const found = [directive(f, diags), companions(mod, f)].filter((r): r is CustomRule => r !== null);
    const fromOpt = option && Object.hasOwn(option, n) ? fromOption(option[n], f.loc) : null;
    if (fromOpt) found.unshift(fromOpt);
    if (!found.length) continue;
    const conflict = found.find((r) => !sameRule(r, found[0]));
    if (conflict) {
      diags.error(f.loc, `'${n}' has two different derivative rules (${found[0].from} and ${conflict.from})`, 'give one: a companion pair f_jvp/f_vjp, a `// $ad custom-derivative` directive, or the customDerivatives option');
      continue;
    }
    rules.set(n, found[0]);
  }
  for (const k of Object.keys(option ?? {}))
    if (!mod.funcs.has(k)) {
      const first = [...diags.sources.keys()][0] ?? '<input>';
      diags.error({ file: first, line: 1, col: 1 }, `customDerivatives names '${k}', which is not a function of the compilation`, `functions found: ${mod.order.join(', ') || '(none)'}`);
    }
  if (!rules.size) return mod;
  const funcs = new Map(mod.funcs);
  const order = [...mod.order];
  const writes = computeWrites(mod);
  for (const [n, rule] of rules) {
    const f = funcs.get(n)!;
    if (!validate(f, rule, writes.get(n) ?? new Set(), funcs, order, mod.failed, diags)) continue;
    funcs.set(n, { ...f, custom: rule });
  }
  markRuleCalls(funcs, order);
  return { ...mod, funcs, order };
}

/** calls of functions with rules carry the kind of rule (analyses read it; coverage counts it): `funcs` updated in place */
export function markRuleCalls(funcs: Map<string, Func>, order: readonly string[]): void {
  for (const n of order) {
    const f = funcs.get(n)!;
    if (f.external) continue;
    let marked = false;
    const body = mapStmts(f.body, (e): Expr => {
      if (e.k !== 'call') return e;
      const r = funcs.get(e.fn)?.custom;
      if (!r || e.custom) return e;
      marked = true;
      return { ...e, custom: r.passive ? 'passive' : 'rule' };
    });
    if (marked) funcs.set(n, { ...f, body });
  }
}

/** f's signature suits a rule, and each named rule has the signature of f's derivative */
function validate(f: Func, rule: CustomRule, written: Set<number>, funcs: Map<string, Func>, order: string[], failed: Module['failed'], diags: DiagnosticBag): boolean {
  const what = rule.from === 'companion' ? 'its companion' : rule.from === 'directive' ? "its '$ad' directive" : 'the customDerivatives option';
  if (rule.passive) {
    // a write into an array that carries derivatives would leave its shadow stale
    const bad = f.params.find((p, j) => written.has(j) && hasFloat(p.ty));
    if (bad) {
      diags.error(f.loc, `the passive function '${f.name}' writes into its argument '${bad.name}', whose derivative would be left stale`, 'return a fresh array instead, or differentiate the function (leave out `$ad passive`)');
      return false;
    }
    return true;
  }
  const badParam = f.params.find((p) => ruleDerivKind(p.ty) === null);
  if (badParam) {
    diags.error(f.loc, `'${f.name}' has a hand-written derivative (${what}), but its parameter '${badParam.name}' is not a number, boolean, string flag or array of numbers`, 'rules take numbers, booleans, string flags and one-dimensional arrays of numbers: pass the fields of an object, or the rows of a matrix flattened');
    return false;
  }
  if (f.ret.k !== 'num' && f.ret.k !== 'int') {
    diags.error(f.loc, `'${f.name}' has a hand-written derivative (${what}), but returns ${tyText(f.ret)}, not a number`, 'rules are for functions returning a number: write one rule per output, or differentiate the function through its body');
    return false;
  }
  const w = f.params.find((_, j) => written.has(j));
  if (w) {
    diags.error(f.loc, `'${f.name}' has a hand-written derivative (${what}), but writes into its argument '${w.name}'`, 'a function with a rule must leave its arguments as they were: return the result instead');
    return false;
  }
  let ok = true;
  for (const kind of ['tangent', 'adjoint'] as const) {
    const name = rule[kind];
    if (!name) continue;
    const want = ruleParams(f, kind);
    const ret = ruleResult(f, kind);
    const g = funcs.get(name);
    if (!g && failed.has(name)) continue; // outside the subset: compileModule reports why where f is reached
    if (!g) {
      if (rule.from !== 'option') {
        diags.error(f.loc, `the ${kind} rule '${name}' of '${f.name}' is not a function of the compilation`, `declare it: export function ${signatureText(name, want, ret)}`);
        ok = false;
        continue;
      }
      // a rule bound at run time (the runtime API's scope, or __bindScope): a black box of the conventional signature
      funcs.set(name, { name, params: want, ret, body: [], exported: true, external: true, loc: f.loc });
      order.push(name);
      continue;
    }
    const sameParams = g.params.length === want.length && want.every((p, j) => fits(p.ty, g.params[j].ty));
    if (!sameParams || !fits(ret, g.ret)) {
      diags.error(g.loc ?? f.loc, `the ${kind} rule '${name}' of '${f.name}' has the signature ${signatureText(name, g.params, g.ret)}`, `a ${kind} rule of ${signatureText(f.name, f.params, f.ret)} is ${signatureText(name, want, ret)}${kind === 'tangent' ? ' (the value and its tangent, like f_d)' : ' (array adjoints accumulate into the b arrays, number adjoints are returned, like f_b)'}`);
      ok = false;
    }
  }
  return ok;
}

/** is `fn` a rule function of some function with a custom derivative (reached through that function) */
export function ruleFunctions(f: Func): string[] {
  const r = f.custom;
  return r && !r.passive ? [r.tangent, r.adjoint].filter((x): x is string => !!x) : [];
}

/** does this function have a custom rule that replaces differentiating its body? */
export function hasRule(f: Func | undefined): boolean {
  return !!f?.custom && !f.custom.passive;
}
