// Types for the helpers of a plain JavaScript function (the runtime API's `scope`), from their use:
// parameters from the argument types at their call sites, results inferred by TypeScript from their
// bodies. Whatever is inferred here is checked again by the strict front end, so a wrong guess is a
// located type error, never a wrong derivative.
import ts from 'typescript';
import { TsadError } from '../frontend/diagnostics.js';
import { createProgram } from '../frontend/lower.js';
import { annotate, asDeclaration, mentions, splitFields, type FunctionSource } from './source.js';
import { annotateLocalFunctions, localKey, localName } from './local-functions.js';
import { annotateLocals, widenedText } from './locals.js';
import { missingFieldsRead } from './absent.js';
import { annotateClass, basesFirst, memberKey, thisAssignments, thisPushes, type ClassSource } from './classes.js';

/** types that say nothing about a value: a recursive call's `any`, an empty literal's `undefined[]` or `never[]` */
const UNKNOWN = /\b(any|never|undefined|null|void|unknown)\b/;

/** A type of no use for a parameter; `number | null` is definite (an optional value), `null` alone is not. */
function indefinite(t: string): boolean {
  const members = t.split(' | ').filter((m) => m !== 'null' && m !== 'undefined');
  return !members.length || members.some((m) => UNKNOWN.test(m));
}

export interface Helper {
  name: string;
  fn: FunctionSource;
}

/**
 * The hint for TypeScript's "implicitly has an 'any' type" at a parameter of a helper the calls did not
 * type (called only with values of no definite type, or never called), or null elsewhere. `module` is the
 * text helperModule made, `line` the diagnostic's.
 */
export function untypedHelperHint(module: string, helpers: readonly Helper[], types: HelperTypes, line: number): string | null {
  const lines = module.split('\n');
  // helpers are declared last, one after the other: the one whose declaration starts last at or before `line`
  let owner: Helper | null = null;
  for (const h of helpers) {
    const start = lines.findIndex((l) => l.startsWith(`const ${h.name} = `)) + 1;
    if (start > 0 && start <= line) owner = h;
  }
  if (!owner || types.params.get(owner.name)?.some((t) => t !== null)) return null;
  return `the runtime API types a helper's parameters from the arguments of its calls, and no call of '${owner.name}' passes values of a definite type (an empty \`[]\` or \`new Array(n)\` has none): build arrays with \`Array.from({ length: n }, () => 0)\` or a literal of numbers`;
}

export interface HelperTypes {
  /**
   * parameter types per helper, each from the first call site that gives it a known type (null: none
   * does); a function argument is typed from the helper's own calls of that parameter
   */
  params: Map<string, (string | null)[]>;
  /** result types of recursive helpers (TypeScript cannot infer those: they depend on themselves) */
  results: Map<string, string>;
  /** parameter types of named local functions passed to helpers, by localKey (see local-functions.ts) */
  locals: Map<string, string[]>;
  /** per helper, how many arguments every call passes: the parameters after those are optional (`squared?: boolean`) */
  passed: Map<string, number>;
  /** field types of scope classes by `K.f` (classes.ts); their members' parameters are in `params` by memberKey */
  fields: Map<string, string>;
}

/**
 * Helpers that call themselves, directly or through other helpers. Their result type is circular for
 * TypeScript, so it is taken from their returns that do not recurse (see recursiveResult).
 */
export function recursiveHelpers(helpers: readonly Helper[]): Set<string> {
  const calls = new Map(helpers.map((h) => [h.name, helpers.filter((o) => mentions(h.fn, o.name)).map((o) => o.name)]));
  const out = new Set<string>();
  for (const h of helpers) {
    const seen = new Set<string>();
    const todo = [...(calls.get(h.name) ?? [])];
    while (todo.length) {
      const n = todo.pop()!;
      if (n === h.name) {
        out.add(h.name);
        break;
      }
      if (seen.has(n)) continue;
      seen.add(n);
      todo.push(...(calls.get(n) ?? []));
    }
  }
  return out;
}

const isObjectTypeText = (t: string) => t === '{}' || /^\{ .* \}$/.test(t);

