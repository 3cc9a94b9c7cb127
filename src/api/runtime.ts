// The runtime API for people who don't want a build step: grad, valueAndGrad, jvp, vjp, jacobian over
// plain JavaScript functions. The function's source is read, typed from the shapes of its arguments,
// compiled once per (function, options, shapes) and loaded with `new Function`.
import { flattenNamespaces } from './namespaces.js';
import { patternParamName } from '../frontend/destructuring.js';
import ts from 'typescript';
import { DiagnosticBag, formatDiagnostic, TsadError } from '../frontend/diagnostics.js';
import { sizeParams } from '../analysis/ints.js';
import { compileModule, defaultWrt, frontEnd } from './compile.js';
import { compileElements, compileHvp } from './hessian.js';
import { sparseByElements, type ElementState } from './elements.js';
import { blockState, checkedAgainstTangent, columnStarts, compileBlocks, NotBlocks, rowStarts, sparseByBlocks, type BlockState } from './blocks.js';
import { fieldTypesOfInstances, instanceType, readClass, valueTypeText, type ClassSource } from './classes.js';
import { inferHelperTypes, helperModule, recursiveHelpers, untypedHelperHint, type Helper } from './infer.js';
import { annotateLocals, assertTakenElements } from './locals.js';
import { argumentType, testsForAbsence } from './absent.js';
import { annotate, asDeclaration, readFunction, type FunctionSource } from './source.js';
import { loadGenerated } from './load.js';
import { shapeKey, tyOfValue, typeText, whereUnusable } from './shapes.js';
import { assertNoAliasing, clone, dot, flatten, numbersOnly, randomLike, rng } from './values.js';
import { hessianAt, independentCount, scalarIndependents, jacobianAt, outputCount, outputTangent, ownOrder, packedSweep, runAdjoint, runTangent, runVector, tangentColumns, type Entry, type Generated } from './sweeps.js';
import { diagonalOf, mismatch, positions, renumbered, sparseAt, type SparseMatrix, type SparseState } from './sparse.js';
import { differsError, mismatchError, sameResults, selfCheck, valueError, type Probe } from './selfcheck.js';
import { zerosLike } from '../runtime/arrays.js';
import { agreesWithDifferences, blackBoxes, checkRuntimeRules, compileOption, differenceTangent, hasNoSource, ruleBindings, rulesKey, rulesModes, standIn, type RuntimeRules } from './custom-rules.js';
import type { AnyFunction, Gradient, MaybeGradient, OptionsFor, ResultTangent, Tangents } from './types.js';

type Fn = (...args: never[]) => unknown;

/** what `wrt` may be (the signatures also reject a literal position out of `f`'s range: OptionsFor) */
export type Wrt = number | string | readonly (number | string)[];

export interface RuntimeOptions<W = Wrt> {
  /**
   * independents: argument positions or parameter names (default: the first argument, as in JAX); the
   * results hold one derivative per independent, in this order, when this is a list, else the one
   */
  wrt?: W;
  /** free identifiers of `f`: functions (compiled with f, transitively) and data (passive inputs) */
  scope?: Record<string, unknown>;
  /**
   * Self-check (default on): the first call of each compiled derivative (per function, options and
   * argument shapes) also runs one tangent and one adjoint on copies of the arguments and compares them
   * by the dot-product test, throwing an Error that names the function and the point if they disagree
   * (a bug in tsad). Costs one tangent and one adjoint evaluation more (and copies of the arguments)
   * on that first call; later calls test one boolean. At a point where a value or derivative is NaN or infinite it checks nothing and tries
   * again on the next call. `check: false` skips it.
   */
  check?: boolean;
  /**
   * hand-written derivatives of helpers in `scope`: `{ dot: { tangent: dotTangent, adjoint: dotAdjoint } }`
   * (the signatures of docs/semantics.md), or `{ noise: { passive: true } }` (no derivative); a helper
   * with a rule may be a native or WebAssembly function (a black box)
   */
  customDerivatives?: RuntimeRules;
  /** coarsening (compile()'s option): functions, or segments of them, differentiated by their closed forms */
  coarsen?: boolean;
  /**
   * sparse vector mode (compile()'s option): the vector tangent behind jacfwd, jacobian's forward way and
   * sparse Jacobians loops over the directions each value depends on only (issue 18: pays where outputs
   * depend on few inputs each)
   */
  sparseVector?: boolean;
  /**
   * jacobian, jacfwd, jacrev and sparseJacobian: the Jacobian's rows are the floats these arguments hold
   * after the call (positions or names, in order), for a function that writes its results into arrays
   * it is passed, instead of the floats of its result
   */
  of?: readonly (number | string)[];
  /**
   * sparseHessian's method: 'elements' (the default where it applies: a sum of element functions of one
   * number array, each element's Hessian added in) or 'colouring' (compressed sweeps, always available);
   * sparseJacobian's: 'blocks' (the default where it applies: loops over independent items, one dense
   * block an iteration, src/transform/blocks.ts) or 'colouring'
   */
  sparse?: 'elements' | 'blocks' | 'colouring';
  /**
   * sparseHessian by elements: write each call's values into the previous call's array (so a result's
   * values hold until the next call with this option) instead of a fresh one, which at n = 10⁴ costs
   * more than the evaluation (Newton iterations reading each Hessian before the next)
   */
  reuseValues?: boolean;
}

interface Compiled extends Generated {
  head: string;
  params: string[];
  hasScope: boolean;
  /** does the function return a single number (what grad and valueAndGrad need)? */
  scalarResult: boolean;
  /** the self-check has yet to pass at a finite point */
  unchecked: boolean;
  /** the vector tangent has yet to be compared with the tangent at a finite point */
  vectorUnchecked: boolean;
  /** sparseJacobian's or sparseHessian's pattern and colouring for these shapes (sparse.ts) */
  sparse?: SparseState;
  /** sparseHessian by elements, where the head is a sum of element functions of one number array (elements.ts) */
  elements?: { record: (...args: unknown[]) => number; add: (...args: unknown[]) => number; sites: number; slots: number; state?: ElementState };
  /** the source compiled (the head and its helpers), for the block Jacobian code compiled on first use */
  source?: Map<string, string>;
  /** sparseJacobian by blocks, where the head's loops run over independent items (blocks.ts); null: not of that form */
  /** blocks (src/api/blocks.ts): checked against the tangent on the first call and after every new plan, on their own (not colouring's flag) */
  blocks?: { run: (...args: unknown[]) => number; state: BlockState; unchecked: boolean } | null;
  /** the sparse result has yet to be compared with the dense tangent at a finite point */
  sparseUnchecked?: boolean;
  /** the scope data the compiled copy's value was last compared with `f`'s under (by identity) */
  scopeChecked?: unknown[];
}

/** what a compilation is for: first derivatives, or the gradient's tangent (Hessian-vector products) alone or with its vector mode (Hessians) */
type Order = 1 | 'hvp' | 'hessian';

const cache = new WeakMap<Fn, Map<string, Compiled>>();

/** scope entries the head mentions, directly or through helpers it mentions */
function reachable(src: string, scope: Record<string, unknown>): Set<string> {
  const seen = new Set<string>();
  // (a name after a dot is a property, `o.k`, unless the dot ends a spread, `{ ...D }`)
  const mentions = (text: string, name: string) => new RegExp(`(^|[^\\w$.]|\\.\\.\\.)${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(text);
  const todo = [src];
  while (todo.length) {
    const text = todo.pop()!;
    for (const k of Object.keys(scope))
      if (!seen.has(k) && mentions(text, k)) {
        seen.add(k);
        if (typeof scope[k] === 'function') todo.push(String(scope[k]));
      }
  }
  return seen;
}

/**
 * A name the function's source reads but does not declare is a variable it closes over (a factory's
 * argument, `makeLoss(data)` returning `(w) => …data…`, or a variable of the enclosing scope): the
 * source alone cannot say what it holds, so it must come in `scope`. One error per name, saying so.
 */
function freeVariables(e: TsadError, head: string): TsadError {
  const seen = new Set<string>();
  const out = e.diagnostics.filter((d) => {
    const name = /^Cannot find name '([^']+)'/.exec(d.message)?.[1];
    if (!name) return true;
    if (seen.has(name)) return false;
    seen.add(name);
    d.message = `'${name}' is a free variable of '${head}': the runtime API compiles the function's source alone, and cannot see what it closes over (a factory's argument, a variable of the enclosing scope)`;
    d.hint = `pass it in scope: \`grad(${head}, { scope: { ${name} } })\` (the same option for valueAndGrad, jvp, vjp and jacobian)`;
    return true;
  });
  return seen.size ? new TsadError(out) : e;
}

