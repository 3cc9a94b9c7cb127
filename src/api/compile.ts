// The library entry point: source(s) in, derivative module + manifest + diagnostics out.
// Uses an in-memory compiler host and no Node built-ins, so it also runs in a browser.

import type ts from 'typescript';
import { memberHeadName } from '../frontend/classes.js';
import { analyzeActivity, calledFrom, computeWrites, type ProgramActivity } from '../analysis/activity.js';
import { inferInts, sizeParams } from '../analysis/ints.js';
import { Printer, printTy } from '../backend/print.js';
import { sourceMapOf, type SourceMapV3 } from '../backend/source-map.js';
import { DiagnosticBag, TsadError, type Diagnostic } from '../frontend/diagnostics.js';
import { createProgram, keepProgramParses, lowerProgram, type LoweringTrace } from '../frontend/lower.js';
import { forgetLowered, keepLowered, lowerEdited } from './incremental.js';
import { forgetParsed } from '../frontend/reparse.js';
import { checkBracketDepth } from '../frontend/limits.js';
import type { Func, Module, Ty } from '../ir/types.js';
import { timed } from '../ir/timing.js';
import { perFunction } from '../ir/per-function.js';
import { declaredNames, deepCopy, deepFreeze, forEachExpr, forEachStmt, hasFloat, isRef, stmtExprs } from '../ir/util.js';
import { scratchFields } from '../analysis/scratch-fields.js';
import { elidableScratch, handoverElisionHolds } from '../analysis/scratch-handover.js';
import { adjointNames } from '../transform/adjoint/context.js';
import { adjointFuncs, type AdjointOutput } from '../transform/adjoint/index.js';
import { ALL_FIELDS, unionReads, writtenNumberFields } from '../transform/adjoint/field-reads.js';
import { DEFAULT_ADJOINT, DEFAULT_NAMING, ProgramInfo, type AdjointOptions, type Naming } from '../transform/context.js';
import { lowerJumps } from '../transform/jumps.js';
import { Names } from '../transform/linearize.js';
import { inlineLeafCalls } from '../transform/inline.js';
import { coarsenModule, type CoarsenOptions, type CoarsenReport } from '../transform/coarsen/pass.js';
import { normalizeFunc } from '../transform/normalize.js';
import { bindReturnedArguments } from '../transform/returned-args.js';
import { refuseAliasedWrittenArguments } from '../transform/call-aliasing.js';
import { refuseLinkingCalls } from '../transform/linking-calls.js';
import { refuseWritesToModuleData } from '../transform/module-data.js';
import { refuseUnsupportedOps } from '../transform/unsupported.js';
import { TransformError, tangentFunc, tangentName } from '../transform/tangent.js';
import { sparseVectorFunc } from '../transform/sparse-vector.js';
import { literalParams } from '../analysis/grown-arrays.js';
import { applyCustomDerivatives, checkCustomOption, ruleFunctions, type CustomDerivativeOption } from '../frontend/custom-derivatives.js';
import { customRuleErrors } from '../transform/custom.js';
import { beginCompile, endCompile } from '../transform/reuse.js';
import type { Diagnostic as Diag } from '../frontend/diagnostics.js';