/**
 * Two object types from two calls as one: every field of either, optional where either lacks it, marks
 * it optional or passes `undefined`; null where a field has two different types (the first call's type
 * is kept: the strict front end then says where the other does not fit).
 */
export function mergeObjectTypes(a: string, b: string): string | null {
  const fieldsOf = (t: string) => {
    const m = /^\{ (.*) \}$/.exec(t);
    const out = new Map<string, { ty: string | null; optional: boolean }>();
    for (const f of m ? splitFields(m[1]) : []) {
      const x = /^([\w$]+)(\??): (.*)$/.exec(f);
      if (!x) return null;
      const all = x[3].split(' | ');
      // (a flag passed as `{ log: true }` is a boolean: another call may pass false)
      const members = [...new Set(all.filter((u) => u !== 'undefined').map((u) => (u === 'true' || u === 'false' ? 'boolean' : u)))];
      out.set(x[1], { ty: members.length ? members.join(' | ') : null, optional: !!x[2] || all.includes('undefined') });
    }
    return out;
  };
  const fa = fieldsOf(a), fb = fieldsOf(b);
  if (!fa || !fb) return null;
  const fields: string[] = [];
  for (const name of new Set([...fa.keys(), ...fb.keys()])) {
    const x = fa.get(name), y = fb.get(name);
    if (x?.ty && y?.ty && x.ty !== y.ty) return null;
    const ty = x?.ty ?? y?.ty ?? 'undefined';
    const optional = !x || !y || x.optional || y.optional;
    fields.push(`${name}${optional ? '?' : ''}: ${ty}`);
  }
  return fields.length ? `{ ${fields.join('; ')} }` : '{}';
}

/** The module text: data declarations, the head, the classes and helpers annotated with what is known so far. */
export function helperModule(prelude: readonly string[], helpers: readonly Helper[], types: HelperTypes, classes: readonly ClassSource[] = []): string {
  const text = [...prelude, ...basesFirst(classes).map((c) => annotateClass(c, types.params, types)), ...helpers.map((h) => asDeclaration(h.name, annotate(h.fn, types.params.get(h.name) ?? [], types.results.get(h.name) ?? null, types.passed.get(h.name))))].join('\n');
  return annotateLocalFunctions(text, types.locals);
}

/**
 * Parameter and recursive-result types of the helpers, a few rounds (a helper called with another
 * helper's result learns its types once that result is typed). `prelude` holds the data declarations
 * and the annotated head.
 */
export function inferHelperTypes(prelude: readonly string[], helpers: readonly Helper[], classes: readonly ClassSource[] = [], instanceFields: ReadonlyMap<string, string> = new Map()): HelperTypes {
  const recursive = recursiveHelpers(helpers);
  let types: HelperTypes = { params: new Map(), results: new Map(), locals: new Map(), passed: new Map(), fields: new Map(instanceFields) };
  for (let round = 0; round < 6; round++) {
    // (locals are typed in the whole module: `const bs = []` filled by `new Bead(x)` is `Bead[]` only
    // once the class is there, and its elements then type the parameters they are passed to)
    const next = inferOnce(annotateLocals(helperModule(prelude, helpers, types, classes)), helpers, recursive, classes, instanceFields);
    const key = (t: HelperTypes) => JSON.stringify([[...t.params], [...t.results], [...t.locals], [...t.passed], [...t.fields]]);
    if (key(next) === key(types)) break;
    types = next;
  }
  // a function type still waiting for its result type (`(a0: number) => any`) is no type
  for (const [name, list] of types.params) {
    const known = list.map((t) => (t !== null && indefinite(t) ? null : t));
    if (known.some((t) => t !== null)) types.params.set(name, known);
    else types.params.delete(name);
  }
  for (const name of recursive)
    if (!types.results.has(name))
      throw new TsadError([
        {
          file: `scope.${name}`,
          line: 1,
          col: 1,
          message: `the result type of the recursive helper '${name}' cannot be inferred: it needs a return that does not call it and has a definite type (an empty array literal \`[]\` has none)`,
          hint: `give '${name}' a base case that returns a value of its result type (\`return 1;\`, \`return [0];\`), or write it as a loop`,
          severity: 'error',
        },
      ]);
  return types;
}