/** the type of what `f` returns on `args`, as TypeScript text (null if it has no usable shape) */
function resultType(f: Fn, args: unknown[]): string | null {
  const t = tyOfValue((f as (...a: unknown[]) => unknown)(...clone(args)));
  return t ? typeText(t) : null;
}

function normalizeWrt(opt: RuntimeOptions['wrt'], params: string[], what = 'wrt'): number[] {
  const list = opt === undefined ? [0] : Array.isArray(opt) ? opt : [opt];
  return list.map((w) => {
    const i = typeof w === 'number' ? w : params.indexOf(w);
    if (i < 0 || i >= params.length) throw new Error(`tsad: ${what} '${w}' is not a parameter (${params.join(', ')})`);
    return i;
  });
}

/**
 * The default independent: the first argument (as in JAX), unless it is a number used only as a size or
 * index (then the first parameter of the default signature, which leaves such numbers out).
 */
function firstIndependent(front: ReturnType<typeof frontEnd>, head: string, params: string[]): number {
  const f = front.funcs.get(head);
  if (!f || !sizeParams(front, head).has(params[0])) return 0;
  const i = params.indexOf(defaultWrt(front, f)[0]);
  return i < 0 ? 0 : i;
}

/**
 * Omitted arguments are fine where the parameter has a default, is marked optional, or is tested for
 * absence by the body (`if (closed)`, `opts ?? {}`); elsewhere say how many `f` takes.
 */
function checkArity(head: string, info: FunctionSource, params: string[], given: number): void {
  // (a function reading `arguments` declares none: there is nothing to differentiate with respect to)
  if (params.length === 0 && given > 0)
    throw new TypeError(`tsad: '${head}' declares no parameters (reading \`arguments\` instead?): tsad differentiates with respect to declared parameters; declare them, e.g. \`function ${head}(...xs)\` or \`function ${head}(a, b)\``);
  let required = info.params.length;
  const optional = (p: ts.ParameterDeclaration, i: number) => !!(p.initializer || p.questionToken || p.dotDotDotToken) || (!p.type && testsForAbsence(info, i));
  while (required > 0 && optional(info.params[required - 1], required - 1)) required--;
  if (given < required) throw new TypeError(`tsad: '${head}' takes ${required === params.length ? '' : 'at least '}${required} argument${required === 1 ? '' : 's'} (${params.join(', ')}), but was called with ${given}`);
}

/** The compiled derivative for these arguments, self-checked on its first call (see RuntimeOptions.check). */
function compileFor(f: Fn, opts: RuntimeOptions, args: unknown[]): Compiled {
  const c = lookupOrCompile(f, opts, args, 1);
  if (c.unchecked && opts.check !== false) runSelfCheck(c, f, opts, args);
  else if (c.hasScope && opts.check !== false && scopeChanged(c, opts)) assertSameValue(c, f, opts, args);
  if (c.hasScope) c.scopeChecked = scopeData(opts);
  return c;
}

/**
 * the data values in scope, in name order: other data of the same shapes reuses the compiled copy, and
 * its value is compared with `f`'s once more (the closure may not read what scope says it does)
 */
function scopeData(opts: RuntimeOptions): unknown[] {
  const scope = opts.scope ?? {};
  return Object.keys(scope).sort().flatMap((k) => (typeof scope[k] === 'function' ? [] : [k, scope[k]]));
}

function scopeChanged(c: Compiled, opts: RuntimeOptions): boolean {
  const now = scopeData(opts);
  return !c.scopeChecked || now.length !== c.scopeChecked.length || now.some((v, i) => !Object.is(v, c.scopeChecked![i]));
}

function runSelfCheck(c: Compiled, f: Fn, opts: RuntimeOptions, args: unknown[]): void {
  assertSameValue(c, f, opts, args);
  // a hand-written rule alone gives one mode: it is checked against divided differences
  if (!c.mod[`${c.head}_d`] || !c.mod[`${c.head}_b`]) return runDifferenceCheck(c, f, opts, args);
  const probe: Probe = { tangent: (a, dirs) => tangent(c, opts, a, dirs), adjoint: (a, seed) => reverse(c, opts, a, clone(seed))[1], value: (a) => (c.mod[c.head] as (...x: unknown[]) => unknown)(...a) };
  const t = selfCheck(probe, args, c.wrt);
  if (t.kind === 'differs') {
    const e = differsError(c.head, f.toString(), c.params, args, t);
    if (opts.customDerivatives) e.message = e.message.replace('This is a bug in tsad', 'A hand-written rule in customDerivatives may be wrong (it must be the derivative of the function it stands for); otherwise this is a bug in tsad');
    throw e;
  }
  if (t.kind === 'mismatch') {
    const e = mismatchError(c.head, f.toString(), c.params, args, t);
    // with hand-written rules, the first suspect is a rule whose tangent and adjoint disagree
    if (opts.customDerivatives) e.message = e.message.replace('This is a bug in tsad', 'A hand-written rule in customDerivatives may be wrong (its tangent and adjoint must be derivatives of one function); otherwise this is a bug in tsad');
    throw e;
  }
  // at a non-finite point, or a kink (a tie of Math.max: the derivative there is the rule table's
  // convention, which divided differences cannot confirm), nothing was compared: the next call checks again
  c.unchecked = t.kind === 'nonfinite' || t.kind === 'kink';
}

/**
 * The compiled copy of `f` computes what `f` computes at the caller's arguments: a type the runtime API
 * gave `f` or its helpers from their calls that changed what the program does shows here, before any
 * derivative of the wrong function is returned. (Where `f` throws, the call itself will say so.)
 */
function assertSameValue(c: Compiled, f: Fn, opts: RuntimeOptions, args: unknown[]): void {
  let original: unknown;
  try {
    original = (f as (...x: unknown[]) => unknown)(...clone(args));
  } catch {
    return;
  }
  bind(c, opts);
  let compiled: unknown;
  try {
    compiled = (c.mod[c.head] as (...x: unknown[]) => unknown)(...clone(args));
  } catch (e) {
    compiled = `an exception (${e instanceof Error ? e.message : String(e)})`;
  }
  if (typeof compiled === 'string' || !sameResults(compiled, original)) throw valueError(c.head, f.toString(), c.params, args, compiled, original, Object.keys(opts.scope ?? {}).filter((k) => typeof opts.scope![k] !== 'function').sort());
}