/** one problem, one error: the same diagnostic found by the tangent's and the adjoint's analyses once */
function dedupe(list: Diag[]): Diag[] {
  const seen = new Set<string>();
  return list.filter((d) => {
    const k = `${d.file}:${d.line}:${d.col}:${d.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export type Mode = 'tangent' | 'vector' | 'reverse';
/** the modes as options accept them: 'forward' is the tangent mode's other name, 'adjoint' the reverse's */
export type ModeName = Mode | 'forward' | 'adjoint';

const MODE_NAMES: Record<ModeName, Mode> = { tangent: 'tangent', forward: 'tangent', vector: 'vector', reverse: 'reverse', adjoint: 'reverse' };
export const MODE_LIST = "tangent (or forward), vector, reverse (or adjoint)";

/** The modes named, aliases resolved and duplicates dropped; throws a TypeError naming the valid ones. */
export function normalizeModes(names: readonly unknown[]): Mode[] {
  if (names.length === 0) throw new TypeError(`tsad: no mode given; the modes are ${MODE_LIST}`);
  const out: Mode[] = [];
  for (const n of names) {
    const m = typeof n === 'string' && Object.hasOwn(MODE_NAMES, n) ? MODE_NAMES[n as ModeName] : undefined;
    if (!m) throw new TypeError(`tsad: unknown mode ${typeof n === 'string' ? `'${n}'` : describeValue(n)}; the modes are ${MODE_LIST}`);
    if (!out.includes(m)) out.push(m);
  }
  return out;
}

/**
 * The independents of a default signature: every parameter carrying floats, except number parameters
 * used only as sizes or indices (`n` in `det(A: number[][], n: number)`), unless nothing else is left.
 */
export function defaultWrt(mod: Module, head: Func, of?: readonly string[], analysed?: (wrt: string[], activity: ProgramActivity) => void): string[] {
  const all = head.params.filter((p) => hasFloat(p.ty)).map((p) => p.name);
  const sizes = sizeParams(mod, head.name);
  const rest = all.filter((n) => !sizes.has(n));
  if (rest.length < 2) return rest.length ? rest : all;
  // nor arrays whose numbers reach the result only as indices, labels compared or sizes (`z[k[0]]`,
  // `y[i] === 1`): no derivative flows from them, and a check perturbing them would read past the ends
  try {
    const written = computeWrites(mod).get(head.name) ?? new Set<number>();
    const deps = of ?? defaultOf(head, written);
    const dependents = { result: deps.includes('return') && hasFloat(head.ret), params: deps.filter((o) => o !== 'return') };
    const activity = analyzeActivity(mod, head.name, rest, dependents);
    analysed?.(rest, activity);
    const fa = activity.funcs.get(head.name);
    if (!fa) return rest;
    // (an array the function writes stays: it may be an output, its columns zeros or not)
    const live = rest.filter((n) => {
      const j = head.params.findIndex((p) => p.name === n);
      return !isRef(head.params[j].ty) || written.has(j) || fa.active.has(fa.aliases.rep(n));
    });
    return live.length ? live : rest;
  } catch (e) {
    if (e instanceof TransformError) return rest;
    throw e;
  }
}

/** the default dependents: the result, or for a function that returns nothing, the arrays it writes */
function defaultOf(head: Func, written: ReadonlySet<number>): string[] {
  // (an array or object that may be absent, `opts?: Opts`, is passive: not an output either)
  return hasFloat(head.ret) ? ['return'] : head.params.filter((p, i) => written.has(i) && p.ty.k !== 'opt').map((p) => p.name);
}

export interface CompileOptions {
  /** the function to differentiate */
  head: string;
  /** independents: parameter names (default: every parameter that carries floats, except number parameters used only as sizes or indices) */
  wrt?: string[];
  /** dependents: 'return' and/or array or object parameter names (default: the return value) */
  of?: string[];
  /** modes to generate (default: all three); 'forward' and 'adjoint' name tangent and reverse */
  modes?: ModeName[];
  /**
   * sparse vector mode (issue 18): the vector tangents (`f_dv`, same signatures) carry for each tangent
   * row the interval of directions it may be non-zero in, and loop over those only (src/transform/sparse-vector.ts)
   */
  sparseVector?: boolean;
  /** emit JavaScript instead of TypeScript */
  js?: boolean;
  /** module specifier of the runtime in import statements (default 'tsad/runtime'); null: no import */
  runtimeImport?: string | null;
  naming?: Partial<Naming>;
  /** adjoint refinements (default: all on); `{ tbr: false }` gives the naive store-all adjoint */
  adjoint?: Partial<AdjointOptions>;
  /**
   * hand-written derivatives by function name: `{ f: { tangent: 'fTan', adjoint: 'fAdj' } }` or
   * `{ f: { passive: true } }` (docs/semantics.md); a rule that is no function of the input is bound
   * at run time (`__bindScope`)
   */
  customDerivatives?: Record<string, CustomDerivativeOption>;
  /** also return `map`, a source map (v3) of `code` to the input files, statement by statement */
  sourceMap?: boolean;
  /**
   * coarsening (issue 19): differentiate whole functions, or segments of them, by their closed forms;
   * `{ noPhi: true }` is the ablation without φ-calculus (straight-line segments only), `maxSize` the
   * segment size limit L, `{ replay: false }` runs a recorded loop instead of replaying it from its closed
   * form (src/transform/coarsen/replay.ts). The result's `coarsening` reports the segments chosen.
   */
  coarsen?: boolean | CoarsenOptions;
}

export interface ManifestParam {
  name: string;
  role: 'primal' | 'tangent' | 'adjoint' | 'seed' | 'directions' | 'tape';
  of?: string;
  type: string;
}

export interface ManifestEntry {
  name: string;
  mode: Mode | 'primal' | 'forward' | 'backward';
  of: string;
  params: ManifestParam[];
  /** what the function returns */
  returns: string;
}

export interface CompileResult {
  code: string;
  manifest: ManifestEntry[];
  diagnostics: Diagnostic[];
  /** names of the primal functions emitted alongside */
  primals: string[];
  /** the independents and dependents actually used */
  wrt: string[];
  of: string[];
  /** local names the code gives the runtime's exports (they differ where the input uses those names) */
  runtimeNames?: Record<string, string>;
  /** with `sourceMap: true`: each generated statement's line mapped to the source statement it comes from */
  map?: SourceMapV3;
  /** with `coarsen`: the segments of interest chosen, their sizes and what each replaced */
  coarsening?: CoarsenReport;
}

export type SourceInput = string | Record<string, string>;

function toFiles(input: SourceInput): Map<string, string> {
  if (typeof input === 'string') return new Map([['input.ts', input]]);
  // JavaScript callers are not held to the type: say what was wrong instead of failing deep inside
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new TypeError(`tsad: the input must be source text or an object mapping file names to source text, not ${describeValue(input)}`);
  }
  for (const [name, text] of Object.entries(input)) {
    if (typeof text !== 'string') {
      throw new TypeError(`tsad: input file '${name}' must be source text (a string), not ${describeValue(text)}; pass { '${name}': sourceText }`);
    }
  }
  return new Map(Object.entries(input));
}

function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}

/** the last few front-end results by input text: compiling one source in several modes, or compiling it again, lowers it once */
const recentFrontEnds = new Map<string, { mod: Module } | { diagnostics: Diagnostic[] }>();
const RECENT_FRONT_ENDS = 8;
const MAX_KEPT_INPUT = 1_000_000; // characters: a huge module is not kept

/** Forgets the kept front-end results and parsed files (benchmarks timing a cold compile, tests comparing with one). */
export function forgetFrontEnds(): void {
  recentFrontEnds.clear();
  forgetParsed();
  forgetLowered();
}

/**
 * Front end only: parse, check and lower. Throws TsadError with located diagnostics. A result is
 * kept for inputs seen lately and handed out as a copy, since the back end may change what it is given.
 */
export function frontEnd(input: SourceInput): Module {
  const key = JSON.stringify([...toFiles(input)]);
  let hit = recentFrontEnds.get(key);
  if (hit) recentFrontEnds.delete(key);
  else {
    try {
      hit = { mod: lowerFiles(input) };
    } catch (e) {
      if (!(e instanceof TsadError)) throw e;
      hit = { diagnostics: e.diagnostics };
    }
  }
  if (key.length <= MAX_KEPT_INPUT) recentFrontEnds.set(key, hit);
  if (recentFrontEnds.size > RECENT_FRONT_ENDS) recentFrontEnds.delete(recentFrontEnds.keys().next().value!);
  if ('diagnostics' in hit) throw new TsadError(deepCopy(hit.diagnostics));
  return timed('copy', () => sharedModule(hit.mod));
}

let freezing = false;

/**
 * Freezes the front end's results before sharing them (tests: a compile that changes the module it is
 * given throws instead of changing what later compiles get). Off by default: frozen objects have other
 * hidden classes than the back end's own, which makes the IR walkers about twice as slow.
 */
export function freezeSharedModules(on: boolean): void {
  freezing = on;
}

/**
 * A module whose functions, constants and types are those of `mod`, frozen: compiles share them (their
 * analyses keep facts by function object, src/transform/reuse.ts), and none can change them. Its maps
 * and order are its own.
 */
function sharedModule(mod: Module): Module {
  if (freezing) {
    for (const f of mod.funcs.values()) deepFreeze(f);
    deepFreeze(mod.globals);
    deepFreeze(mod.types);
    deepFreeze(mod.failed);
  }
  return { ...mod, funcs: new Map(mod.funcs), globals: new Map(mod.globals), order: [...mod.order], types: new Map(mod.types), failed: new Map(mod.failed) };
}

function lowerFiles(input: SourceInput): Module {
  const files = toFiles(input);
  const diags = new DiagnosticBag(files);
  for (const [name, text] of files) checkBracketDepth(name, text, diags);
  diags.throwIfErrors();
  // (made only when needed: after an edit inside one function's body, only that function is checked and
  // lowered, in an outline of the file, incremental.ts)
  let parsed: ts.Program | undefined;
  const program = () => (parsed ??= timed('parse', () => createProgram(files, {}, true)));
  let mod = timed('lower', () => lowerEdited(files, program));
  if (!mod) {
    forgetLowered();
    const trace: LoweringTrace = { globalTypes: [], funcs: new Map() };
    const whole = timed('lower', () => lowerProgram(program(), new Set(files.keys()), diags, files, { trace }));
    if (!diags.hasErrors) {
      timed('normalize', () => {
        for (const f of whole.funcs.values()) inferInts(f);
        for (const n of whole.order) whole.funcs.set(n, normalizeFunc(whole.funcs.get(n)!));
      });
      keepLowered(program(), files, whole, trace);
    }
    mod = whole;
  }
  // (the program is done with: its parsed files serve the next compile's parse, src/frontend/reparse.ts;
  // an outline's are never kept, and the parse kept stays that of an earlier text, updated from it when needed)
  if (parsed) keepProgramParses(parsed);
  diags.throwIfErrors();
  // rules declared in the source (companions, directives); compileModule adds compile()'s option
  const ruled = timed('lower', () => applyCustomDerivatives(mod, undefined, diags));
  diags.throwIfErrors();
  return ruled;
}

/** JavaScript callers are not held to the types: a misspelt or misshapen option gets a TypeError saying what to pass. */
function checkOptions(options: unknown): asserts options is CompileOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError(`tsad: compile() needs options, e.g. { head: 'loss' }, not ${describeValue(options)}`);
  const o = options as Record<string, unknown>;
  if (typeof o.head !== 'string' || !o.head) throw new TypeError(`tsad: options.head must name the function to differentiate (a string), not ${describeValue(o.head)}`);
  for (const key of ['wrt', 'of'] as const) {
    const v = o[key];
    if (v !== undefined && !(Array.isArray(v) && v.every((x) => typeof x === 'string'))) throw new TypeError(`tsad: options.${key} must be an array of parameter names, e.g. ['x'], not ${describeValue(v)}`);
    if (Array.isArray(v) && v.length === 0) throw new TypeError(`tsad: options.${key} is empty: name at least one parameter, or leave it out for the default`);
  }
  checkCustomOption(o.customDerivatives);
  checkCoarsenOption(o.coarsen);
  if (o.modes !== undefined) {
    if (!Array.isArray(o.modes)) throw new TypeError(`tsad: options.modes must be an array, e.g. ['reverse'], not ${describeValue(o.modes)}; the modes are ${MODE_LIST}`);
    const modes = normalizeModes(o.modes);
    if (o.sparseVector && !modes.includes('vector')) throw new TypeError(`tsad: options.sparseVector is a form of the vector mode, which options.modes (${modes.join(', ')}) leaves out: add 'vector', or leave out sparseVector`);
  }
}

function checkCoarsenOption(v: unknown): void {
  if (v === undefined || typeof v === 'boolean') return;
  const bad = (what: string) => new TypeError(`tsad: options.coarsen ${what}; pass true, or { noPhi: true } (the ablation), or { maxSize: 400 } (the segment size limit)`);
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(`must be a boolean or an object, not ${describeValue(v)}`);
  for (const [k, x] of Object.entries(v)) {
    if (k === 'noPhi' || k === 'replay' ? typeof x !== 'boolean' : k === 'maxSize' ? !(typeof x === 'number' && Number.isInteger(x) && x > 0) : true) throw bad(`has '${k}': ${k === 'noPhi' || k === 'replay' ? 'a boolean' : k === 'maxSize' ? 'a positive integer' : 'not a known key (noPhi, maxSize, replay)'} is expected`);
  }
}

/** the name generated code gives the parameter the user names `n` (renamed beside a module constant of that name) */
function generatedName(head: Func, n: string): string {
  if (head.params.some((p) => p.name === n)) return n;
  return head.params.find((p) => p.source === n)?.name ?? n;
}

export function compile(input: SourceInput, options: CompileOptions): CompileResult {
  checkOptions(options);
  const files = toFiles(input);
  const diags = new DiagnosticBag(files);
  try {
    const mod = frontEnd(input);
    return compileModule(mod, options, diags);
  } catch (e) {
    if (e instanceof TsadError) return { code: '', manifest: [], diagnostics: e.diagnostics, primals: [], wrt: [], of: [] };
    throw e;
  }
}

/**
 * The derivatives of a lowered module. Functions unchanged since an earlier compile (with their callees
 * and everything else they depend on) take the derivatives built then (src/transform/reuse.ts).
 */
export function compileModule(mod0: Module, options0: CompileOptions, diags: DiagnosticBag = new DiagnosticBag(new Map())): CompileResult {
  const before = diags.list.length;
  beginCompile(true);
  let result: CompileResult;
  let sound: boolean;
  try {
    result = compileDerivatives(mod0, options0, diags);
  } finally {
    sound = endCompile();
  }
  if (sound) return result;
  // (reuse met colliding generated names: built again from scratch, its diagnostics only once)
  diags.list.length = before;
  beginCompile(false);
  try {
    return compileDerivatives(mod0, options0, diags);
  } finally {
    endCompile();
  }
}

function compileDerivatives(mod0: Module, options0: CompileOptions, diags: DiagnosticBag): CompileResult {
  checkOptions(options0);
  // hand-written derivatives and passive functions (src/frontend/custom-derivatives.ts)
  const ruled = applyCustomDerivatives(mod0, options0.customDerivatives, diags);
  if (diags.hasErrors) return { code: '', manifest: [], diagnostics: diags.list, primals: [], wrt: [], of: [] };
  // `Class.method` names the function the method became (src/frontend/classes.ts)
  const options = { ...options0, head: memberHeadName(options0.head, (n) => ruled.funcs.has(n) || ruled.failed.has(n)) };
  // coarsening: segments differentiated by their closed forms, through the custom-derivative hook
  let coarsening: CoarsenReport | undefined;
  let mod = ruled;
  // (the independents are chosen on the module before coarsening, and the rules generated for them: a rule
  // computes no derivative for a parameter no caller varies, so both must see the same independents)
  let coarsenedWrt: string[] | undefined;
  if (options.coarsen && ruled.funcs.has(options.head)) {
    const head0 = ruled.funcs.get(options.head)!;
    const of0 = options.of?.map((n) => generatedName(head0, n)) ?? defaultOf(head0, computeWrites(ruled).get(head0.name) ?? new Set<number>());
    coarsenedWrt = options.wrt?.map((n) => generatedName(head0, n)) ?? defaultWrt(ruled, head0, of0);
    const dependents0 = { result: of0.includes('return') && hasFloat(head0.ret), params: of0.filter((o) => o !== 'return') };
    const c = timed('coarsen', () => coarsenModule(ruled, options.head, options.coarsen === true ? {} : (options.coarsen as CoarsenOptions), { wrt: coarsenedWrt!, dependents: dependents0 }));
    mod = c.mod;
    coarsening = c.report;
  }
  const reach = reachable(mod, options.head);
  for (const n of reach) {
    const failed = mod.failed.get(n);
    // (copies: the module's are shared between compiles, and callers add their own hints to what they get)
    if (failed) diags.list.push(...failed.diagnostics.map((d) => ({ ...d })));
  }
  if (diags.hasErrors) return { code: '', manifest: [], diagnostics: diags.list, primals: [], wrt: [], of: [] };
  const head = mod.funcs.get(options.head);
  const constant = mod.globals.get(options.head);
  if (!head && constant) {
    diags.error(constant.loc, `'${options.head}' is a constant, not a function`, `differentiate a function: ${mod.order.join(', ') || '(none declared)'}`);
    return { code: '', manifest: [], diagnostics: diags.list, primals: [], wrt: [], of: [] };
  }
  if (!head && mod.failed.has(options.head)) {
    // (lowering failed and said nothing: a gap in tsad's diagnostics, not a missing function)
    const first = [...diags.sources.keys()][0] ?? '<input>';
    diags.error({ file: first, line: 1, col: 1 }, `tsad could not lower '${options.head}' and has no more precise diagnostic for it (a bug in tsad's diagnostics: please report it with the function)`, 'simplify what it passes to helpers taking functions, or call them directly');
    return { code: '', manifest: [], diagnostics: diags.list, primals: [], wrt: [], of: [] };
  }
  if (!head) {
    const known = mod.order.join(', ') || '(none)';
    const first = [...diags.sources.keys()][0] ?? '<input>';
    diags.error({ file: first, line: 1, col: 1 }, `head function '${options.head}' is not declared in the input`, `functions found: ${known}`);
    return { code: '', manifest: [], diagnostics: diags.list, primals: [], wrt: [], of: [] };
  }
  const rest = head.params.find((p) => p.rest);
  if (rest) diags.error(head.loc, `'${head.name}' has a rest parameter ('...${rest.name}'): the function differentiated takes its arguments by name`, `take an array (\`${rest.name}: number[]\`) and call it with one; a helper it calls may keep its rest parameter`);
  const written = computeWrites(mod).get(head.name) ?? new Set<number>();
  const of = options.of?.map((n) => generatedName(head, n)) ?? defaultOf(head, written);
  let analysed: { wrt: string[]; activity: ProgramActivity } | undefined;
  const wrt = options.wrt?.map((n) => generatedName(head, n)) ?? coarsenedWrt ?? defaultWrt(mod, head, of, (w, activity) => (analysed = { wrt: w, activity }));
  for (const w of wrt) {
    const p = head.params.find((x) => x.name === w);
    if (!p) diags.error(head.loc, `the independents (--wrt, or wrt in the runtime API) name '${w}', which is not a parameter of '${head.name}'`, `parameters: ${head.params.map((x) => x.source ?? x.name).join(', ')}`);
    else if (p.ty.k === 'opt' && p.ty.base.k !== 'num' && hasFloat(p.ty.base)) diags.error(head.loc, `the independents (--wrt, or wrt in the runtime API) name '${w}', an array or object that may be absent (\`${w}?:\`): tsad differentiates with respect to an optional number, but an optional array or object is passive`, `give it a default instead, \`${w}: T = {}\` (or \`[]\`), to differentiate with respect to its numbers`);
    else if (!hasFloat(p.ty)) diags.error(head.loc, `the independents (--wrt, or wrt in the runtime API) name '${w}', which carries no floating-point value`, 'independents must be numbers or arrays/objects of numbers');
  }
  const ofParams = of.filter((o) => o !== 'return');
  for (const o of ofParams) {
    const p = head.params.find((x) => x.name === o);
    if (!p || !isRef(p.ty)) diags.error(head.loc, `--of names '${o}', which is not an array or object parameter of '${head.name}'`, "dependents are 'return' or output arrays/objects");
  }
  // (a nullable array result is lowered to a pair, src/frontend/nullable-locals.ts: the head's is refused as declared)
  const declaredRet = head.nullableResult ?? head.ret;
  const nullableRef = declaredRet.k === 'opt' && declaredRet.base.k !== 'num';
  if ((of.includes('return') || of.length === 0) && nullableRef && ofParams.length === 0)
    diags.error(head.loc, `'${head.name}' returns an array or object that may be ${declaredRet.k === 'opt' ? declaredRet.none.join(' or ') : 'absent'}: tsad differentiates a result that may be null only when it is a number`, `return an array or object in every case (\`[NaN, NaN]\` where there is no solution) and test it at the call, or throw where there is none${declaredRet.k === 'opt' && declaredRet.none.includes('undefined') ? ' (a path that ends without `return`, such as a `switch` without `default`, returns undefined)' : ''}`);
  else if ((of.includes('return') && !hasFloat(head.ret) && ofParams.length === 0) || of.length === 0)
    diags.error(head.loc, `'${head.name}' returns no floating-point value to differentiate, and writes no array or object parameter`, 'return the value to differentiate, or name output array parameters with --of');
  if (diags.hasErrors) return { code: '', manifest: [], diagnostics: diags.list, primals: [], wrt: [], of: [] };

  const naming = { ...DEFAULT_NAMING, ...options.naming };
  const dependents = { result: of.includes('return') && hasFloat(head.ret), params: ofParams };
  const modes = normalizeModes(options.modes ?? ['tangent', 'vector', 'reverse']);
  // derivatives see helpers returning a parameter's object as aliases; the primal copies keep the calls
  let modD: Module;
  try {
    refuseAliasedWrittenArguments(mod);
    refuseWritesToModuleData(mod);
    modD = bindReturnedArguments(mod);
    // (a result bound as the argument it returns, `const r = mul(out, a, b)`, is that argument: passed
    // again beside it, `mul(out, r, b)`, it is one array under two names)
    refuseAliasedWrittenArguments(modD);
    refuseLinkingCalls(mod, reach);
  } catch (e) {
    if (!(e instanceof TransformError)) throw e;
    const hint = e.message.includes('shared across a call')
      ? 'keep a copy where it is stored (`this.w = w.slice()`, `ps.push({ ...p })`), or after the call write through one name only'
      : e.message.includes('pass \'') && e.message.includes('and the indices instead')
      ? 'a copy of one element would lose the writes the function makes into it: pass the array and the indices'
      : e.message.includes('under another name')
      ? 'pass a copy for one of them (`w.slice()`), or write the result into a fresh array'
      : e.message.includes('follow the objects they share')
      ? 'keep a copy where it is stored (`this.d = d.slice()`, `{ ...p }`), or pass the objects to the method that writes them (`link.pull(bodies, k)`) instead of keeping them'
      : e.message.includes('module constant')
        ? 'allocate the buffer inside the function, or pass it as a parameter'
        : 'return a fresh array (a copy: `v.slice()`), or always return the same parameter (`return out`)';
    diags.error(e.node?.loc, e.message, hint);
    return { code: '', manifest: [], diagnostics: diags.list, primals: [], wrt: [], of: [] };
  }
  // (choosing the independents analysed this module for these dependents already: when it kept them all, that is the answer)
  const activity = analysed && modD === mod && analysed.wrt.join() === wrt.join() ? analysed.activity : timed('activity', () => analyzeActivity(modD, head.name, wrt, dependents));
  const info = new ProgramInfo(modD, activity, head.name, new Set(wrt), naming);
  // the adjoint works on a structured copy: jumps and switches lowered to flags and if-chains
  let infoB = info;
  if (modes.includes('reverse')) {
    try {
      const adj = { ...DEFAULT_ADJOINT, ...options.adjoint };
      // (inlining serves fused reductions; joint mode keeps every call a call, to checkpoint it)
      const inline = adj.inlineCalls !== false && adj.fuseReductions !== false && adj.checkpointCalls !== true;
      const modB: Module = timed('normalize', () => {
        const modI = inline ? inlineLeafCalls(modD) : modD;
        return { ...modI, funcs: new Map([...modI.funcs].map(([n, f]) => [n, lowerJumps(f)])) };
      });
      infoB = new ProgramInfo(modB, timed('activity', () => analyzeActivity(modB, head.name, wrt, dependents)), head.name, new Set(wrt), naming, { ...DEFAULT_ADJOINT, ...options.adjoint });
    } catch (e) {
      if (e instanceof TransformError) {
        diags.error(e.node?.loc, e.message, 'rewrite this part with supported operations (see the README)');
        return { code: '', manifest: [], diagnostics: diags.list, primals: [], wrt: [], of: [] };
      }
      throw e;
    }
  }
  // the modes the rules give, and black boxes without rules (src/transform/custom.ts)
  customRuleErrors(info, modes, diags);
  if (infoB !== info) customRuleErrors(infoB, ['reverse'], diags);
  if (diags.hasErrors) return { code: '', manifest: [], diagnostics: dedupe(diags.list), primals: [], wrt: [], of: [] };
  const out: Func[] = [];
  const manifest: ManifestEntry[] = [];
  // the adjoint's activity is that of its jump-lowered copy, which may differentiate other callees
  const diffOrder = (inf: ProgramInfo) => mod.order.filter((n) => inf.activity.funcs.has(n) && (n === head.name || inf.differentiated(n)));
  try {
    for (const inf of new Set([info, infoB])) for (const n of diffOrder(inf)) refuseUnsupportedOps(inf.func(n), inf.act(n), (g) => inf.mod.funcs.get(g));
    // callers first: their questions about a callee build its adjoint once, which it then takes (calls.ts)
    const build = (inf: ProgramInfo) => new Map(diffOrder(inf).reverse().map((n) => [n, adjointFuncs(inf, n)]));
    let adjoints: Map<string, AdjointOutput[]> | null = null;
    if (modes.includes('reverse')) {
      const built = timed('reverse', () => withElidedHandovers(infoB, build, () => new ProgramInfo(infoB.mod, infoB.activity, head.name, new Set(wrt), naming, infoB.options)));
      infoB = built.info;
      adjoints = built.adjoints;
    }
    for (const mode of modes) {
      for (const n of diffOrder(mode === 'reverse' ? infoB : info)) {
        if (mode === 'tangent' || mode === 'vector') {
          const g = timed(mode, () => tangentFunc(info, n, mode === 'tangent' ? 'scalar' : 'vector'));
          out.push(g);
          manifest.push(describe(g, mode, n));
        } else {
          for (const g of adjoints!.get(n)!) {
            out.push(g.func);
            manifest.push(describe(g.func, g.role, n));
          }
        }
      }
    }
  } catch (e) {
    if (e instanceof TransformError) {
      diags.error(e.node?.loc, e.message, 'rewrite this part with supported operations (see the README)');
      return { code: '', manifest: [], diagnostics: diags.list, primals: [], wrt: [], of: [] };
    }
    throw e;
  }
  if (modes.includes('vector') && options.sparseVector) timed('sparse', () => sparseVectorFuncs(info, out));
  const printed = timed('print', () => printModule(mod, reach, out, options, diags, { manifest, wrt, of }));
  return coarsening ? { ...printed, coarsening } : printed;
}

/**
 * The vector tangents of `out` in their sparse form (src/transform/sparse-vector.ts). A call's array
 * argument has its rows found again after the call only where the callee may write it.
 */
function sparseVectorFuncs(info: ProgramInfo, out: Func[]): void {
  const vectors = new Map<string, { primal: Func; func: Func }>();
  for (const n of info.mod.order) {
    const name = tangentName(info, n, 'vector');
    const func = out.find((g) => g.name === name);
    if (func) vectors.set(name, { primal: info.func(n), func });
  }
  const writes = computeWrites(info.mod);
  const mayWrite = (callee: string, arg: number): boolean => {
    const v = vectors.get(callee);
    const p = v?.func.params[arg];
    if (!v || p?.role !== 'tangent' || !p.of) return true;
    // (a parameter not found counts as written, like everything this cannot tell)
    const j = v.primal.params.findIndex((q) => q.name === p.of);
    return j < 0 || (writes.get(v.primal.name)?.has(j) ?? true);
  };
  // (a parameter some call may pass an array born of a literal, which the call may grow: left dense)
  const grown = literalParams(info.mod);
  const mayGrow = (g: Func) => (param: string): boolean => {
    const v = vectors.get(g.name);
    const p = g.params.find((q) => q.name === param);
    return !!v && !!p?.of && grown.has(`${v.primal.name}\0${p.of}`);
  };
  for (const [k, g] of out.entries()) if (vectors.get(g.name)?.func === g) out[k] = sparseVectorFunc(g, info.moduleNames, mayWrite, mayGrow(g)).func;
}

/**
 * The adjoints built first with the scratch handovers analysis/scratch-handover.ts finds unneeded left
 * out, kept when the build shows their hosts' sweeps run back to back; otherwise (or when there are
 * none) built with every handover.
 */
function withElidedHandovers(
  info: ProgramInfo,
  build: (inf: ProgramInfo) => Map<string, AdjointOutput[]>,
  fresh: () => ProgramInfo,
): { info: ProgramInfo; adjoints: Map<string, AdjointOutput[]> } {
  const scratch = scratchFields(info.mod);
  const hosts = info.options.merge === false || info.options.tbr === false ? new Map<string, string>() : elidableScratch(info.mod, scratch);
  if (!hosts.size) return withoutUnreadFieldRestores(info, build, fresh);
  const elided = () => {
    const inf = fresh();
    inf.elidedScratch = new Set(hosts.keys());
    return inf;
  };
  const tried = withoutUnreadFieldRestores(elided(), build, elided);
  const funcs = [...tried.adjoints.values()].flatMap((l) => l.map((g) => g.func));
  const writersOf = (key: string) => [...scratch.instances].filter(([, m]) => m.has(key)).map(([fn]) => fn);
  const reaching = (key: string) => callersOf(info.mod, new Set([hosts.get(key)!, ...writersOf(key)]));
  const holds = handoverElisionHolds(funcs, hosts, writersOf, reaching, (fn) => adjointNames(tried.info, fn));
  return holds ? tried : withoutUnreadFieldRestores(info, build, fresh);
}

/** `fns` and every function calling one of them, directly or not */
function callersOf(mod: Module, fns: Set<string>): Set<string> {
  const out = new Set(fns);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, f] of mod.funcs) {
      if (out.has(name)) continue;
      let calls = false;
      forEachStmt(f.body, (s) => {
        for (const e of stmtExprs(s))
          forEachExpr(e, (x) => {
            if (x.k === 'call' && out.has(x.fn)) calls = true;
          });
      });
      if (calls) {
        out.add(name);
        grew = true;
      }
    }
  }
  return out;
}