function inferOnce(text: string, helpers: readonly Helper[], recursive: ReadonlySet<string>, classes: readonly ClassSource[], instanceFields: ReadonlyMap<string, string>): HelperTypes {
  // the in-memory host of the front end: no file system, so this runs in a browser too
  // null checks on, so that an argument that may be null (`opts ? opts.d : null`) types the parameter `number | null`;
  // noImplicitAny on, because TypeScript evolves `const a = []` (and `let y;`) from their pushes and
  // assignments only then: off, an argument built by `a.push(row)` is `any[]` and types nothing
  const program = createProgram(new Map([['m.ts', text]]), { strict: false, noImplicitAny: true, strictNullChecks: true });
  const sf = program.getSourceFile('/m.ts')!;
  const checker = program.getTypeChecker();
  // (an array argument of literal elements, `eye(A.map((_, i) => (i ? 1 : 0)))`, types the parameter
  // `number[]`: plain JavaScript has no `(0 | 1)[]`, and the helper may store other numbers in it)
  const typeText = (e: ts.Expression) => {
    const t = checker.getBaseTypeOfLiteralType(checker.getTypeAtLocation(e));
    return (checker.isArrayType(t) ? widenedText(checker, t) : null) ?? checker.typeToString(t);
  };
  const names = new Set(helpers.map((h) => h.name));
  const byName = new Map(helpers.map((h) => [h.name, h.fn]));
  const params = new Map<string, (string | null)[]>();
  const locals = new Map<string, string[]>();
  const passed = new Map<string, number>();
  /** a parameter's type from one more call site: kept if it is the first known one (or improves on a provisional one) */
  const learn = (helper: string, j: number, t: string | null) => {
    const list = params.get(helper) ?? [];
    params.set(helper, list);
    while (list.length <= j) list.push(null);
    const have = list[j];
    // object literals of several calls: every field any passes, optional where one lacks it
    // (`m(r, {})`, `m(r, { scale: a })`, `m(r, { scale: undefined })` → `{ scale?: number }`)
    if (t !== null && isObjectTypeText(t) && (have === null || isObjectTypeText(have))) {
      list[j] = have === null ? (mergeObjectTypes(t, t) ?? t) : (mergeObjectTypes(have, t) ?? have);
      return;
    }
    if (t === null || (have !== null && !provisional(have))) return;
    if (!indefinite(t) || (provisional(t) && have === null)) list[j] = t;
  };
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && names.has(n.expression.text)) {
      const helper = n.expression.text;
      // `lerp(...args)` with a tuple `args` gives one argument per element; any other spread ends what is known
      let j = 0;
      let known = true;
      for (const a of n.arguments) {
        if (!ts.isSpreadElement(a)) learnArgument(helper, j++, a);
        else {
          const t = checker.getTypeAtLocation(a.expression);
          known = checker.isTupleType(t);
          // an array spread into a rest parameter (`total(...out)`): its elements type it
          if (!known && checker.isArrayType(t)) learn(helper, j, checker.typeToString(checker.getBaseTypeOfLiteralType(checker.getTypeArguments(t as ts.TypeReference)[0])));
          if (!known) break;
          for (const e of checker.getTypeArguments(t as ts.TypeReference)) learn(helper, j++, checker.typeToString(checker.getBaseTypeOfLiteralType(e)));
        }
      }
      if (known) passed.set(helper, Math.min(passed.get(helper) ?? j, j));
    }
    // a helper passed by name to an array method (`rgb.map(toLinear)`): typed as the method calls it
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && CALLBACK_METHODS.has(n.expression.name.text)) {
      const m = n.expression.name.text;
      const fnArg = n.arguments[0] && skipParens(n.arguments[0]);
      if (fnArg && ts.isIdentifier(fnArg) && names.has(fnArg.text)) {
        const recv = checker.getTypeAtLocation(n.expression.expression);
        const elem = elementTypeText(recv, checker);
        if (elem) {
          const reduce = m === 'reduce' || m === 'reduceRight';
          const acc = reduce ? (n.arguments[1] ? typeText(n.arguments[1]) : elem) : null;
          const passedTypes = reduce ? [acc!, elem, 'number'] : [elem, 'number'];
          passedTypes.forEach((t, j) => learn(fnArg.text, j, t));
        }
      }
    }
    // a function chosen by a condition (`var ease = quintic ? smoother : smooth`), called: a call of each helper it names
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && !names.has(n.expression.text))
      for (const helper of chosenHelpers(n.expression, checker, names)) n.arguments.forEach((a, j) => ts.isSpreadElement(a) || learnArgument(helper, j, a));
    // a named local function with a destructured parameter, called: TypeScript types `[a, b]` by its
    // pattern (the tuple `[any, any]`, which no array fits), so it is typed from its first call
    if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && !names.has(n.expression.text)) {
      const local = localFunction(n.expression, checker);
      const at = local && local.parameters.some((p) => !ts.isIdentifier(p.name)) ? localName(local) : null;
      const args = at && !n.arguments.some(ts.isSpreadElement) ? n.arguments.map(typeText) : null;
      if (at && args && !args.some(indefinite) && !locals.has(localKey(...at))) locals.set(localKey(...at), args);
    }
    const member = classes.length ? memberCalled(n, checker, classNames) : null;
    if (member) {
      member.args.forEach((a, j) => learn(member.key, j, ts.isSpreadElement(a) ? null : typeText(a)));
      // (a parameter some call leaves out is optional, as a helper's is)
      if (!member.args.some(ts.isSpreadElement)) passed.set(member.key, Math.min(passed.get(member.key) ?? member.args.length, member.args.length));
    }
    n.forEachChild(visit);
  };
  const classNames = new Set(classes.map((c) => c.name));
  /** what argument `a`, at position `j` of a call of `helper`, says of its parameter */
  const learnArgument = (helper: string, j: number, a: ts.Expression) => {
    const fn = skipParens(a);
    const local = ts.isIdentifier(fn) && names.has(fn.text) ? null : localFunction(fn, checker);
    if (local) {
      const calls = callsOfParam(sf, helper, j);
      learn(helper, j, functionArgType(local, calls, checker, typeText));
      // a named local function's parameters are annotated in the next round (its result depends on them)
      const at = localName(local);
      const args = calls[0]?.arguments.map(typeText);
      if (at && args && !args.some(indefinite) && !locals.has(localKey(...at))) locals.set(localKey(...at), args);
    } else {
      // a helper passed by name is typed like one called where its parameter is called
      if (ts.isIdentifier(fn) && names.has(fn.text)) callsOfParam(sf, helper, j)[0]?.arguments.forEach((x, k) => learn(fn.text, k, typeText(x)));
      learn(helper, j, withFieldsRead(a, helper, j));
      const t = checker.getTypeAtLocation(a);
      if (isPlainObject(t, typeText(a))) objectSites.set(`${helper}#${j}`, [...(objectSites.get(`${helper}#${j}`) ?? []), t]);
    }
  };
  /** the object types passed at each position of each helper's calls */
  const objectSites = new Map<string, ts.Type[]>();
  const isPlainObject = (t: ts.Type, text: string) => !!(t.flags & ts.TypeFlags.Object) && !checker.isArrayType(t) && !checker.isTupleType(t) && !t.getCallSignatures().length && /^\{.*\}$/.test(text);
  /**
   * Calls passing objects of different fields (`step(x, opts)` and `step(x, { dt })`): one type with the
   * fields some of them lack optional, when the fields they share have one type; null otherwise.
   */
  const mergedObjectType = (helper: string, j: number, sites: ts.Type[]): string | null => {
    const fields = new Map<string, { type: string; optional: boolean }>();
    for (const t of sites)
      for (const p of t.getProperties()) {
        const type = checker.typeToString(checker.getNonNullableType(checker.getTypeOfSymbol(p)));
        const optional = !!(p.flags & ts.SymbolFlags.Optional);
        const f = fields.get(p.name);
        if (f && f.type !== type) return null;
        fields.set(p.name, { type, optional: (f?.optional ?? false) || optional });
      }
    for (const [name, f] of fields) if (sites.some((t) => !t.getProperty(name))) f.optional = true;
    const fn = byName.get(helper);
    const extra = fn ? missingFieldsRead(fn, j, [...fields.keys()]) : [];
    return `{ ${[...[...fields].map(([name, f]) => `${name}${f.optional ? '?' : ''}: ${f.type}`), ...extra].join('; ')} }`;
  };
  /**
   * The type of an object argument, with the fields the helper reads but the argument's type lacks added
   * as optional fields (`newton(x, opts)` reading `opts.tol ?? 1e-10` when opts is `{ scale: number }`):
   * the type comes from values that lack them.
   */
  const withFieldsRead = (a: ts.Expression, helper: string, j: number): string => {
    const text = typeText(a);
    const t = checker.getTypeAtLocation(a);
    const fn = byName.get(helper);
    const plainObject = t.flags & ts.TypeFlags.Object && !checker.isArrayType(t) && !checker.isTupleType(t) && !t.getCallSignatures().length && /^\{.*\}$/.test(text);
    if (!fn || !plainObject) return text;
    const extra = missingFieldsRead(fn, j, t.getProperties().map((p) => p.name));
    if (!extra.length) return text;
    const own = text.replace(/^\{\s*|;?\s*\}$/g, '');
    return `{ ${[own, ...extra].filter(Boolean).join('; ')} }`;
  };
  visit(sf);
  for (const [key, sites] of objectSites) {
    const [helper, j] = [key.slice(0, key.lastIndexOf('#')), Number(key.slice(key.lastIndexOf('#') + 1))];
    if (new Set(sites.map((t) => checker.typeToString(t))).size < 2) continue;
    const merged = mergedObjectType(helper, j, sites);
    if (merged) params.get(helper)![j] = merged;
  }
  const fields = classes.length ? fieldTypes(sf, checker, classNames, instanceFields) : new Map<string, string>();
  const results = new Map<string, string>();
  for (const st of sf.statements) {
    if (!ts.isVariableStatement(st)) continue;
    const d = st.declarationList.declarations[0];
    if (!d || !ts.isIdentifier(d.name) || !recursive.has(d.name.text) || !d.initializer) continue;
    const r = recursiveResult(d.initializer, typeText);
    if (r) results.set(d.name.text, r);
  }
  return { params, results, locals, passed, fields };
}