/** the self-check of a derivative with one mode: that mode against central divided differences */
function runDifferenceCheck(c: Compiled, f: Fn, opts: RuntimeOptions, args: unknown[]): void {
  bind(c, opts);
  const R = rng(0x7ad5e1f);
  const dirs = c.wrt.map((i) => randomLike(args[i], R));
  const dd = differenceTangent(c.mod[c.head] as (...a: unknown[]) => unknown, args, c.wrt, dirs);
  if (!dd || !dd[1].every(Number.isFinite)) return; // near a kink, or not finite: the next call checks again
  let ok: boolean;
  let left: number, right: number;
  if (c.mod[`${c.head}_d`]) {
    const t = flatten(tangent(c, opts, args, dirs)[1]);
    ok = agreesWithDifferences(t, dd[1]);
    left = t.reduce((s, x) => s + x, 0);
    right = dd[1].reduce((s, x) => s + x, 0);
  } else {
    const ybar = randomLike(dd[0], R);
    const xbar = reverse(c, opts, args, clone(ybar))[1];
    left = flatten(ybar).reduce((s, y, i) => s + y * dd[1][i], 0);
    right = xbar.reduce<number>((s, x, k) => s + dot(x, dirs[k]), 0);
    ok = agreesWithDifferences([left], [right]);
  }
  if (!ok) throw new Error(`tsad: self-check failed for '${c.head}': its derivative (from a hand-written rule) disagrees with divided differences (${left} vs ${right}) at ${c.params.map((p, i) => `${p} = ${JSON.stringify(Array.from(flatten(args[i])))}`).join(', ')}; check the rule's formula and its signature (docs/semantics.md), or pass { check: false }`);
  c.unchecked = false;
}

/** order 1: the tangent, vector tangent and adjoint of `f`; 'hvp' and 'hessian': the gradient and its tangent, and its vector tangent for 'hessian' (hessian.ts) */
function lookupOrCompile(f: Fn, opts: RuntimeOptions, args: unknown[], order: Order): Compiled {
  assertNoAliasing(args, args.map((_, i) => `argument ${i + 1}`));
  // (an object of functions in scope is a namespace: its members become helpers, namespaces.ts)
  const { scope, head: source } = flattenNamespaces(opts.scope ?? {}, f.toString());
  const key = JSON.stringify([order, opts.wrt ?? 0, opts.of ?? null, Object.keys(scope).sort(), args.map(shapeKey), Object.keys(scope).sort().map((k) => (typeof scope[k] === 'function' ? functionKey(scope[k] as AnyFunction) : shapeKey(scope[k]))), rulesKey(opts.customDerivatives), opts.coarsen === true, opts.sparseVector === true]);
  let perFn = cache.get(f);
  if (!perFn) cache.set(f, (perFn = new Map()));
  const hit = perFn.get(key);
  if (hit) return hit;

  const info = readFunction(source);
  // a destructured parameter has the name the front end gives it
  const params = info.params.map((p, i) => (ts.isIdentifier(p.name) ? p.name.text : patternParamName(p, i)));
  const head = info.name && !/^(function|async)$/.test(info.name) ? info.name : f.name && /^[A-Za-z_$][\w$]*$/.test(f.name) ? f.name : 'f';
  checkArity(head, info, params, args.length);
  // instances of scope classes are typed by their class (classes.ts)
  const classOf = new Map<unknown, string>();
  for (const k of Object.keys(scope)) if (isClass(scope[k])) classOf.set(scope[k], k);
  // what a value does not show (an argument left `undefined`, a field it lacks) is typed from its uses
  const argTypes = args.map((a, i) => {
    const t = instanceType(a, classOf) ?? argumentType(info, i, a);
    if (!t) throw new Error(`tsad: argument ${i + 1} (${params[i]}) has a shape tsad cannot differentiate through (${whereUnusable(a, params[i]) ?? 'its fields'}): pass numbers, booleans, strings, arrays of one type (records may lack an optional field), objects of these and Float64Arrays`);
    return t;
  });
  // an untyped parameter left out (checkArity let it: the body tests it) is typed from its uses, `| undefined`
  for (let i = args.length; i < info.params.length; i++) {
    const p = info.params[i];
    // (and one defaulted to an object literal, `opts = {}`, by the fields the body reads: `{ delta = 1 } = opts`)
    const objectDefault = !!p.initializer && ts.isObjectLiteralExpression(p.initializer);
    if (!p.type && ((!p.initializer && !p.dotDotDotToken && !p.questionToken) || objectDefault)) argTypes[i] = argumentType(info, i, undefined)!;
  }
  const parts: string[] = [];
  const helpers: Helper[] = [];
  const classes: ClassSource[] = [];
  const noSource: string[] = [];
  // (a class whose instances are passed is used even where the source never names it)
  const used = reachable([info.text, ...argTypes].join('\n'), scope);
  for (const k of Object.keys(scope).sort()) {
    const v = scope[k];
    if (!used.has(k)) continue;
    if (isClass(v)) classes.push(readClass(k, v));
    // a helper with a rule and no source (native, WebAssembly) is typed from a stand-in, then declared (custom-rules.ts)
    else if (typeof v === 'function' && opts.customDerivatives?.[k] && hasNoSource(v)) {
      helpers.push({ name: k, fn: readFunction(standIn(k, v as Fn)) });
      noSource.push(k);
    } else if (typeof v === 'function') helpers.push({ name: k, fn: readFunction(v.toString()) });
    else {
      const t = valueTypeText(v, classOf);
      if (!t && (v === undefined || v === null)) throw new Error(`tsad: scope entry '${k}' is ${v}: give the value the function reads under that name (a misspelt or not yet assigned variable?)`);
      if (!t) throw new Error(`tsad: scope entry '${k}' has a shape tsad cannot use: scope takes numbers, booleans, strings, arrays and objects of these, functions, classes and objects of functions (namespaces: \`${k}.f(…)\`)`);
      parts.push(`declare const ${k}: ${t};`);
    }
  }
  // recursion needs a declared result type under strict checking: the head's comes from its value here
  // (recursion through helpers too: evenTerm calling oddTerm calling evenTerm)
  const headRet = recursiveHelpers([{ name: head, fn: info }, ...helpers]).has(head) ? resultType(f, args) : null;
  // (parameters past the arguments given: an `opts = {}` left out is typed by the fields its body reads)
  parts.push(asDeclaration(head, annotate(info, argTypes, headRet, args.length)));
  // locals TypeScript types too loosely (`let y;` assigned in a switch, `const args = [a, b, t]` only
  // spread) are annotated (locals.ts): the head's before its calls type the helpers (`lerp(...args)`
  // needs the tuple), the helpers' once their parameters are typed
  const prelude = [annotateLocals(parts.join('\n'))];
  // helpers are typed from their use: parameters from their call sites, results by TypeScript
  // (and classes: fields from the instances passed, the rest from their use)
  const instanceFields = fieldTypesOfInstances([...args, ...Object.values(scope)], classOf);
  const helperTypes = inferHelperTypes(prelude, helpers, classes, instanceFields);
  const module = assertTakenElements(annotateLocals(helperModule(prelude, helpers, helperTypes, classes)));
  const files = new Map([['function.ts', module]]);
  let front: ReturnType<typeof frontEnd>;
  try {
    front = frontEnd(Object.fromEntries(files));
  } catch (e) {
    // an untyped helper parameter is the runtime API's inference falling short, not the user's typing
    if (e instanceof TsadError) {
      for (const d of e.diagnostics) {
        const hint = /implicitly has an 'any' type/.test(d.message) ? untypedHelperHint(module, helpers, helperTypes, d.line) : null;
        if (hint) d.hint = hint;
        untypedFieldHint(d);
        factoryAdvice(d);
      }
      throw freeVariables(e, head);
    }
    throw e;
  }
  const wrt = opts.wrt === undefined ? [firstIndependent(front, head, params)] : normalizeWrt(opts.wrt, params);
  const of = opts.of === undefined ? undefined : normalizeWrt(opts.of, params, 'of');
  // values come from the primal itself, gradients from f_b on copies: its forward sweep need not
  // keep the primal's results (diff-liveness at full strength)
  if (order !== 1 && noSource.length) throw new Error(`tsad: second derivatives of a black box ('${noSource[0]}') are not available: its hand-written rule gives first derivatives only`);
  const r =
    order === 1
      ? compileModule(blackBoxes(front, noSource), { head, wrt: wrt.map((i) => params[i]), of: of?.map((i) => params[i]), js: true, runtimeImport: null, adjoint: { primalResults: false }, modes: rulesModes(opts.customDerivatives), customDerivatives: compileOption(opts.customDerivatives), coarsen: opts.coarsen === true, sparseVector: opts.sparseVector === true }, new DiagnosticBag(files))
      : compileHvp(Object.fromEntries(files), { head, wrt: wrt.map((i) => params[i]), modes: order === 'hessian' ? ['tangent', 'vector'] : ['tangent'], js: true, runtimeImport: null, customDerivatives: compileOption(opts.customDerivatives) });
  if (r.diagnostics.length) throw new TsadError(r.diagnostics.map(untypedFieldHint).map(factoryAdvice));
  const mod = loadGenerated(r.code, r.runtimeNames);
  // (a hand-written rule may give one mode only)
  const entry = (name: string): Entry | null => (mod[name] ? { name, params: r.manifest.find((m) => m.name === name)?.params ?? [] } : null);
  const seed = entry(`${head}_b`)?.params.find((p) => p.role === 'seed');
  const compiled: Compiled = {
    mod, head, params, wrt,
    primal: order === 1 ? head : `${head}_grad`,
    scalarWrt: order === 1 ? scalarIndependents(wrt, args, params, entry(`${head}_b`)) : wrt.filter((i) => typeof args[i] === 'number').sort((x, y) => x - y),
    hasScope: !!mod.__bindScope,
    scalarResult: order !== 1 || seed?.type === 'number',
    unchecked: true,
    tangent: entry(order === 1 ? `${head}_d` : `${head}_grad_d`),
    vector: entry(order === 1 ? `${head}_dv` : `${head}_grad_dv`),
    adjoint: order === 1 ? entry(`${head}_b`) : null,
    vectorUnchecked: true,
    source: files,
    outputs: of && { result: false, params: of },
  };
  if (order === 'hessian') compiled.elements = elementsOf(files, head, params, wrt, args);
  perFn.set(key, compiled);
  return compiled;
}