/**
 * The adjoints, built once; then, when number fields some function writes are read by no backward
 * sweep (transform/adjoint/field-reads.ts), built again without restoring them for callers. The second
 * build is kept only when its own backward sweeps read none of the fields it assumed unread (a field
 * they do read is dropped from the assumption and the build repeated).
 */
function withoutUnreadFieldRestores(
  info: ProgramInfo,
  build: (inf: ProgramInfo) => Map<string, AdjointOutput[]>,
  fresh: () => ProgramInfo,
): { info: ProgramInfo; adjoints: Map<string, AdjointOutput[]> } {
  const first = { info, adjoints: build(info) };
  // (the naive model records everything; without the primal results, a caller may see its objects as restored)
  if (!info.options.tbr || info.options.primalResults === false) return first;
  const reads = unionReads(info.fieldReads.values());
  if (reads === ALL_FIELDS) return first;
  const written = new Set<string>();
  for (const n of first.adjoints.keys()) if (n !== info.head) for (const w of writtenNumberFields(info.func(n))) written.add(w);
  let unread = new Set([...written].filter((w) => !reads.has(w)));
  for (let round = 0; round < 3 && unread.size; round++) {
    const inf = fresh();
    inf.unreadNumberFields = unread;
    const adjoints = build(inf);
    const again = unionReads(inf.fieldReads.values());
    if (again === ALL_FIELDS) return first;
    const stillUnread = new Set([...unread].filter((w) => !again.has(w)));
    if (stillUnread.size === unread.size) return { info: inf, adjoints };
    unread = stillUnread;
  }
  return first;
}