/**
 * The member of a scope class an expression calls or assigns through, with the arguments it passes:
 * `new K(…)`, `super(…)`, `o.m(…)` and `K.s(…)` (by the declaration TypeScript resolves, so a method a
 * subclass inherits is its base's), `o.p = v` through a setter.
 */
function memberCalled(n: ts.Node, checker: ts.TypeChecker, classNames: ReadonlySet<string>): { key: string; args: readonly ts.Expression[] } | null {
  if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && classNames.has(n.expression.text)) return { key: `${n.expression.text}.constructor`, args: n.arguments ?? [] };
  if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.SuperKeyword) {
    const cls = ts.findAncestor(n, ts.isClassDeclaration);
    const base = cls?.heritageClauses?.[0]?.types[0]?.expression;
    return base && ts.isIdentifier(base) && classNames.has(base.text) ? { key: `${base.text}.constructor`, args: n.arguments } : null;
  }
  const declOf = (e: ts.Node) => checker.getSymbolAtLocation(e)?.declarations?.find((d) => ts.isClassDeclaration(d.parent) && !!d.parent.name && classNames.has(d.parent.name.text)) as ts.ClassElement | undefined;
  if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
    const d = declOf(n.expression.name);
    const key = d && ts.isMethodDeclaration(d) ? memberKey((d.parent as ts.ClassDeclaration).name!.text, d) : null;
    return key ? { key, args: n.arguments } : null;
  }
  if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(n.left)) {
    const d = checker.getSymbolAtLocation(n.left.name)?.declarations?.find(ts.isSetAccessorDeclaration);
    const cls = d && ts.isClassDeclaration(d.parent) ? d.parent.name?.text : undefined;
    return d && cls && classNames.has(cls) ? { key: memberKey(cls, d)!, args: [n.right] } : null;
  }
  return null;
}