/** the element Hessian code (elements.ts) where the only independent is an array of numbers and the head a sum of element functions of it; else none (sparseHessian colours) */
function elementsOf(files: Map<string, string>, head: string, params: string[], wrt: number[], args: unknown[]): Compiled['elements'] {
  if (wrt.length !== 1 || !(Array.isArray(args[wrt[0]]) || args[wrt[0]] instanceof Float64Array)) return undefined;
  const r = compileElements(Object.fromEntries(files), { head, wrt: params[wrt[0]], js: true });
  if ('refused' in r) return undefined;
  const mod = loadGenerated(r.code);
  return { record: mod[r.name] as (...args: unknown[]) => number, add: mod[r.addName] as (...args: unknown[]) => number, sites: r.sites, slots: r.slots };
}

/**
 * The front end's refusal of a factory called in the compiled code points to the runtime API, which is
 * where this is: here it says what to pass instead (the closure itself, or its work as a helper).
 */
function factoryAdvice<D extends { message: string; hint?: string }>(d: D): D {
  const m = /^'([^']+)' returns a function \(a closure over its arguments\): tsad differentiates a function returned by a factory only through the runtime API$/.exec(d.message);
  if (!m) return d;
  const name = m[1];
  d.message = `'${name}' returns a function (a closure over its arguments), and the function differentiated calls it: tsad does not follow a function a call returns`;
  d.hint = `differentiate the closure itself, \`grad(${name}(…), { scope: { … } })\` with what it reads in scope, or write what it computes as a helper in scope that takes ${name}'s arguments (and any state it keeps, as a parameter and a result) and call that instead`;
  return d;
}

/** a class field the runtime API could not type (nothing definite assigned to it) gets a hint saying why */
function untypedFieldHint<D extends { message: string; hint?: string }>(d: D): D {
  const field = /whose field '([^']+)' has type 'any'/.exec(d.message);
  if (field) d.hint = `the runtime API types a class's field from the values the class assigns to it (or the instances passed): '${field[1]}' is given none of a definite type (\`null\` or \`[]\` alone); assign it a value of its type in the constructor (\`this.${field[1]} = [0]\`, a placeholder object)`;
  return d;
}

/**
 * A function in scope as the cache sees it: its source, and for a class the members it has now too (a
 * method replaced after the first call, `P.prototype.e = …`, is not in the class's source: compiled
 * again, the first call's check then finds the source and the running class disagree).
 */
function functionKey(fn: AnyFunction): string {
  if (!isClass(fn)) return String(fn);
  const members = (o: object) =>
    Object.getOwnPropertyNames(o)
      .filter((n) => n !== 'constructor' && n !== 'prototype' && n !== 'length' && n !== 'name')
      .map((n) => {
        const d = Object.getOwnPropertyDescriptor(o, n)!;
        return `${n}=${[d.value, d.get, d.set].map((x) => (typeof x === 'function' ? String(x) : '')).join('|')}`;
      });
  return [String(fn), ...members(fn), ...members((fn as { prototype: object }).prototype)].join('\n');
}

/** a class (its source starts `class`), as opposed to a function */
function isClass(v: unknown): boolean {
  return typeof v === 'function' && /^class\b/.test(Function.prototype.toString.call(v));
}

function bind(c: Compiled, opts: RuntimeOptions): void {
  if (c.hasScope) c.mod.__bindScope({ ...opts.scope, ...ruleBindings(opts.customDerivatives) });
}

/** Runs the adjoint with seed `seed`; returns [value, gradients per wrt argument]. */
function reverse(c: Compiled, opts: RuntimeOptions, args: unknown[], seed: unknown): [unknown, unknown[]] {
  bind(c, opts);
  if (!c.adjoint) throw new Error(opts.customDerivatives ? `tsad: '${c.head}' has no adjoint: a helper's hand-written derivative in customDerivatives gives no adjoint rule; add one, or use jvp` : 'tsad: no adjoint was generated');
  return runAdjoint(c, args, seed);
}

/** Runs the tangent with directions `tangents` for the wrt arguments; returns [value, its tangent]. */
function tangent(c: Compiled, opts: RuntimeOptions, args: unknown[], tangents: unknown[]): [unknown, unknown] {
  bind(c, opts);
  if (!c.tangent) throw new Error(`tsad: '${c.head}' has no tangent: a helper's hand-written derivative in customDerivatives gives no tangent rule; add one, or use grad, vjp or jacobian`);
  return runTangent(c, args, tangents);
}

function unwrap(opts: RuntimeOptions, grads: unknown[]): unknown {
  return Array.isArray(opts.wrt) ? grads : grads[0];
}

function withErrors<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof TsadError) throw new Error('tsad: ' + e.diagnostics.map(formatDiagnostic).join('\n'));
    // a recursion deep enough for the function can be too deep for its derivative, whose frames are
    // larger (and, in reverse mode, two sweeps deep)
    if (e instanceof RangeError && /call stack/i.test(e.message))
      throw new RangeError('tsad: the derivative ran out of call stack: its recursion is deeper than the stack allows (derivative frames are larger than the function\'s); write the recursion as a loop, or raise the stack size (node --stack-size=…)', { cause: e });
    throw e;
  }
}

// ---- what JavaScript callers pass: checked at each entry point, so that a mistake gets a TypeError
// saying what to pass instead of a failure deep inside ----

const EXAMPLES: Record<string, string> = {
  grad: 'grad((x) => x * x)',
  valueAndGrad: 'valueAndGrad((x) => x * x)',
  jacobian: 'jacobian((x) => [x[0] * x[1], x[0]])',
  jacfwd: 'jacfwd((x) => [x[0] * x[1], x[0]])',
  jacrev: 'jacrev((x) => [x[0] * x[1], x[0]])',
  jvp: 'jvp((x) => x * x, [x], [dx])',
  hvp: 'hvp((x) => x[0] * x[0] * x[1], [x], [v])',
  hessian: 'hessian((x) => x[0] * x[0] * x[1])',
  sparseJacobian: 'sparseJacobian((x) => x.map((v, i) => v * x[(i + 1) % x.length]))',
  sparseHessian: 'sparseHessian((x) => x[0] * x[0] * x[1])',
  hessianDiagonal: 'hessianDiagonal((x) => x[0] * x[0] * x[1])',
  vjp: 'vjp((x) => x * x, [x])',
};