/** the module's text: runtime import, types, data, primal copies of what the head reaches, then the derivatives */
function printModule(mod: Module, reach: Set<string>, out: Func[], options: CompileOptions, diags: DiagnosticBag, parts: Pick<CompileResult, 'manifest' | 'wrt' | 'of'>): CompileResult {
  const rt = runtimeNames(mod);
  const p = new Printer({ js: options.js, runtime: rt });
  p.line('// Generated by tsad. Do not edit: regenerate from the source instead.');
  const runtime = options.runtimeImport === undefined ? 'tsad/runtime' : options.runtimeImport;
  const importAt = p.position();
  p.line('');
  for (const [name, t] of mod.types) if (!options.js) p.line(`export type ${name} = ${typeLiteral(t)};`);
  if (mod.types.size && !options.js) p.line('');
  const bound: string[] = [];
  // black boxes (`declare function`) are declared again, or bound at run time in JavaScript
  for (const n of mod.order.filter((x) => reach.has(x) && mod.funcs.get(x)!.external)) {
    const f = mod.funcs.get(n)!;
    if (options.js) {
      p.line(`let ${n};`);
      bound.push(n);
    } else p.line(`declare function ${n}(${f.params.map((q) => `${q.name}: ${tyText(q.ty)}`).join(', ')}): ${tyText(f.ret)};`);
  }
  for (const g of mod.globals.values()) {
    if (g.init) p.line(`const ${g.name}${options.js ? '' : ': ' + tyText(g.ty)} = ${p.expr(g.init)};`);
    else if (options.js) {
      p.line(`let ${g.name};`);
      bound.push(g.name);
    } else p.line(`declare const ${g.name}: ${tyText(g.ty)};`);
  }
  // data declared ambient is bound from outside before each call (the runtime API's scope)
  if (bound.length) p.line(`export function __bindScope(scope) { ${bound.map((n) => `${n} = scope.${n};`).join(' ')} }`);
  if (mod.globals.size || mod.order.some((x) => reach.has(x) && mod.funcs.get(x)!.external)) p.line('');
  const primals: string[] = [];
  for (const n of mod.order.filter((x) => reach.has(x))) {
    const f = mod.funcs.get(n)!;
    if (f.external) continue;
    p.exportedFunc(f);
    p.line('');
    primals.push(n);
  }
  const derivativesAt = p.position();
  p.derivativeCode();
  for (const f of out) {
    p.exportedFunc(f);
    p.line('');
  }
  // the runtime's exports the derivatives use, imported ahead of everything (a reused derivative's text is not searched again)
  const used = p.wordsFrom(derivativesAt, RUNTIME_EXPORTS.map((n) => rt[n]));
  const needs = RUNTIME_EXPORTS.filter((n) => used.has(rt[n]));
  if (runtime !== null && needs.length) p.insertLine(importAt, `import { ${needs.map((n) => (rt[n] === n ? n : `${n} as ${rt[n]}`)).join(', ')} } from '${runtime}';`);
  p.dropTrailingEmptyLines();
  const code = withOneFinalNewline(p.text());
  const map = options.sourceMap ? { map: sourceMapOf(code, p.lineOrigins(), diags.sources) } : {};
  return { code, manifest: parts.manifest, diagnostics: diags.list, primals, wrt: parts.wrt, of: parts.of, runtimeNames: rt, ...map };
}