/**
 * Field types of the scope classes in the module: the instances' values first (`instanceFields`), then
 * the one definite type of the values the class assigns to the field (with `| null` or `| undefined` if
 * it also assigns those), then, for a field only assigned empty arrays, the type of what it pushes.
 */
function fieldTypes(sf: ts.SourceFile, checker: ts.TypeChecker, classNames: ReadonlySet<string>, instanceFields: ReadonlyMap<string, string>): Map<string, string> {
  const out = new Map(instanceFields);
  const typeText = (e: ts.Expression) => checker.typeToString(checker.getBaseTypeOfLiteralType(checker.getTypeAtLocation(e)));
  for (const st of sf.statements) {
    if (!ts.isClassDeclaration(st) || !st.name || !classNames.has(st.name.text)) continue;
    const cls = st.name.text;
    const byField = new Map<string, string[]>();
    for (const a of thisAssignments(st)) byField.set(a.name, [...(byField.get(a.name) ?? []), typeText(a.value)]);
    for (const m of st.members) if (ts.isPropertyDeclaration(m) && m.initializer && m.name && ts.isIdentifier(m.name)) byField.set(m.name.text, [...(byField.get(m.name.text) ?? []), typeText(m.initializer)]);
    for (const [f, list] of byField) {
      const key = `${cls}.${f}`;
      if (out.has(key)) continue;
      const definite = [...new Set(list.filter((t) => !indefinite(t)))];
      let t = definite.length === 1 ? definite[0] : null;
      if (!t && !definite.length) {
        const pushed = [...new Set(thisPushes(st, f).map(typeText).filter((x) => !indefinite(x)))];
        if (pushed.length === 1) t = /^[\w$]+$/.test(pushed[0]) ? `${pushed[0]}[]` : `(${pushed[0]})[]`;
      }
      if (!t) continue;
      if (list.includes('null') && !/\bnull\b/.test(t)) t += ' | null';
      if (list.includes('undefined') && !/\bundefined\b/.test(t)) t += ' | undefined';
      out.set(key, t);
    }
  }
  return out;
}