function what(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'function') return 'a function';
  return typeof v === 'object' ? 'an object' : `a ${typeof v} (${String(v)})`;
}

/** `f` must be a function with source: built-in and bound functions print as `[native code]` */
function checkFunction(api: string, f: unknown): void {
  if (typeof f !== 'function') throw new TypeError(`tsad: ${api} needs the function to differentiate as its first argument, e.g. ${EXAMPLES[api]}, not ${what(f)}`);
  const name = f.name.replace(/^bound /, '');
  if (/\{\s*\[native code\]\s*\}\s*$/.test(Function.prototype.toString.call(f)))
    throw new TypeError(`tsad: ${api} cannot differentiate ${name ? `'${name}'` : 'this function'}: built-in (native) and bound functions have no source to differentiate; wrap it in a function of your own, e.g. ${api === 'grad' ? 'grad((x) => Math.sin(x))' : EXAMPLES[api]}`);
}

function checkOptions(api: string, opts: unknown): void {
  if (opts === undefined) return;
  if (typeof opts !== 'object' || opts === null || Array.isArray(opts)) throw new TypeError(`tsad: ${api}'s options must be an object such as { wrt: 0 }, not ${what(opts)}`);
  const { wrt, scope } = opts as RuntimeOptions;
  const one = (w: unknown) => (typeof w === 'number' && Number.isInteger(w) && w >= 0) || (typeof w === 'string' && w !== '');
  if (wrt !== undefined && !(Array.isArray(wrt) ? wrt.length > 0 && wrt.every(one) : one(wrt)))
    throw new TypeError(`tsad: ${api}'s wrt must be an argument position (0, 1, …), a parameter name, or a non-empty array of them, not ${Array.isArray(wrt) ? JSON.stringify(wrt) : what(wrt)}`);
  if (scope !== undefined && (typeof scope !== 'object' || scope === null || Array.isArray(scope))) throw new TypeError(`tsad: ${api}'s scope must be an object mapping names to helper functions and data, not ${what(scope)}`);
  checkRuntimeRules(api, (opts as RuntimeOptions).customDerivatives, scope);
  const coarsen = (opts as RuntimeOptions).coarsen;
  if (coarsen !== undefined && typeof coarsen !== 'boolean') throw new TypeError(`tsad: ${api}'s coarsen must be true or false, not ${what(coarsen)}`);
  const sparseVector = (opts as RuntimeOptions).sparseVector;
  if (sparseVector !== undefined && typeof sparseVector !== 'boolean') throw new TypeError(`tsad: ${api}'s sparseVector must be true or false, not ${what(sparseVector)}`);
  const sparse = (opts as RuntimeOptions).sparse;
  if (sparse !== undefined && sparse !== 'elements' && sparse !== 'blocks' && sparse !== 'colouring') throw new TypeError(`tsad: ${api}'s sparse must be 'elements', 'blocks' or 'colouring', not ${what(sparse)}`);
  const of = (opts as RuntimeOptions).of;
  if (of !== undefined && !(Array.isArray(of) && of.length > 0 && of.every(one))) throw new TypeError(`tsad: ${api}'s of must be a non-empty array of argument positions or parameter names (the arrays the function writes its results into), not ${Array.isArray(of) ? JSON.stringify(of) : what(of)}`);
  const reuse = (opts as RuntimeOptions).reuseValues;
  if (reuse !== undefined && typeof reuse !== 'boolean') throw new TypeError(`tsad: ${api}'s reuseValues must be true or false, not ${what(reuse)}`);
}

function checkEntry(api: string, f: unknown, opts: unknown): void {
  checkFunction(api, f);
  checkOptions(api, opts);
}

/** grad and valueAndGrad differentiate a number: other results need a seed, which jacobian and vjp take */
function requireScalar(api: string, c: Compiled): Compiled {
  if (!c.scalarResult) throw new TypeError(`tsad: ${api} needs a function that returns a number, but '${c.head}' returns an array or object; use jacobian for the whole Jacobian, or vjp for the gradient of a weighted sum of its outputs`);
  return c;
}

function checkArgList(api: string, name: string, v: unknown): void {
  if (!Array.isArray(v)) throw new TypeError(`tsad: ${api} takes the ${name} as an array, e.g. ${EXAMPLES[api]}, not ${what(v)}`);
}

/** one tangent per independent, each shaped like it */
function checkTangents(c: Compiled, primals: unknown[], tangents: unknown[], api = 'jvp'): void {
  if (tangents.length !== c.wrt.length)
    throw new TypeError(`tsad: ${api} needs one tangent per independent (${c.wrt.map((i) => c.params[i]).join(', ')}), in an array, but got ${tangents.length}`);
  c.wrt.forEach((i, k) => {
    const p = primals[i], t = tangents[k];
    if ((typeof p === 'number') !== (typeof t === 'number') || flatten(p).length !== flatten(t).length)
      throw new TypeError(`tsad: ${api}'s tangent ${k + 1} must have the shape of '${c.params[i]}' (${typeof p === 'number' ? 'a number' : `${flatten(p).length} numbers`}), but is ${what(t)}${typeof t === 'object' && t !== null ? ` of ${flatten(t).length} numbers` : ''}`);
  });
}

/** Gradient of a scalar function, shaped like the `wrt` argument(s) (an array of them if `wrt` is a list). */
export function grad<F extends (...args: any[]) => number | null | undefined, const W extends Wrt | undefined = undefined>(f: F, options?: OptionsFor<F, W, RuntimeOptions<W>>): (...args: Parameters<F>) => MaybeGradient<F, W> {
  const opts = (options ?? {}) as RuntimeOptions;
  checkEntry('grad', f, opts);
  // a function returning `number | null` (or `undefined`) has no gradient where it returns null: grad returns null (undefined) there
  return (...args) =>
    withErrors(() => {
      const [v, g] = reverse(requireScalar('grad', compileFor(f, opts, args)), opts, args, 1);
      return (v === null || v === undefined ? v : unwrap(opts, g)) as MaybeGradient<F, W>;
    });
}

/** [f(args), its gradient] (the gradient as grad gives it). */
export function valueAndGrad<F extends (...args: any[]) => number | null | undefined, const W extends Wrt | undefined = undefined>(f: F, options?: OptionsFor<F, W, RuntimeOptions<W>>): (...args: Parameters<F>) => [ReturnType<F>, MaybeGradient<F, W>] {
  const opts = (options ?? {}) as RuntimeOptions;
  checkEntry('valueAndGrad', f, opts);
  return (...args) =>
    withErrors(() => {
      const [v, g] = reverse(requireScalar('valueAndGrad', compileFor(f, opts, args)), opts, args, 1);
      return [v as ReturnType<F>, (v === null || v === undefined ? v : unwrap(opts, g)) as MaybeGradient<F, W>];
    });
}

/** Jacobian-vector product: [f(primals), J · tangents], tangents given for the wrt arguments. */
export function jvp<F extends AnyFunction, const W extends Wrt | undefined = undefined>(f: F, primals: Parameters<F>, tangents: Tangents<F, W>, options?: OptionsFor<F, W, RuntimeOptions<W>>): [ReturnType<F>, ResultTangent<F>] {
  const opts = (options ?? {}) as RuntimeOptions;
  checkEntry('jvp', f, opts);
  checkArgList('jvp', 'arguments', primals);
  checkArgList('jvp', 'tangents', tangents);
  return withErrors(() => {
    const c = compileFor(f, opts, primals);
    checkTangents(c, primals as unknown[], tangents as unknown[]);
    return tangent(c, opts, primals as unknown[], tangents as unknown[]) as [ReturnType<F>, ResultTangent<F>];
  });
}