/** `text` ending in exactly one line break (a regular expression anchored at the end scans the whole module) */
function withOneFinalNewline(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  return end === text.length ? text : text.slice(0, end) + '\n';
}

const RUNTIME_EXPORTS = ['Tape', 'zerosLike', 'zeros', 'zeroFill', 'snapshot', 'restoreInto', 'addInto', 'zerosAgain', 'float64Again', 'zeroedFor'];

/** a function's parameter and local names (every compile's runtimeNames asks them of every function) */
const localNames: (f: Func) => ReadonlySet<string> = perFunction(declaredNames);

/** the runtime's exports under names no declaration of the input uses (`Tape`, else `Tape0`, …) */
function runtimeNames(mod: Module): Record<string, string> {
  const used = new Set<string>([...mod.order, ...mod.globals.keys(), ...mod.types.keys()]);
  for (const f of mod.funcs.values()) for (const n of localNames(f)) used.add(n);
  const names = new Names(used);
  return Object.fromEntries(RUNTIME_EXPORTS.map((n) => [n, names.fresh(n)]));
}

function tyText(t: Ty): string {
  return printTy(t);
}

function typeLiteral(t: Ty): string {
  if (t.k !== 'obj') return tyText(t);
  return `{ ${t.fields.map((f) => (f.optional ? `${f.name}?: ${tyText(f.ty.k === 'opt' ? f.ty.base : f.ty)}` : `${f.name}: ${tyText(f.ty)}`)).join('; ')} }`;
}

/** a function's parameters and result as the manifest writes them (a recompile describes mostly reused derivatives) */
const signatureText = perFunction((f: Func) => ({
  params: f.params.map((p): ManifestParam => ({ name: p.name, role: p.role ?? 'primal', ...(p.of ? { of: p.of } : {}), type: tyText(p.ty) })),
  returns: tyText(f.ret),
}));

function describe(f: Func, mode: ManifestEntry['mode'], of: string): ManifestEntry {
  const sig = signatureText(f);
  // (copies: the caller owns its manifest)
  return { name: f.name, mode, of, params: sig.params.map((p) => ({ ...p })), returns: sig.returns };
}

/** Functions the head calls, transitively (failed ones included, by their recorded calls). */
function reachable(mod: Module, head: string): Set<string> {
  // (a hand-written rule is called by the derivatives)
  return calledFrom(mod, head, (n, f) => (f ? ruleFunctions(f) : (mod.failed.get(n)?.calls ?? [])));
}
