// The runtime API's hand-written derivatives: `customDerivatives: { f: { tangent, adjoint } }` or
// `{ f: { passive: true } }` for a function `f` of `scope`, with the rules as JavaScript functions
// (the signatures of docs/semantics.md). They reach compileModule as rules bound at run time
// (src/frontend/custom-derivatives.ts); a helper without readable source (a WebAssembly export, a
// native or bound function) becomes a black box. The self-check tests what one rule alone gives
// against divided differences.
import type { Module } from '../ir/types.js';
import type { CustomDerivativeOption } from '../frontend/custom-derivatives.js';
import type { Mode } from './compile.js';
import { axpy, clone, flatten } from './values.js';

type AnyFn = (...args: never[]) => unknown;

export interface RuntimeRule {
  tangent?: AnyFn;
  adjoint?: AnyFn;
  passive?: boolean;
}

export type RuntimeRules = Record<string, RuntimeRule>;

/** a JavaScript caller's `customDerivatives`, checked: a TypeError says what to pass */
export function checkRuntimeRules(api: string, rules: unknown, scope: Record<string, unknown> | undefined): void {
  if (rules === undefined) return;
  const example = `{ scope: { dot }, customDerivatives: { dot: { tangent: dotTangent, adjoint: dotAdjoint } } }`;
  if (typeof rules !== 'object' || rules === null || Array.isArray(rules)) throw new TypeError(`tsad: ${api}'s customDerivatives must be an object mapping helper names to rules, e.g. ${example}`);
  for (const [k, r] of Object.entries(rules)) {
    if (typeof scope?.[k] !== 'function') throw new TypeError(`tsad: ${api}'s customDerivatives names '${k}', which is not a function in scope; pass it too, e.g. ${example}`);
    if (typeof r !== 'object' || r === null) throw new TypeError(`tsad: ${api}'s customDerivatives entry '${k}' must be an object, e.g. { tangent: fnTangent, adjoint: fnAdjoint } or { passive: true }`);
    for (const [key, v] of Object.entries(r))
      if (key === 'passive' ? typeof v !== 'boolean' : key === 'tangent' || key === 'adjoint' ? typeof v !== 'function' : true)
        throw new TypeError(`tsad: ${api}'s customDerivatives entry '${k}' has '${key}': ${key === 'passive' ? 'a boolean' : key === 'tangent' || key === 'adjoint' ? 'a function' : 'not a known key (tangent, adjoint, passive)'} is expected`);
    const rule = r as RuntimeRule;
    if (!rule.passive && !rule.tangent && !rule.adjoint) throw new TypeError(`tsad: ${api}'s customDerivatives entry '${k}' gives no rule: a tangent, an adjoint, or passive: true`);
  }
}

/** the name a rule function is bound under in generated code */
function ruleName(helper: string, kind: 'tangent' | 'adjoint'): string {
  return `${helper}_${kind}Rule`;
}

/** compileModule's option for these rules (their functions bound at run time under ruleName) */
export function compileOption(rules: RuntimeRules | undefined): Record<string, CustomDerivativeOption> | undefined {
  if (!rules) return undefined;
  const out: Record<string, CustomDerivativeOption> = {};
  for (const [k, r] of Object.entries(rules)) out[k] = r.passive ? { passive: true } : { ...(r.tangent ? { tangent: ruleName(k, 'tangent') } : {}), ...(r.adjoint ? { adjoint: ruleName(k, 'adjoint') } : {}) };
  return out;
}

/** the rule functions by the names generated code calls them */
export function ruleBindings(rules: RuntimeRules | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, r] of Object.entries(rules ?? {})) {
    if (r.passive) continue;
    if (r.tangent) out[ruleName(k, 'tangent')] = r.tangent;
    if (r.adjoint) out[ruleName(k, 'adjoint')] = r.adjoint;
  }
  return out;
}

const ruleIds = new WeakMap<AnyFn, number>();
let nextRuleId = 1;
/** one number per rule function: two closures of one source are different rules (each is self-checked) */
function ruleId(fn: AnyFn | undefined): number {
  if (!fn) return 0;
  let id = ruleIds.get(fn);
  if (id === undefined) ruleIds.set(fn, (id = nextRuleId++));
  return id;
}

/** part of the compilation cache's key: which rules, by identity */
export function rulesKey(rules: RuntimeRules | undefined): unknown {
  return Object.keys(rules ?? {}).sort().map((k) => [k, !!rules![k].passive, ruleId(rules![k].tangent), ruleId(rules![k].adjoint)]);
}

/**
 * The modes to generate: a rule without a tangent allows reverse mode only, one without an adjoint the
 * forward modes only (both missing in different rules: every mode, and compileModule says why not).
 */
export function rulesModes(rules: RuntimeRules | undefined): Mode[] {
  const list = Object.values(rules ?? {}).filter((r) => !r.passive);
  const noTangent = list.some((r) => !r.tangent), noAdjoint = list.some((r) => !r.adjoint);
  if (noTangent && !noAdjoint) return ['reverse'];
  if (noAdjoint && !noTangent) return ['tangent', 'vector'];
  return ['tangent', 'vector', 'reverse'];
}

/** is this function's source unreadable (native, bound, a WebAssembly export)? */
export function hasNoSource(fn: unknown): boolean {
  return typeof fn === 'function' && /\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(fn));
}

/** a stand-in with the helper's arity, typed from its calls, then made a black box (blackBoxes) */
export function standIn(name: string, fn: AnyFn): string {
  return `function ${name}(${Array.from({ length: fn.length }, (_, i) => `a${i}`).join(', ')}) { return 0; }`;
}

/** the stand-ins' functions become black boxes: declared, bound at run time to the scope's functions */
export function blackBoxes(mod: Module, names: readonly string[]): Module {
  if (!names.length) return mod;
  const funcs = new Map(mod.funcs);
  for (const n of names) {
    const f = funcs.get(n);
    if (f) funcs.set(n, { ...f, body: [], external: true });
  }
  return { ...mod, funcs };
}

/**
 * The derivative's missing mode, by central divided differences (step 1e-6, and 5e-7 to detect a kink):
 * `f`'s value and ȳ·(J ẋ) for the directions `dirs` of the independents `wrt`. Null near a kink.
 */
export function differenceTangent(f: (...a: unknown[]) => unknown, args: unknown[], wrt: readonly number[], dirs: unknown[]): [unknown, number[]] | null {
  const at = (h: number) => {
    const a = args.map((x, i) => (wrt.includes(i) ? axpy(clone(x), h, dirs[wrt.indexOf(i)]) : clone(x)));
    return flatten(f(...a));
  };
  const dd = (h: number) => {
    const p = at(h), m = at(-h);
    return p.map((y, i) => (y - m[i]) / (2 * h));
  };
  const d1 = dd(1e-6), d2 = dd(5e-7);
  if (d1.some((x, i) => Math.abs(x - d2[i]) > 1e-5 * Math.max(1, Math.abs(x) + Math.abs(d2[i])))) return null;
  return [f(...clone(args)), d1];
}

/** |a − b| small against the divided differences' error (their own rounding and truncation) */
export function agreesWithDifferences(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= 1e-5 * Math.max(1, Math.abs(x) + Math.abs(b[i])));
}