/**
 * Vector-Jacobian product: [f(primals), (cotangent) => the gradient of ⟨cotangent, f⟩], the gradient as
 * grad gives it: the cotangent of the one independent, or of each independent, in order, when `wrt` is
 * a list.
 */
export function vjp<F extends AnyFunction, const W extends Wrt | undefined = undefined>(f: F, primals: Parameters<F>, options?: OptionsFor<F, W, RuntimeOptions<W>>): [ReturnType<F>, (cotangent: ResultTangent<F>) => Gradient<F, W>] {
  const opts = (options ?? {}) as RuntimeOptions;
  checkEntry('vjp', f, opts);
  checkArgList('vjp', 'arguments', primals);
  return withErrors(() => {
    const c = compileFor(f, opts, primals);
    const value = reverse(c, opts, primals as unknown[], zerosLike((c.mod[c.head] as (...x: unknown[]) => unknown)(...clone(primals as unknown[]))))[0];
    return [
      value,
      (ct: unknown) => {
        if ((typeof value === 'number') !== (typeof ct === 'number') || flatten(value).length !== flatten(ct).length)
          throw new TypeError(`tsad: vjp's cotangent must have the shape of the function's value (${typeof value === 'number' ? 'a number' : `${flatten(value).length} numbers`}), but is ${what(ct)}`);
        return unwrap(opts, reverse(c, opts, primals as unknown[], clone(ct))[1]) as Gradient<F, W>;
      },
    ] as [ReturnType<F>, (cotangent: ResultTangent<F>) => Gradient<F, W>];
  });
}

/**
 * Jacobian of f at the arguments, as rows: J[i][j] = ∂ output_i / ∂ input_j, where outputs and inputs
 * are the floats of the result and of the wrt arguments in flattened order (arrays by index, object
 * fields by sorted name). Chooses by shape: reverse (jacrev) when outputs ≤ inputs, else forward (jacfwd).
 */
export function jacobian<F extends AnyFunction, const W extends Wrt | undefined = undefined>(f: F, options?: OptionsFor<F, W, RuntimeOptions<W>>): (...args: Parameters<F>) => number[][] {
  return jacobianBy('jacobian', f, options as RuntimeOptions | undefined, 'auto');
}

/** The Jacobian (as jacobian lays it out) by forward mode: the vector tangent, with many input directions per sweep. */
export function jacfwd<F extends AnyFunction, const W extends Wrt | undefined = undefined>(f: F, options?: OptionsFor<F, W, RuntimeOptions<W>>): (...args: Parameters<F>) => number[][] {
  return jacobianBy('jacfwd', f, options as RuntimeOptions | undefined, 'forward');
}

/** The Jacobian (as jacobian lays it out) by reverse mode: one adjoint sweep per output. */
export function jacrev<F extends AnyFunction, const W extends Wrt | undefined = undefined>(f: F, options?: OptionsFor<F, W, RuntimeOptions<W>>): (...args: Parameters<F>) => number[][] {
  return jacobianBy('jacrev', f, options as RuntimeOptions | undefined, 'reverse');
}

function jacobianBy(api: string, f: AnyFunction, options: RuntimeOptions | undefined, how: 'auto' | 'forward' | 'reverse'): (...args: unknown[]) => number[][] {
  const opts = options ?? {};
  checkEntry(api, f, opts);
  return (...args) =>
    withErrors(() => {
      const c = compileFor(f, opts, args);
      bind(c, opts);
      // (a hand-written rule may give one mode only)
      if (how === 'reverse' && !c.adjoint) throw new Error(`tsad: ${api}: '${c.head}' has no adjoint (a helper's hand-written derivative gives a tangent rule only); use jacfwd`);
      if (how === 'forward' && !c.tangent) throw new Error(`tsad: ${api}: '${c.head}' has no tangent (a helper's hand-written derivative gives an adjoint rule only); use jacrev`);
      return jacobianAt(c, args, how, (js) => checkedColumns(c, opts, args, js));
    });
}

/** tangentColumns (sweeps.ts), the vector tangent compared with the tangent on its first use */
function checkedColumns(c: Compiled, opts: RuntimeOptions, args: unknown[], js: number[]): number[][] {
  bind(c, opts);
  if (c.vector && c.vectorUnchecked && opts.check !== false) checkVector(c, opts, args);
  return tangentColumns(c, args, js);
}

/** `at x = 1.5, v = [0.1, 2]`: the point a self-check failed at, for its message */
function pointText(c: Compiled, args: unknown[]): string {
  return `at ${c.params.map((p, i) => `${p} = ${JSON.stringify(typeof args[i] === 'number' ? args[i] : Array.from(flatten(args[i])))}`).join(', ')}`;
}

/**
 * The first use of a vector tangent: two random directions in one sweep against one (self-checked)
 * tangent each. Throws if they disagree; at a non-finite point checks nothing (the next use tries again).
 */
function checkVector(c: Compiled, opts: RuntimeOptions, args: unknown[]): void {
  const R = rng(0x7ad5e3f);
  const inputs = c.wrt.map((i) => args[i]);
  const dirs = [inputs.map((v) => randomLike(v, R)), inputs.map((v) => randomLike(v, R))];
  const vector = runVector(c, args, dirs)[1].flat();
  const single = dirs.flatMap((d) => flatten(runTangent(c, args, d)[1]));
  if (!single.every(Number.isFinite)) return;
  const same = vector.length === single.length && vector.every((x, i) => Math.abs(x - single[i]) <= 1e-9 * (1 + Math.abs(single[i])));
  if (!same)
    throw new Error(`tsad: self-check failed for '${c.vector!.name}': the vector tangent disagrees with the tangent along the same directions (${JSON.stringify(vector.slice(0, 4))} vs ${JSON.stringify(single.slice(0, 4))}) ${pointText(c, args)}. This is a bug in tsad: please report it with the function; { check: false } skips this check`);
  c.vectorUnchecked = false;
}

// ---- second derivatives: forward over reverse (hessian.ts) ----

/** The gradient's tangent for these arguments, self-checked on its first call like the first-order derivatives. */
function compileSecondOrder(api: string, f: Fn, opts: RuntimeOptions, args: unknown[]): Compiled {
  const c = lookupOrCompile(f, opts, args, api === 'hessian' ? 'hessian' : 'hvp');
  if (!c.tangent) throw new Error(`tsad: ${api}: no derivative of the gradient was generated`);
  if (c.unchecked && opts.check !== false) {
    // (the function as compiled at first order: the one the gradient's check below compares with)
    assertSameValue(lookupOrCompile(f, opts, args, 1), f, opts, args);
    runSecondOrderCheck(c, f, opts, args);
  }
  return c;
}

/** [gradient, H · tangents], each a list in `wrt` order */
function gradientTangent(c: Compiled, opts: RuntimeOptions, args: unknown[], tangents: unknown[]): [unknown[], unknown[]] {
  bind(c, opts);
  const [g, hv] = runTangent(c, args, tangents);
  const list = (x: unknown) => (c.wrt.length === 1 ? [x] : (x as unknown[]));
  return [list(g), list(hv)];
}

/**
 * The first call's check of a Hessian-vector product: H·v against central differences of the
 * generated gradient along v, and uᵀ(H·v) against vᵀ(H·u) (a Hessian is symmetric).
 */