/**
 * The result type of a recursive function: the one type of its result expressions that do not depend on
 * a recursive call (a recursive call's type is `any` in the non-strict program, and so is every
 * expression built from it), or null if there is none or they disagree. The strict front end checks the
 * other returns against it.
 */
function recursiveResult(init: ts.Expression, typeText: (e: ts.Expression) => string): string | null {
  const fn = ts.isParenthesizedExpression(init) ? init.expression : init;
  if (!ts.isFunctionExpression(fn) && !ts.isArrowFunction(fn)) return null;
  const results: ts.Expression[] = [];
  // `c ? base : recurse(…)` gives two results: the branch that does not recurse types the function
  const add = (e: ts.Expression): void => {
    const x = ts.isParenthesizedExpression(e) ? e.expression : e;
    if (ts.isConditionalExpression(x)) {
      add(x.whenTrue);
      add(x.whenFalse);
    } else results.push(x);
  };
  if (!ts.isBlock(fn.body)) add(fn.body);
  else {
    const visit = (n: ts.Node): void => {
      if (ts.isFunctionLike(n)) return;
      if (ts.isReturnStatement(n) && n.expression) add(n.expression);
      n.forEachChild(visit);
    };
    fn.body.forEachChild(visit);
  }
  const known = [...new Set(results.map(typeText).filter((t) => !indefinite(t)))];
  return known.length === 1 ? known[0] : null;
}

/** the array methods that call a function they are given with (element, index) or (accumulator, element, index) */
const CALLBACK_METHODS = new Set(['map', 'forEach', 'filter', 'some', 'every', 'find', 'findIndex', 'findLast', 'findLastIndex', 'flatMap', 'reduce', 'reduceRight']);

/** the element type of an array or typed array, as text (null for anything else) */
/** the helpers `const f = c ? g : h` names, where `id` is `f` */
function chosenHelpers(id: ts.Identifier, checker: ts.TypeChecker, names: ReadonlySet<string>): string[] {
  const d = checker.getSymbolAtLocation(id)?.declarations?.[0];
  const init = d && ts.isVariableDeclaration(d) && d.initializer && skipParens(d.initializer);
  if (!init || !ts.isConditionalExpression(init)) return [];
  return [init.whenTrue, init.whenFalse].map(skipParens).filter((x): x is ts.Identifier => ts.isIdentifier(x) && names.has(x.text)).map((x) => x.text);
}