function runSecondOrderCheck(c: Compiled, f: Fn, opts: RuntimeOptions, args: unknown[]): void {
  const R = rng(0x7ad5e2f);
  // (an independent left out, undefined, takes its default: its direction is 0, its gradient entry unused)
  const direction = (i: number) => (args[i] === undefined ? 0 : randomLike(args[i], R));
  const v = c.wrt.map(direction);
  const u = c.wrt.map(direction);
  const [g, hvList] = gradientTangent(c, opts, args, v);
  const hv = hvList.flatMap((x) => flatten(x));
  const hu = gradientTangent(c, opts, args, u)[1].flatMap((x) => flatten(x));
  bind(c, opts);
  const dd = differenceTangent(c.mod[`${c.head}_grad`] as (...a: unknown[]) => unknown, args, c.wrt, v);
  const at = pointText(c, args);
  // the gradient itself against the function: what its tangent was compared with must be right too
  // (the function as compiled, bound to `scope`: the caller's closure may read names only scope gives;
  // a gradient that is not finite where the function's differences are is wrong too)
  const primal = lookupOrCompile(f, opts, args, 1);
  bind(primal, opts);
  const fd = differenceTangent(primal.mod[primal.head] as (...a: unknown[]) => unknown, args, c.wrt, v);
  if (fd && Number.isFinite(fd[1][0])) {
    const gv = g.reduce<number>((s, gi, k) => (args[c.wrt[k]] === undefined ? s : s + dot(gi, v[k])), 0);
    if (!Number.isFinite(gv) || !agreesWithDifferences([gv], [fd[1][0]]))
      throw new Error(`tsad: self-check failed for the gradient of '${c.head}' behind its second derivatives: it disagrees with divided differences of the function (${gv} vs ${fd[1][0]}) ${at}. This is a bug in tsad: please report it with the function; { check: false } skips this check`);
  }
  // near a kink, or where the gradient's differences are not finite, nothing is compared: the next call checks again
  if (!dd || !dd[1].every(Number.isFinite)) return;
  if (![...hv, ...hu].every(Number.isFinite))
    throw new Error(`tsad: self-check failed for the second derivatives of '${c.head}': the Hessian-vector product is not finite (${JSON.stringify(hv.slice(0, 4))}) where divided differences of the gradient are (${JSON.stringify(dd[1].slice(0, 4).map((x) => +x.toPrecision(8)))}) ${at}. This is a bug in tsad: please report it with the function; { check: false } skips this check`);
  const uf = u.flatMap((x) => flatten(x));
  const vf = v.flatMap((x) => flatten(x));
  const uHv = uf.reduce((s, x, i) => s + x * hv[i], 0);
  const vHu = vf.reduce((s, x, i) => s + x * hu[i], 0);
  if (!agreesWithDifferences(hv, dd[1]))
    throw new Error(`tsad: self-check failed for the second derivatives of '${c.head}': the Hessian-vector product disagrees with divided differences of the gradient (${JSON.stringify(hv.slice(0, 4))} vs ${JSON.stringify(dd[1].slice(0, 4).map((x) => +x.toPrecision(8)))}) ${at}. This is a bug in tsad: please report it with the function; { check: false } skips this check`);
  if (!agreesWithDifferences([uHv], [vHu]))
    throw new Error(`tsad: self-check failed for the second derivatives of '${c.head}': the Hessian it gives is not symmetric (uᵀHv = ${uHv}, vᵀHu = ${vHu}) ${at}. This is a bug in tsad: please report it with the function; { check: false } skips this check`);
  c.unchecked = false;
}

/**
 * Hessian-vector product of a scalar function: H · tangents, where H is the Hessian with respect to the
 * `wrt` arguments and `tangents` holds one direction per independent (as jvp takes them). The result
 * is shaped like the gradient (as grad gives it). Forward over reverse: about the cost of a few gradients.
 */
export function hvp<F extends (...args: any[]) => number, const W extends Wrt | undefined = undefined>(f: F, primals: Parameters<F>, tangents: Tangents<F, W>, options?: OptionsFor<F, W, RuntimeOptions<W>>): Gradient<F, W> {
  const opts = (options ?? {}) as RuntimeOptions;
  checkEntry('hvp', f, opts);
  checkArgList('hvp', 'arguments', primals);
  checkArgList('hvp', 'tangents', tangents);
  return withErrors(() => {
    const c = compileSecondOrder('hvp', f, opts, primals);
    checkTangents(c, primals as unknown[], tangents as unknown[], 'hvp');
    return unwrap(opts, gradientTangent(c, opts, primals as unknown[], tangents as unknown[])[1]) as Gradient<F, W>;
  });
}

/**
 * Dense Hessian of a scalar function: H[i][j] = ∂² f / ∂ input_i ∂ input_j over the floats of the `wrt`
 * arguments in flattened order (as jacobian orders them). Its columns come from the gradient's vector
 * tangent, many per sweep.
 */
export function hessian<F extends (...args: any[]) => number, const W extends Wrt | undefined = undefined>(f: F, options?: OptionsFor<F, W, RuntimeOptions<W>>): (...args: Parameters<F>) => number[][] {
  const opts = (options ?? {}) as RuntimeOptions;
  checkEntry('hessian', f, opts);
  return (...args) =>
    withErrors(() => {
      const c = compileSecondOrder('hessian', f, opts, args);
      refuseAbsentIndependents('hessian', c, args);
      return hessianAt(c, args, (js) => checkedColumns(c, opts, args, js));
    });
}

// ---- sparse Jacobians and Hessians (sparse.ts: pattern, colouring, compressed sweeps) ----

/**
 * Sparse Jacobian of f at the arguments, rows and columns as jacobian orders them, in coordinates
 * (SparseMatrix: `{ shape, rows, cols, values, info }`, entries sorted by row then column). The first
 * call for these argument shapes detects the sparsity pattern (vector tangent sweeps seeded with NaN, 32
 * columns a sweep) and colours its columns; every call then runs one vector tangent sweep with one
 * direction per colour and one random direction that checks the pattern still holds (else it is
 * detected again here). `info` times detection, colouring and evaluation apart.
 */
export function sparseJacobian<F extends AnyFunction, const W extends Wrt | undefined = undefined>(f: F, options?: OptionsFor<F, W, RuntimeOptions<W>>): (...args: Parameters<F>) => SparseMatrix {
  const opts = (options ?? {}) as RuntimeOptions;
  checkEntry('sparseJacobian', f, opts);
  if (opts.sparse === 'elements') throw new TypeError(`tsad: sparseJacobian's sparse must be 'blocks' or 'colouring' ('elements' is sparseHessian's)`);
  return (...args) =>
    withErrors(() => {
      const c = compileFor(f, opts, args);
      bind(c, opts);
      if (!c.tangent) throw new Error(`tsad: sparseJacobian: '${c.head}' has no tangent (a helper's hand-written derivative gives an adjoint rule only); use jacrev`);
      if (c.vector && c.vectorUnchecked && opts.check !== false) checkVector(c, opts, args);
      const a = clone(args);
      const value = (c.mod[c.head] as (...x: unknown[]) => unknown)(...a);
      const outputs = c.outputs ? c.outputs.params.map((k) => a[k]) : [value];
      const byBlocks = opts.sparse !== 'colouring' && outputs.every(plain) ? blocksFor(c, opts, args, outputs) : null;
      if (byBlocks) return byBlocks;
      return sparseFor(c, opts, args, 'jacobian', outputs.every(plain) ? Array.from({ length: outputs.reduce<number>((n, o) => n + flatten(o).length, 0) }, (_, i) => i) : ownOrder(outputs));
    });
}

/**
 * The Jacobian by blocks (blocks.ts) where the head has the form, else null (the caller colours). The
 * code is compiled on first use; on the first call (unless check: false) the result is compared with
 * the dense tangent along a random direction, as sparseFor does.
 */
function blocksFor(c: Compiled, opts: RuntimeOptions, args: unknown[], outputs: unknown[]): SparseMatrix | null {
  if (c.blocks === undefined) {
    const wrtArrays = c.wrt.every((i) => Array.isArray(args[i]) || args[i] instanceof Float64Array);
    const r = wrtArrays && c.source ? compileBlocks(Object.fromEntries(c.source), { head: c.head, wrt: c.wrt.map((i) => c.params[i]), of: c.outputs ? c.outputs.params.map((k) => c.params[k]) : ['return'], js: true }) : null;
    if (!r || 'refused' in r) c.blocks = null;
    else c.blocks = { run: loadGenerated(r.code)[r.name] as (...x: unknown[]) => number, state: blockState(r.loops), unchecked: true };
  }
  const b = c.blocks;
  if (!b) return null;
  const { colAt, n } = columnStarts(c.wrt.map((i) => args[i]));
  const { rowAt, m } = rowStarts(outputs.map((o) => flatten(o).length));
  const primals = c.params.map((_, i) => args[i]);
  let matrix: SparseMatrix;
  try {
    matrix = sparseByBlocks((...buffers) => b.run(...primals, ...buffers), m, n, colAt, rowAt, b.state, opts.reuseValues === true);
  } catch (e) {
    if (!(e instanceof NotBlocks)) throw e;
    c.blocks = null;
    return null;
  }
  if ((b.unchecked || matrix.info.pattern !== 'cached') && opts.check !== false) b.unchecked = !checkedAgainstTangent(c, args, matrix, b.state.plan!.pattern, c.head);
  return matrix;
}

/**
 * Sparse Hessian of a scalar function (SparseMatrix, both triangles; rows and columns as hessian orders
 * them): pattern detected once per argument shapes by the gradient's vector tangent seeded with NaN,
 * star colouring, then per call one sweep of the gradient's vector tangent with one direction per
 * colour and a random one checking the pattern. About the cost of (colours + 1) Hessian-vector products
 * sharing one gradient.
 */
export function sparseHessian<F extends (...args: any[]) => number, const W extends Wrt | undefined = undefined>(f: F, options?: OptionsFor<F, W, RuntimeOptions<W>>): (...args: Parameters<F>) => SparseMatrix {
  const opts = (options ?? {}) as RuntimeOptions;
  checkEntry('sparseHessian', f, opts);
  return (...args) => withErrors(() => sparseHessianOf('sparseHessian', f, opts, args));
}

/** The Hessian's diagonal, over the flattened independents (from sparseHessian: its cost). */
export function hessianDiagonal<F extends (...args: any[]) => number, const W extends Wrt | undefined = undefined>(f: F, options?: OptionsFor<F, W, RuntimeOptions<W>>): (...args: Parameters<F>) => number[] {
  const opts = (options ?? {}) as RuntimeOptions;
  checkEntry('hessianDiagonal', f, opts);
  return (...args) => withErrors(() => Array.from(diagonalOf(sparseHessianOf('hessianDiagonal', f, opts, args))));
}

/**
 * A Hessian over an independent left out (undefined: it takes its default) would have no row or column
 * of its, but the gradient the columns come from still holds its entry, and the rows would shift: refused
 * (hvp, shaped like the gradient, gives it).
 */
function refuseAbsentIndependents(api: string, c: Compiled, args: unknown[]): void {
  const absent = c.wrt.filter((i) => args[i] === undefined).map((i) => c.params[i]);
  if (absent.length)
    throw new TypeError(`tsad: ${api}: the independent${absent.length > 1 ? 's' : ''} ${absent.map((p) => `'${p}'`).join(', ')} ${absent.length > 1 ? 'are' : 'is'} undefined in this call (left out, taking ${absent.length > 1 ? 'their defaults' : 'its default'}): name the independents with { wrt } without ${absent.length > 1 ? 'them' : 'it'}, or pass ${absent.length > 1 ? 'values' : 'a value'}`);
}

function sparseHessianOf(api: string, f: Fn, opts: RuntimeOptions, args: unknown[]): SparseMatrix {
  const c = compileSecondOrder('hessian', f, opts, args);
  refuseAbsentIndependents(api, c, args);
  bind(c, opts);
  if (c.elements && opts.sparse !== 'colouring') return byElements(c, c.elements, opts, args);
  if (!c.vector) throw new Error(`tsad: ${api}: no vector mode of the gradient was generated`);
  if (c.vectorUnchecked && opts.check !== false) checkVector(c, opts, args);
  return sparseFor(c, opts, args, 'hessian', []);
}

/**
 * The Hessian by elements (elements.ts), its state kept on `c`; on the first call (unless check: false)
 * compared with the dense H·v along a random direction, as sparseFor does.
 */
function byElements(c: Compiled, el: NonNullable<Compiled['elements']>, opts: RuntimeOptions, args: unknown[]): SparseMatrix {
  const x = args[c.wrt[0]] as ArrayLike<number>;
  // (trailing arguments left out still take their places: the element functions' own parameters follow)
  const all = c.params.map((_, i) => args[i]);
  const sweeps = { record: (idx: Int32Array, h: Float64Array) => el.record(...all, idx, h), add: (trace: Int32Array, places: Int32Array, values: Float64Array) => el.add(...all, trace, places, values) };
  const { matrix, state } = sparseByElements(sweeps, x.length, el.sites, el.slots, el.state, opts.reuseValues === true);
  el.state = state;
  if ((c.sparseUnchecked ?? true) && opts.check !== false) checkSparse(c, args, state.pattern, matrix, 'hessian');
  return matrix;
}

/** the first call's comparison of a sparse result with the dense tangent (or H·v) along a random direction; a mismatch is a bug in tsad */
function checkSparse(c: Compiled, args: unknown[], pattern: SparseState['pattern'], matrix: SparseMatrix, kind: 'jacobian' | 'hessian'): void {
  const R = rng(0x7ad5e4f);
  const dirs = c.wrt.map((i) => randomLike(args[i], R));
  const dense = kind === 'jacobian' ? outputTangent(c, args, dirs) : flatten(runTangent(c, args, dirs)[1]);
  const v = dirs.flatMap((d) => flatten(d));
  // (where the dense product is finite, a value that is not is a mismatch too)
  if (!dense.every(Number.isFinite)) return;
  const bad = mismatch(pattern, matrix.values, v, dense);
  if (bad) throw new Error(`tsad: self-check failed for the sparse ${kind === 'hessian' ? 'Hessian' : 'Jacobian'} of '${c.head}'${matrix.info.method === 'elements' || matrix.info.method === 'blocks' ? ` (by ${matrix.info.method})` : ''}: times a random direction it differs from the ${kind === 'hessian' ? 'Hessian-vector product' : 'tangent'} in that direction (row ${bad.row}: ${bad.got} vs ${bad.want}) ${pointText(c, args)}. This is a bug in tsad: please report it with the function; { check: false } skips this check`);
  c.sparseUnchecked = false;
}

/** numbers and arrays of them: no object, so already in their own key order (ownOrder) */
const plain = (v: unknown): boolean => typeof v === 'number' || v instanceof Float64Array || (Array.isArray(v) && (numbersOnly(v) || v.every(plain)));

/**
 * The sparse matrix for `c` at `args` (sparse.ts), the state kept on `c`; on the first call (unless
 * check: false) also compared with the dense tangent (`<head>_d`, or H·v by `<head>_grad_d`) along a
 * random direction: the compressed sweep's own check uses the vector mode alone. Rows in `rowOrder`
 * (ownOrder of the outputs; a Hessian's are its columns'), columns in the independents' own key order.
 */
function sparseFor(c: Compiled, opts: RuntimeOptions, args: unknown[], kind: 'jacobian' | 'hessian', rowOrder: number[]): SparseMatrix {
  const n = independentCount(c, args);
  const m = kind === 'hessian' ? n : outputCount(c, args);
  const { matrix, state } = sparseAt(kind, packedSweep(c, args), m, n, c.sparse);
  c.sparse = state;
  if ((c.sparseUnchecked ?? true) && opts.check !== false) checkSparse(c, args, state.pattern, matrix, kind);
  // (objects only have an own key order: arrays and numbers are already in it)
  const inputs = c.wrt.map((i) => args[i]);
  if (inputs.every(plain) && (kind === 'hessian' || rowOrder.every((k, i) => k === i))) return matrix;
  const cols = positions(ownOrder(inputs));
  return renumbered(matrix, kind === 'hessian' ? cols : positions(rowOrder), cols);
}