function elementTypeText(t: ts.Type, checker: ts.TypeChecker): string | null {
  if (checker.isArrayType(t)) return checker.typeToString(checker.getBaseTypeOfLiteralType(checker.getTypeArguments(t as ts.TypeReference)[0]));
  return /^(Float64|Float32|Int32|Int16|Int8|Uint32|Uint16|Uint8|Uint8Clamped)Array$/.test(t.symbol?.name ?? '') ? 'number' : null;
}

const skipParens = (e: ts.Expression): ts.Expression => (ts.isParenthesizedExpression(e) ? skipParens(e.expression) : e);

/** a function type whose result is not known yet: it types the argument's parameters in the next round */
const provisional = (t: string) => /=> any$/.test(t);

/**
 * The calls of parameter `j` of `helper` in its body (`f(x)` in `const integrate = function (f, a, b) {…}`),
 * and where it passes the parameter on to another helper (`rk4Step(f, t, y, h)`), that helper's calls of
 * it (`seen` stops a helper passing it back).
 */
function callsOfParam(sf: ts.SourceFile, helper: string, j: number, seen = new Set<string>()): ts.CallExpression[] {
  const key = `${helper}/${j}`;
  if (seen.has(key)) return [];
  seen.add(key);
  for (const st of sf.statements) {
    if (!ts.isVariableStatement(st)) continue;
    const d = st.declarationList.declarations[0];
    if (!d || !ts.isIdentifier(d.name) || d.name.text !== helper || !d.initializer) continue;
    const fn = skipParens(d.initializer);
    if (!ts.isFunctionExpression(fn) && !ts.isArrowFunction(fn)) return [];
    const p = fn.parameters[j];
    if (!p || !ts.isIdentifier(p.name)) return [];
    const name = p.name.text;
    const out: ts.CallExpression[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) {
        const callee = n.expression.text;
        if (callee === name) out.push(n);
        else
          n.arguments.forEach((a, k) => {
            const x = skipParens(a);
            if (ts.isIdentifier(x) && x.text === name) out.push(...callsOfParam(sf, callee, k, seen));
          });
      }
      n.forEachChild(visit);
    };
    visit(fn.body);
    return out;
  }
  return [];
}

/**
 * The type of a function passed to a helper: its parameters from the helper's first call of it, its
 * result as TypeScript infers it once those are known. Until then the result is `any` (provisional):
 * annotated so, the helper's parameter gives the function's parameters their types in the next round.
 */
function functionArgType(fn: ts.ArrowFunction | ts.FunctionExpression | ts.FunctionDeclaration, calls: ts.CallExpression[], checker: ts.TypeChecker, typeText: (e: ts.Expression) => string): string | null {
  const call = calls[0];
  if (!call) return null;
  const args = call.arguments.map(typeText);
  if (args.some(indefinite)) return null;
  const sig = checker.getSignaturesOfType(checker.getTypeAtLocation(fn), ts.SignatureKind.Call)[0];
  const ret = sig ? checker.typeToString(checker.getBaseTypeOfLiteralType(sig.getReturnType())) : 'any';
  return `(${args.map((t, i) => `a${i}: ${t}`).join(', ')}) => ${indefinite(ret) ? 'any' : ret}`;
}

/** the function an argument is: written there (`(t) => …`), or a local one named (`const g = (t) => …; h(g)`) */
function localFunction(e: ts.Expression, checker: ts.TypeChecker): ts.ArrowFunction | ts.FunctionExpression | ts.FunctionDeclaration | null {
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return e;
  if (!ts.isIdentifier(e)) return null;
  const d = checker.getSymbolAtLocation(e)?.valueDeclaration;
  if (d && ts.isFunctionDeclaration(d)) return d;
  const init = d && ts.isVariableDeclaration(d) && d.initializer ? skipParens(d.initializer) : null;
  return init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) ? init : null;
}
