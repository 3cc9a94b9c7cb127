// TypeScript → tsad IR. Parses and type-checks with the TypeScript compiler API over an in-memory host,
// then lowers the differentiable subset; everything else gets a located diagnostic that says what to write.
import ts from 'typescript';
import { timed } from '../ir/timing.js';
import type { BinOp, Expr, Func, GlobalConst, Loc, Module, Param, Stmt, Ty } from '../ir/types.js';
import { BOOL, INT, NUM, VOID, containsCall, exprEq, mapBodies, countedFor, directiveArgs, hasFloat, forEachStmt, elemTy, fieldTy, hasDirectiveIn, isRef, stmtExprs, tyOf, varsRead } from '../ir/util.js';
import { DiagnosticBag } from './diagnostics.js';
import { MATH_BINARY, MATH_CONSTS, MATH_FUNCS, MATH_INTEGRAL, MATH_NARY } from './math.js';
import { ARRAY_FORMS, type ArrayHost, arrayFromCopy, arrayMethod, arrOf, emptyLiteralType, fillLoop, indexRange, isArrayOfLength, keysCall, restArgument, spreadLiteral, untypedArrayDecl, untypedReadType } from './arrays.js';
import { LIB_FILE, LIB_SOURCE } from './lib.js';
import { DEFAULT_LIB, isStdLibPath, LIB_DIR, requireStdLib, STD_LIBS, stdLibSourceFile, stdLibText } from './stdlib.js';
import { checkTreeDepth } from './limits.js';
import { keepParsed, parseAgain } from './reparse.js';
import { userTypeErrors } from './type-errors.js';
import { forInProblem, mayResize } from './for-in.js';
import { assignedOnceLater, checkDefiniteAssignment, collectVarBindings, hoistedType, isNeverAssigned, isAssignedIn, isVarList, type VarBinding } from './var-scope.js';
import { bodyDefaults, type BodyDefault } from './param-defaults.js';
import { assertsPresent, isOptionalParam } from './jsdoc.js';
import { isSplitResult, isSplittable, refuseUnnamedResults, resultPair, returnPairs, splitNullableLocals, type SplitHost } from './nullable-locals.js';
import { NULL, assignsNullable, inTest, present, isArrayTest, isPlainRead, narrowRead, nestedNullable, nullableUnion, mayBePastEnd, pastEndBinding, pastEndFallback, pastEndTest, shortCircuit, truthy, typeofTest, type NullableHost } from './nullable.js';
import { DestructuringAssignment, notAField, patternField, patternParamName, refuseActiveDefault, withDefault, type DestructuringHost } from './destructuring.js';
import { Sequencing, isConstant, isEffectNode, type SequencingHost } from './sequencing.js';
import { helperArgs, type LiteralField, mathApplyCall, mathSpreadCall, objectSpreadFields, type SpreadHost } from './spread.js';
import { CUSTOM_FORMS, isBlackBoxDeclaration } from './custom-derivatives.js';
import { isChainEnd, optionalChain, type OptionalChainHost } from './optional-chains.js';
import { CALLBACK_FORMS, Callbacks, isCallbackCall, type CallbackHost } from './callbacks.js';
import { REST_FORMS, objectRest, restElement, type RestHost } from './rest-elements.js';
import { TYPED_FORMS, isTypedCtor, newTypedArray, newTypedArrayFill, typedArrayTy, type TypedArrayHost } from './typed-arrays.js';
import { CLOSURE_FORMS, Closures, isFixedBinding, onlyMadeInto, takesFunctions, type ClosureHost, type Specialisation } from './closures.js';
import { collectNamespace, isNamespaceObject, namespaceCall, namespaceUse, type NamespaceHost } from './namespaces.js';
import { accessorRead, accessorUpdate, accessorWrite, classFields, collectClass, constructorBody, inheritedParams, isClassInstance, methodCall, newInstance, type ClassHost, type ClassMember } from './classes.js';

/**
 * The statement and expression forms this lowering accepts, named as they appear in the IR it produces
 * (for-of, `Array.from` and `fill` come out as `stmt.for`; destructuring as one `decl` per name).
 * test/fuzz/coverage.ts classifies lowered programs by these ids, and the random-program suite must
 * produce every one: a form added to the lowering is added here.
 */
export const FORMS = [
  'decl', // `let`/`const` with an initializer (and a `var` lowered in place, as the `let` it cannot be told from)
  'decl.var', // a `var` binding hoisted to the top of its function (var-scope.ts), assigned where declared
  'nullable.split', // a nullable number assigned again (`let best: number | null = null`): a number and a flag (nullable-locals.ts), counted by the flag's statements
  'param.bodydefault', // a parameter's default assigned at the top of the body (`opts = opts || {}`, `if (y === undefined) y = 2`): a local (param-defaults.ts)
  'nullable.result', // a helper's `number[] | null` result named (`const x = solve(A, b)`): its pair `[array, isSet]` taken apart (nullable-locals.ts)
  'assign.var', // `x = e`, `x op= e`, `x++` on a variable (of any type: rebinding an array or object too)
  'assign.elem', // a number stored into an array or tuple element: `a[i] = e`, `m[i][j] = e`, `o.f[i] = e`
  'assign.field', // a number stored into an object field: `o.f = e`, `ps[i].f = e`
  'assign.row', // a reference stored into a slot: `m[i] = r`, `o.f = r` (row stores, row swaps)
  'intr.push', // `a.push(e)`
  'intr.pop', // `a.pop()`, as a statement or for its value (which is read before it)
  'assign.length', // `a.length = n`: a loop of pops (growing the array throws)
  'stmt.if',
  'stmt.for', // counted `for`, `for…of`, `for…in` over an array, and the loops `Array.from`/`fill` lower to
  'stmt.while',
  'stmt.do',
  'stmt.switch',
  'stmt.block', // a labelled block
  'stmt.break', // `break`, `break label`
  'stmt.continue', // `continue`, `continue label`
  'stmt.return',
  'expr.cond', // `c ? a : b`
  'expr.condref', // `c ? { u: a } : { u: b }`, `c ? [x, x] : [-x]`: a conditional between arrays or objects (the taken branch's literal gets the adjoint)
  'call.helper', // a call of a function of the compilation
  'expr.arrlit', // `[a, b]`, `[[…], […]]`, tuple literals
  'expr.objlit', // `{ u: a, v: b }`
  'expr.alloc', // `new Float64Array(n)`, `new Array(n).fill(v)`, `Array.from` storage
  'expr.copy', // `a.slice()`, `Float64Array.from(a)`, `new Float64Array(a)`
  ...TYPED_FORMS, // Float32Array and the integer typed arrays (src/frontend/typed-arrays.ts)
  ...REST_FORMS, // `const [a, ...rest] = xs` (src/frontend/rest-elements.ts)
  ...ARRAY_FORMS, // arrays as JavaScript writes them (src/frontend/arrays.ts), counted by their statements' `origin`
  ...CALLBACK_FORMS, // array methods with callbacks, lowered to loops (src/frontend/callbacks.ts), counted by their loops' `origin`
  'expr.short', // `a ?? b`, `a || b`, `a && b` on numbers (a conditional; src/frontend/nullable.ts)
  'expr.typetest', // `typeof x === 'number'`, `'f' in o`, `Array.isArray(x)` on nullable values
  'expr.truthtest', // a number, nullable value or object as an operand of `&&`/`||` in a test: `if (opts && opts.k > 0)`
  'param.optional', // `y?: number` (nullable), `y = 0.5` (a default)
  'param.optbool', // an optional boolean: a parameter `on?: boolean`, or an object parameter's field `{ on?: boolean }`
  'class.new', // `new C(…)`: a call of the constructor `C_new` (src/frontend/classes.ts)
  'class.method', // `o.m(…)`, `C.s(…)`, `o.x` through a getter, `o.x = v` through a setter: calls of `C_m`, `C_s`, `C_get_x`, `C_set_x`
  ...CUSTOM_FORMS, // calls of functions with hand-written derivatives or marked passive (src/frontend/custom-derivatives.ts)
  ...CLOSURE_FORMS, // local functions inlined at their calls, helpers specialised per function passed (src/frontend/closures.ts)
] as const;
export type Form = (typeof FORMS)[number];

/** a literal a call can be given in place of a left-out argument: a number, string, boolean, or an object or array literal of those (`{}` for an options object) */
function isLiteralValue(e: ts.Expression): boolean {
  e = skipParens(e);
  if (ts.isNumericLiteral(e) || ts.isStringLiteral(e) || e.kind === ts.SyntaxKind.TrueKeyword || e.kind === ts.SyntaxKind.FalseKeyword) return true;
  if (ts.isPrefixUnaryExpression(e) && ts.isNumericLiteral(e.operand)) return true;
  if (ts.isArrayLiteralExpression(e)) return e.elements.every((x) => !ts.isSpreadElement(x) && isLiteralValue(x));
  if (ts.isObjectLiteralExpression(e)) return e.properties.every((q) => ts.isPropertyAssignment(q) && (ts.isIdentifier(q.name) || ts.isStringLiteral(q.name)) && isLiteralValue(q.initializer));
  return false;
}

/** a callback's block that ends in a `return` of a value and returns nowhere else */
function endsInOnlyReturn(b: ts.Block): boolean {
  const last = b.statements[b.statements.length - 1];
  if (!last || !ts.isReturnStatement(last) || !last.expression) return false;
  const other = (n: ts.Node): boolean => n !== last && !ts.isFunctionLike(n) && (ts.isReturnStatement(n) || !!n.forEachChild(other));
  return !b.statements.slice(0, -1).some(other);
}

/** does a branch of `c ? a : b`, `o ?? b`, `a || b` or `a && b` call an array method with a callback (outside nested functions)? */
function branchHasCallback(x: ts.ConditionalExpression | ts.BinaryExpression): boolean {
  return branchHas(x, (n) => ts.isCallExpression(n) && isCallbackCall(n));
}

/** does a branch hold an assignment, an increment or a `pop()` (`… && ++iter < 50`)? */
function branchHasEffect(x: ts.ConditionalExpression | ts.BinaryExpression): boolean {
  return branchHas(x, isEffectNode);
}

function branchHas(x: ts.ConditionalExpression | ts.BinaryExpression, test: (n: ts.Node) => boolean): boolean {
  const has = (n: ts.Node): boolean => !ts.isFunctionLike(n) && (test(n) || !!n.forEachChild(has));
  return ts.isConditionalExpression(x) ? has(x.whenTrue) || has(x.whenFalse) : has(x.right);
}

/**
 * The name an aliased object type is printed under: the alias's (`Opts`), with its type arguments' for
 * an instance of a generic one (`Partial<Opts>` is `PartialOpts`: the name `Partial` alone would shadow
 * TypeScript's own); null (printed as its literal) where an argument has no name.
 */
function aliasName(t: ts.Type): string | null {
  const args = t.aliasTypeArguments ?? [];
  const names = args.map((a) => a.aliasSymbol?.name ?? (a.symbol && a.symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.Class) ? a.symbol.name : null));
  return names.every((n) => n !== null) ? t.aliasSymbol!.name + names.join('') : null;
}

let libSourceFile: ts.SourceFile | undefined;

/** values an element or field read cannot read in place: a literal, a copy or an allocation made for the read */
const FRESH_KINDS: ReadonlySet<Expr['k']> = new Set(['arrlit', 'objlit', 'intr', 'alloc']);
const OPTIONS: ts.CompilerOptions = {
  strict: true,
  target: ts.ScriptTarget.ES2020,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  noEmit: true,
  types: [],
  allowImportingTsExtensions: true,
  // the standard library's own declarations are not the user's code: checking them costs a second per compilation
  skipLibCheck: true,
};

/** '.' and 'a/..' resolved; leading '..' kept (they climb above the path's start) */
function normalizeSegments(parts: string[]): string[] {
  const out: string[] = [];
  for (const p of parts) {
    if (p === '' || p === '.') continue;
    if (p === '..' && out.length && out[out.length - 1] !== '..') out.pop();
    else out.push(p);
  }
  return out;
}

/**
 * Paths inside the in-memory host, by file name as given. Relative names resolve against a virtual working
 * directory deep enough for their leading `../` (so `../m.ts` is a file of its own, and imports between
 * the files resolve as they do on disk); a `.js` file is read as TypeScript under a `.ts` name (so that
 * `import … from './m.js'` finds it, as it finds m.ts).
 */
export function hostPaths(names: Iterable<string>, keepJs: (name: string) => boolean = () => false): Map<string, string> {
  const list = [...names].map((n) => ({ n, parts: n.replace(/\\/g, '/').split('/'), abs: n.replace(/\\/g, '/').startsWith('/') }));
  let depth = 0;
  for (const f of list) if (!f.abs) depth = Math.max(depth, normalizeSegments(f.parts).findIndex((p) => p !== '..'));
  const cwd = Array.from({ length: depth }, (_, i) => `up${i}`);
  const resolved = list.map((f) => ({ n: f.n, path: '/' + normalizeSegments(f.abs ? f.parts : [...cwd, ...f.parts]).filter((p) => p !== '..').join('/') }));
  // TypeScript files first, so that a .js file never takes the name of one given alongside
  const taken = new Set(resolved.filter((f) => !f.path.endsWith('.js') || keepJs(f.n)).map((f) => f.path));
  const out = new Map<string, string>();
  for (const { n, path } of resolved) {
    let p = path;
    if (p.endsWith('.js') && !keepJs(n)) {
      p = taken.has(p.replace(/\.js$/, '.ts')) ? p + '.ts' : p.replace(/\.js$/, '.ts');
      taken.add(p);
    }
    out.set(n, p);
  }
  return out;
}

/**
 * The checker with each node's symbol resolved once: the lowering asks for the symbol of a name it reads
 * several times (is it an inlined body's parameter, a local function, a variable, a refused
 * declaration?), and TypeScript resolves the name through its scopes again on every call. The answer
 * is a fact of the program, which does not change while it is lowered.
 */
function resolvingOnce(checker: ts.TypeChecker): ts.TypeChecker {
  const symbols = new Map<ts.Node, ts.Symbol | undefined>();
  const cached: ts.TypeChecker = Object.create(checker);
  cached.getSymbolAtLocation = (node) => {
    if (symbols.has(node)) return symbols.get(node);
    const sym = checker.getSymbolAtLocation(node);
    symbols.set(node, sym);
    return sym;
  };
  return cached;
}

/**
 * JavaScript whose types are in JSDoc comments (`@param {number[]} x`, `@type`, `@returns`) and nowhere
 * else: no TypeScript syntax (annotations, `as`, interfaces, type parameters), which a `.js` file may
 * also hold, tsad reading it as TypeScript then.
 */
export function isJsdocTyped(text: string): boolean {
  if (!/@(param|type|returns?|typedef)\s*\{/.test(text)) return false;
  const sf = ts.createSourceFile('probe.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  let typed = false;
  const visit = (n: ts.Node): void => {
    if (typed) return;
    const withType = n as ts.Node & { type?: ts.Node; typeParameters?: ts.NodeArray<ts.Node> };
    // (forEachChild does not enter JSDoc comments: a type met here is TypeScript syntax)
    if (withType.type || withType.typeParameters?.length) typed = true;
    else if (ts.isAsExpression(n) || ts.isSatisfiesExpression(n) || ts.isNonNullExpression(n) || ts.isInterfaceDeclaration(n) || ts.isTypeAliasDeclaration(n) || ts.isEnumDeclaration(n)) typed = true;
    else n.forEachChild(visit);
  };
  visit(sf);
  return !typed;
}

/** the host paths each program was made with, for lowerProgram's file names */
const programPaths = new WeakMap<ts.Program, Map<string, string>>();

/**
 * A program of the user's files and the standard library. With `reparse`, the user's files are parsed
 * incrementally from those of the last program handed to keepProgramParses (reparse.ts); only the
 * front end's lowering asks for it, with the default options.
 */
export function createProgram(files: Map<string, string>, extra: ts.CompilerOptions = {}, reparse = false): ts.Program {
  requireStdLib();
  // (JavaScript typed by JSDoc comments is checked as JavaScript, as tsc's checkJs does: the comments' types hold)
  const jsdocTyped = new Set([...files].filter(([n, text]) => n.endsWith('.js') && isJsdocTyped(text)).map(([n]) => n));
  const paths = hostPaths(files.keys(), (n) => jsdocTyped.has(n));
  if (jsdocTyped.size) extra = { allowJs: true, checkJs: true, ...extra };
  const byPath = new Map<string, string>();
  for (const [name, text] of files) byPath.set(paths.get(name)!, text);
  const cache = new Map<string, ts.SourceFile>();
  const host: ts.CompilerHost = {
    getSourceFile(fileName, lang) {
      if (fileName === LIB_FILE) {
        libSourceFile ??= ts.createSourceFile(LIB_FILE, LIB_SOURCE, lang, true);
        return libSourceFile;
      }
      if (isStdLibPath(fileName)) return stdLibSourceFile(fileName, lang);
      const text = byPath.get(fileName);
      if (text === undefined) return undefined;
      let sf = cache.get(fileName);
      if (!sf) {
        sf = reparse ? parseAgain(fileName, text, lang) : ts.createSourceFile(fileName, text, lang, true);
        cache.set(fileName, sf);
      }
      return sf;
    },
    getDefaultLibFileName: () => DEFAULT_LIB,
    getDefaultLibLocation: () => LIB_DIR,
    writeFile: () => {},
    getCurrentDirectory: () => '/',
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (f) => f === LIB_FILE || byPath.has(f) || (isStdLibPath(f) && stdLibText(f) !== undefined),
    readFile: (f) => (f === LIB_FILE ? LIB_SOURCE : isStdLibPath(f) ? stdLibText(f) : byPath.get(f)),
    directoryExists: () => true,
    getDirectories: () => [],
    // as tsc parses: JSDoc in TypeScript files only where it can matter to an error (`@see`, `@link`);
    // tsad reads none, and the standard library's files are mostly JSDoc
    jsDocParsingMode: ts.JSDocParsingMode.ParseForTypeErrors,
  };
  // tsad's additions come after the standard library and before the user's files
  const program = ts.createProgram({ rootNames: [LIB_FILE, ...byPath.keys()], options: { ...OPTIONS, lib: STD_LIBS, ...extra }, host });
  programPaths.set(program, paths);
  return program;
}

/** Keeps the user's parsed files of a program made with `reparse`, once done with it, for the next such program. */
export function keepProgramParses(program: ts.Program): void {
  const paths = programPaths.get(program);
  if (!paths) return;
  keepParsed([...paths.values()].map((p) => program.getSourceFile(p)).filter((sf): sf is ts.SourceFile => sf !== undefined));
}

const NUMBER_CONSTS = new Set([
  'EPSILON', 'MAX_SAFE_INTEGER', 'MAX_VALUE', 'MIN_SAFE_INTEGER', 'MIN_VALUE', 'NaN', 'NEGATIVE_INFINITY',
  'POSITIVE_INFINITY',
]);
const NONDETERMINISTIC = new Set(['Math.random', 'Date.now', 'performance.now', 'crypto.getRandomValues']);

const BIN_OPS: Partial<Record<ts.SyntaxKind, BinOp>> = {
  [ts.SyntaxKind.PlusToken]: '+',
  [ts.SyntaxKind.MinusToken]: '-',
  [ts.SyntaxKind.AsteriskToken]: '*',
  [ts.SyntaxKind.SlashToken]: '/',
  [ts.SyntaxKind.PercentToken]: '%',
  [ts.SyntaxKind.AsteriskAsteriskToken]: '**',
  [ts.SyntaxKind.LessThanToken]: '<',
  [ts.SyntaxKind.LessThanEqualsToken]: '<=',
  [ts.SyntaxKind.GreaterThanToken]: '>',
  [ts.SyntaxKind.GreaterThanEqualsToken]: '>=',
  [ts.SyntaxKind.EqualsEqualsEqualsToken]: '===',
  [ts.SyntaxKind.ExclamationEqualsEqualsToken]: '!==',
  [ts.SyntaxKind.EqualsEqualsToken]: '==',
  [ts.SyntaxKind.ExclamationEqualsToken]: '!=',
  [ts.SyntaxKind.AmpersandAmpersandToken]: '&&',
  [ts.SyntaxKind.BarBarToken]: '||',
  [ts.SyntaxKind.BarToken]: '|',
  [ts.SyntaxKind.AmpersandToken]: '&',
  [ts.SyntaxKind.CaretToken]: '^',
  [ts.SyntaxKind.LessThanLessThanToken]: '<<',
  [ts.SyntaxKind.GreaterThanGreaterThanToken]: '>>',
  [ts.SyntaxKind.GreaterThanGreaterThanGreaterThanToken]: '>>>',
};
const COMPOUND_OPS: Partial<Record<ts.SyntaxKind, BinOp>> = {
  [ts.SyntaxKind.PlusEqualsToken]: '+',
  [ts.SyntaxKind.MinusEqualsToken]: '-',
  [ts.SyntaxKind.AsteriskEqualsToken]: '*',
  [ts.SyntaxKind.SlashEqualsToken]: '/',
  [ts.SyntaxKind.AsteriskAsteriskEqualsToken]: '**',
  [ts.SyntaxKind.PercentEqualsToken]: '%',
  [ts.SyntaxKind.BarEqualsToken]: '|',
  // (on integers, as their binary operators: `m &= 7` is `m = m & 7`)
  [ts.SyntaxKind.AmpersandEqualsToken]: '&',
  [ts.SyntaxKind.CaretEqualsToken]: '^',
  [ts.SyntaxKind.LessThanLessThanEqualsToken]: '<<',
  [ts.SyntaxKind.GreaterThanGreaterThanEqualsToken]: '>>',
  [ts.SyntaxKind.GreaterThanGreaterThanGreaterThanEqualsToken]: '>>>',
};
const COMPARISONS = new Set<BinOp>(['<', '<=', '>', '>=', '===', '!==', '==', '!=']);
const BITWISE = new Set<BinOp>(['|', '&', '^', '<<', '>>', '>>>']);

interface FuncDecl {
  name: string;
  /** a class without a constructor stands for its implicit one */
  node: ts.FunctionDeclaration | ts.ArrowFunction | ts.FunctionExpression | ts.MethodDeclaration | ts.AccessorDeclaration | ts.ConstructorDeclaration | ts.ClassDeclaration;
  exported: boolean;
  stmt: ts.Statement;
  /** a function lowered from a class member (src/frontend/classes.ts) */
  member?: ClassMember;
  /** `declare function f(…): T;`, a black box (src/frontend/custom-derivatives.ts) */
  external?: boolean;
}

const CALLBACK_METHODS = new Set(['map', 'forEach', 'reduce', 'reduceRight', 'filter', 'some', 'every', 'find', 'findIndex', 'findLast', 'findLastIndex', 'flatMap']);

const isMathCall = (n: ts.CallExpression) => ts.isPropertyAccessExpression(n.expression) && ts.isIdentifier(n.expression.expression) && n.expression.expression.text === 'Math';

/** whether evaluating an expression may call a function (other than Math's) or assign a variable */
function hasCallOrEffect(n: ts.Node): boolean {
  if ((ts.isCallExpression(n) && !isMathCall(n)) || ts.isNewExpression(n) || isEffectNode(n)) return true;
  if (ts.isFunctionLike(n)) return false;
  return !!ts.forEachChild(n, (c) => hasCallOrEffect(c) || undefined);
}

/** the parameters a declaration's callers pass (an implicit constructor takes its base class's) */
function paramsOf(d: FuncDecl, checker: ts.TypeChecker): readonly ts.ParameterDeclaration[] {
  return ts.isClassDeclaration(d.node) ? inheritedParams(checker, d.node) : d.node.parameters;
}

/**
 * What lowering each function did to the module beyond its own result, for the front end's reuse of
 * unchanged functions after an edit (src/frontend/incremental.ts).
 */
export interface LoweringTrace {
  /** the named types first registered while lowering the module constants, in order */
  globalTypes: string[];
  /** by function: the named types it first registered, in order, and whether it asked for a helper's specialised copy */
  funcs: Map<string, { types: string[]; specialised: boolean }>;
}

export interface LowerOptions {
  /** lower only this function (the others are left out of the module); the caller has type-checked it */
  only?: string;
  /** filled in as the functions are lowered */
  trace?: LoweringTrace;
}

/** Lowers the whole compilation. Diagnostics go to `diags`; the module holds what lowered cleanly. */
export function lowerProgram(program: ts.Program, userFiles: Set<string>, diags: DiagnosticBag, sources: Map<string, string> = new Map(), options: LowerOptions = {}): Module {
  const checker = resolvingOnce(program.getTypeChecker());
  const { only, trace } = options;
  const mod: Module = { funcs: new Map(), globals: new Map(), order: [], types: new Map(), failed: new Map() };
  const funcByDecl = new Map<ts.Node, string>();
  const globalByDecl = new Map<ts.Node, string>();
  const decls: FuncDecl[] = [];
  const globalDecls: { name: string; node: ts.VariableDeclaration }[] = [];

  const locOf = (node: ts.Node): Loc => {
    const sf = node.getSourceFile();
    const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    return { file: displayName(sf.fileName), line: line + 1, col: character + 1 };
  };
  const displayName = (f: string) => fileDisplay.get(f) ?? f;
  const fileDisplay = new Map<string, string>();
  const paths = programPaths.get(program) ?? hostPaths(userFiles);
  for (const f of userFiles) fileDisplay.set(paths.get(f) ?? hostPaths([f]).get(f)!, f);

  // operator chains deeper than the recursive passes can take are rejected before type checking
  for (const sf of program.getSourceFiles()) if (fileDisplay.has(sf.fileName)) checkTreeDepth(sf, displayName(sf.fileName), diags);
  if (diags.hasErrors) return mod;
  // errors tsc reports without --strict; strict-only ones the lowering does not catch by itself are held
  // back to the function they are in, and reported there only if its lowering finds nothing (type-errors.ts)
  const reportTsError = (bag: DiagnosticBag, d: ts.Diagnostic, strictOnly: boolean) => {
    const { line, character } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    bag.error(
      { file: displayName(d.file!.fileName), line: line + 1, col: character + 1 },
      strictOnly ? `${text} (tsad differentiates numbers: a value that may be undefined or null cannot flow here)` : text,
      strictOnly ? 'give it a number on every path (initialise it, or test it and assign a default), or declare the type that it really has' : hintForTsError(d.code, displayName(d.file!.fileName), text),
    );
  };
  const strictOnly: ts.Diagnostic[] = [];
  // in a JSDoc-typed .js file (JavaScript, which no one type-checks before tsad does), errors inside a
  // function's body are that function's: reported if the head reaches it (a file of numeric functions
  // is not refused for one the head does not call); TypeScript must type-check as a whole, as tsc asks
  const inBody: ts.Diagnostic[] = [];
  const typeErrors = only !== undefined ? [] : timed('check', () => userTypeErrors(program, (d) => !!d.file && d.file.fileName !== LIB_FILE));
  for (const { d, strictOnly: so } of typeErrors) {
    if (so) strictOnly.push(d);
    else if (d.file?.fileName.endsWith('.js') && inFunctionBody(d)) inBody.push(d);
    else reportTsError(diags, d, false);
  }
  const within = (d: ts.Diagnostic, n: ts.Node) => d.file === n.getSourceFile() && (d.start ?? 0) >= n.pos && (d.start ?? 0) < n.end;
  if (diags.hasErrors) return mod;

  // a function rejected while collecting declarations is an error only if the head reaches it
  const failLater = (name: string, node: ts.Node, message: string, hint: string) => {
    const own = new DiagnosticBag(sources);
    own.error(locOf(node), message, hint);
    mod.failed.set(name, { diagnostics: own.list, calls: [] });
  };

  const userSourceFiles = () => program.getSourceFiles().filter((sf) => fileDisplay.has(sf.fileName));
  // ---- collect top-level declarations ----
  for (const sf of program.getSourceFiles()) {
    if (sf.fileName === LIB_FILE || !fileDisplay.has(sf.fileName)) continue;
    const exportedNames = new Set<string>();
    for (const st of sf.statements) {
      if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause) && !st.moduleSpecifier) {
        for (const el of st.exportClause.elements) exportedNames.add((el.propertyName ?? el.name).text);
      }
    }
    for (const st of sf.statements) {
      const exported = !!ts.getModifiers(st as ts.HasModifiers)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
      if (ts.isFunctionDeclaration(st)) {
        if (st.name && isBlackBoxDeclaration(st)) {
          decls.push({ name: st.name.text, node: st, exported: exported || exportedNames.has(st.name.text), stmt: st, external: true });
          continue;
        }
        if (!st.name || !st.body) {
          diags.error(locOf(st), 'function declarations need a name and a body', 'write `function name(…) { … }`');
          continue;
        }
        if (st.asteriskToken || st.modifiers?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword)) {
          failLater(st.name.text, st, 'generators and async functions are not differentiable', 'write a plain synchronous function');
          continue;
        }
        decls.push({ name: st.name.text, node: st, exported: exported || exportedNames.has(st.name.text), stmt: st });
      } else if (ts.isVariableStatement(st)) {
        const isConst = (st.declarationList.flags & ts.NodeFlags.Const) !== 0;
        for (const d of st.declarationList.declarations) {
          if (!ts.isIdentifier(d.name)) {
            diags.error(locOf(d), 'module-level destructuring is not supported', 'declare each constant separately');
            continue;
          }
          const init = d.initializer && skipParens(d.initializer);
          if (isNamespaceObject(init)) {
            // an object of functions is a namespace: its members are functions (src/frontend/namespaces.ts)
            for (const f of collectNamespace(d.name.text, d, isConst, (n, msg, hint) => diags.error(locOf(n), msg, hint))) decls.push({ ...f, exported: exported || exportedNames.has(d.name.text), stmt: st });
          } else if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init))) {
            if (!isConst) {
              failLater(d.name.text, d, 'a function held in a `let`/`var` cannot be differentiated', 'declare it with `const`');
              continue;
            }
            decls.push({ name: d.name.text, node: init, exported: exported || exportedNames.has(d.name.text), stmt: st });
          } else if (!isConst && !(isVarList(st.declarationList) && isNeverAssigned(d, userSourceFiles(), checker))) {
            diags.error(locOf(d), 'module-level mutable state (`let`/`var`) is not supported', 'use `const` data (a `var` never assigned after its declaration is read as one), or pass the value as a parameter');
          } else if (!init && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword)) {
            globalDecls.push({ name: d.name.text, node: d }); // data bound at run time, passive
          } else if (!init) {
            diags.error(locOf(d), 'a module-level constant needs an initializer');
          } else {
            globalDecls.push({ name: d.name.text, node: d });
          }
        }
      } else if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) {
        // converted on use
      } else if (ts.isImportDeclaration(st) || ts.isExportDeclaration(st) || ts.isEmptyStatement(st)) {
        // imports resolve through the checker
      } else if (ts.isClassDeclaration(st)) {
        for (const c of collectClass(st, (n, msg, hint) => diags.error(locOf(n), msg, hint))) decls.push({ ...c, exported: exported || exportedNames.has(c.member.className), stmt: st });
      } else if (ts.isEnumDeclaration(st)) {
        diags.error(locOf(st), 'enums are not supported', 'use a string-literal union type as a flag');
      } else {
        diags.error(locOf(st), `top-level ${ts.SyntaxKind[st.kind]} is not supported`, 'a module may hold functions, constants, imports and types');
      }
    }
  }
  const seen = new Map<string, FuncDecl>();
  for (const d of decls) {
    const prev = seen.get(d.name);
    if (prev) {
      diags.error(locOf(d.node), `function name '${d.name}' is declared twice in the compilation`, 'tsad needs unique function names across the files of one compilation; rename one');
      continue;
    }
    seen.set(d.name, d);
    funcByDecl.set(d.node, d.name);
    if (ts.isArrowFunction(d.node) || ts.isFunctionExpression(d.node)) funcByDecl.set(d.node.parent, d.name);
    if (d.member?.kind === 'ctor') funcByDecl.set(d.member.cls, d.name); // `new C` finds its constructor by the class
  }
  for (const g of globalDecls) globalByDecl.set(g.node, g.name);
  // a constructor owns its class's field declarations (a field it leaves unassigned is its problem)
  const owns = (d: ts.Diagnostic, f: FuncDecl) => within(d, f.node) || (f.member?.kind === 'ctor' && f.member.cls.members.some((m) => ts.isPropertyDeclaration(m) && within(d, m)));
  for (const d of strictOnly) if (![...seen.values()].some((f) => owns(d, f))) reportTsError(diags, d, true);
  const bodyOf = (f: FuncDecl) => (f.node as ts.FunctionLikeDeclaration).body;
  const ownsInBody = (d: ts.Diagnostic, f: FuncDecl) => !!bodyOf(f) && within(d, bodyOf(f)!);
  for (const d of inBody) if (![...seen.values()].some((f) => ownsInBody(d, f))) reportTsError(diags, d, false);

  // ---- types ----
  const tyCache = new Map<ts.Type, Ty | null>();
  function convertType(t: ts.Type, at: ts.Node): Ty | null {
    if (tyCache.has(t)) return tyCache.get(t)!;
    tyCache.set(t, null); // recursion guard
    const r = convertTypeUncached(t, at);
    tyCache.set(t, r);
    return r;
  }
  function convertTypeUncached(t: ts.Type, at: ts.Node): Ty | null {
    const f = t.flags;
    // `this` as a type (a fluent method's `return this`): the class it stands for
    if (f & ts.TypeFlags.TypeParameter && (t as ts.TypeParameter & { isThisType?: boolean }).isThisType) {
      const c = checker.getBaseConstraintOfType(t);
      return c && c !== t ? convertType(c, at) : null;
    }
    if (f & (ts.TypeFlags.Number | ts.TypeFlags.NumberLiteral)) return NUM;
    if (f & (ts.TypeFlags.Boolean | ts.TypeFlags.BooleanLiteral)) return BOOL;
    if (f & (ts.TypeFlags.Void | ts.TypeFlags.Undefined)) return VOID;
    if (f & ts.TypeFlags.StringLiteral) return { k: 'str', lits: [(t as ts.StringLiteralType).value] };
    if (f & ts.TypeFlags.String) return { k: 'str', lits: [] };
    if (t.isUnion()) {
      const parts = t.types;
      if (parts.every((p) => p.flags & ts.TypeFlags.StringLiteral))
        return { k: 'str', lits: parts.map((p) => (p as ts.StringLiteralType).value).sort() };
      if (parts.every((p) => p.flags & ts.TypeFlags.BooleanLiteral)) return BOOL;
      if (parts.every((p) => p.flags & ts.TypeFlags.NumberLiteral)) return NUM;
      return nullableUnion(parts, (p) => convertType(p, at)) ?? null;
    }
    // `Opts & Partial<Opts>` (what `Object.assign({}, DEFAULTS, options)` returns): one object of the
    // merged fields, each of the type the intersection gives it
    if (t.isIntersection() && t.types.every((p) => p.flags & ts.TypeFlags.Object && !checker.isArrayType(p) && !checker.isTupleType(p) && !p.getCallSignatures().length)) {
      const fields = [];
      for (const p of checker.getPropertiesOfType(t)) {
        const pt = convertType(checker.getTypeOfSymbolAtLocation(p, at), at);
        if (!pt || (pt.k === 'opt' && nestedNullable(pt))) return null;
        fields.push(pt.k === 'opt' && p.flags & ts.SymbolFlags.Optional ? { name: p.name, ty: pt, optional: true } : { name: p.name, ty: pt });
      }
      return { k: 'obj', name: null, fields };
    }
    if (checker.isTupleType(t)) {
      const args = checker.getTypeArguments(t as ts.TypeReference);
      const elems = args.map((a) => convertType(a, at));
      if (elems.some((e) => !e || e.k === 'opt')) return null;
      const ro = !!((t as ts.TypeReference).target as ts.TupleType).readonly;
      return { k: 'tuple', elems: elems as Ty[], ro };
    }
    if (checker.isArrayType(t)) {
      const a = checker.getTypeArguments(t as ts.TypeReference)[0];
      const elem = a && convertType(a, at);
      if (!elem || elem.k === 'opt') return null;
      const ro = t.symbol?.name === 'ReadonlyArray';
      return { k: 'arr', elem, typed: false, ro };
    }
    const symName = t.symbol?.name;
    const typedArr = typedArrayTy(symName);
    if (typedArr) return typedArr;
    if (symName === 'Tape' && t.symbol.declarations?.some((d) => d.getSourceFile().fileName === LIB_FILE)) return { k: 'tape' };
    if (isClassInstance(t)) {
      // an instance is an object of the class's data fields (src/frontend/classes.ts)
      const fields = classFields(checker, t, at, convertType, nestedNullable);
      if (!fields) return null;
      const ty: Ty = { k: 'obj', name: symName, fields };
      mod.types.set(symName, ty);
      return ty;
    }
    // an interface of JavaScript's standard library (`ArrayLike`, a literal's type in `t.set([…])`) is not data tsad differentiates
    if (t.symbol?.flags & ts.SymbolFlags.Interface && t.symbol.declarations?.every((d) => isStdLibPath(d.getSourceFile().fileName))) return null;
    // an object rest's type (`const { a, ...rest } = o`) is anonymous, under the variable's own symbol
    const restType = !!(f & ts.TypeFlags.Object && (t as ts.ObjectType).objectFlags & ts.ObjectFlags.Anonymous && t.symbol?.flags & ts.SymbolFlags.Variable);
    if (f & ts.TypeFlags.Object && (restType || symName === '__type' || symName === '__object' || t.symbol?.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeLiteral | ts.SymbolFlags.ObjectLiteral))) {
      if (checker.getSignaturesOfType(t, ts.SignatureKind.Call).length || checker.getSignaturesOfType(t, ts.SignatureKind.Construct).length) return null;
      const fields = [];
      for (const p of checker.getPropertiesOfType(t)) {
        const pt = convertType(checker.getTypeOfSymbolAtLocation(p, at), at);
        if (!pt || (pt.k === 'opt' && nestedNullable(pt))) return null;
        fields.push(pt.k === 'opt' && p.flags & ts.SymbolFlags.Optional ? { name: p.name, ty: pt, optional: true } : { name: p.name, ty: pt });
      }
      const name = t.aliasSymbol ? aliasName(t) : t.symbol?.flags & ts.SymbolFlags.Interface ? symName : null;
      const ty: Ty = { k: 'obj', name, fields };
      if (name) mod.types.set(name, ty);
      return ty;
    }
    return null;
  }
  function typeAt(node: ts.Node): Ty | null {
    return convertType(checker.getTypeAtLocation(node), node);
  }

  const ctx: Ctx = { checker, diags, locOf, typeAt, convert: convertType, funcByDecl, globalByDecl, mod, funcDecls: seen, globalNames: new Set(globalByDecl.values()), classes: [...new Set([...seen.values()].flatMap((d) => (d.member ? [d.member.cls] : [])))], specialise: () => null };
  // copies of helpers specialised per function passed to them (src/frontend/closures.ts), by key; a
  // name is taken before the copy is lowered (a recursive helper calls its own copy)
  const specs = new Map<string, string>();
  const specFailed = new WeakMap<DiagnosticBag, Set<string>>();
  let specialised = false;
  ctx.specialise = (callerCtx, helper, label, key, spec) => {
    specialised = true;
    const done = specs.get(key);
    if (done) return done;
    const failedHere = specFailed.get(callerCtx.diags) ?? new Set<string>();
    specFailed.set(callerCtx.diags, failedHere);
    if (failedHere.has(key)) return null; // reported once for the function being lowered
    let name = `${helper}__${label}`;
    for (let i = 2; seen.has(name) || mod.funcs.has(name) || [...specs.values()].includes(name); i++) name = `${helper}__${label}${i}`;
    specs.set(key, name);
    const fl = new FunctionLowering(callerCtx, { ...seen.get(helper)!, name, exported: false }, spec);
    const f = fl.lowerFunction();
    if (!f) {
      specs.delete(key);
      failedHere.add(key);
      return null;
    }
    mod.funcs.set(name, f);
    mod.order.push(name);
    return name;
  };

  // ---- module constants ----
  const typesBefore = mod.types.size;
  for (const g of globalDecls) {
    const ty = typeAt(g.node.name);
    if (!ty) {
      diags.error(locOf(g.node), `module constant '${g.name}' has a type tsad does not support (${checker.typeToString(checker.getTypeAtLocation(g.node.name))})`, 'use numbers, booleans, string literals, number arrays or objects of these');
      continue;
    }
    if (!g.node.initializer) {
      mod.globals.set(g.name, { name: g.name, ty, init: null, loc: locOf(g.node) });
      continue;
    }
    const fl = new FunctionLowering(ctx, null);
    const init = fl.expr(g.node.initializer);
    if (fl.pre.length) diags.error(locOf(g.node), `module constant '${g.name}' needs statements to initialise`, 'write the data as a literal');
    if (init) mod.globals.set(g.name, { name: g.name, ty, init, loc: locOf(g.node) } satisfies GlobalConst);
  }

  if (trace) trace.globalTypes = [...mod.types.keys()].slice(typesBefore);

  // ---- functions ----
  for (const d of seen.values()) {
    if (only !== undefined && d.name !== only) continue;
    // a function outside the subset is an error only if the head reaches it: collect separately
    const own = new DiagnosticBag(sources);
    const typeErrorsHere = inBody.filter((e) => ownsInBody(e, d));
    for (const e of typeErrorsHere) reportTsError(own, e, false);
    const fl = new FunctionLowering({ ...ctx, diags: own }, d);
    const typesFrom = mod.types.size;
    specialised = false;
    const f = typeErrorsHere.length ? null : fl.lowerFunction();
    trace?.funcs.set(d.name, { types: [...mod.types.keys()].slice(typesFrom), specialised });
    // the lowering's own diagnostic explains a strict-only type error better (one problem, one error)
    if (f && !own.hasErrors) for (const sd of strictOnly) if (owns(sd, d)) reportTsError(own, sd, true);
    if (f && !own.hasErrors) {
      mod.funcs.set(f.name, f);
      mod.order.push(f.name);
    } else {
      const calls: string[] = [];
      d.node.forEachChild(function visit(n: ts.Node): void {
        // (a helper taking functions is reached only through its copies, whose errors are the caller's)
        if (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && seen.has(n.expression.text) && !takesFunctions(paramsOf(seen.get(n.expression.text)!, checker), checker)) calls.push(n.expression.text);
        n.forEachChild(visit);
      });
      mod.failed.set(d.name, { diagnostics: own.list, calls });
    }
  }
  return mod;

}

/** whether a type error lies inside the body of a function (of any depth) */
function inFunctionBody(d: ts.Diagnostic): boolean {
  if (!d.file || d.start === undefined) return false;
  const at = d.start;
  let found = false;
  const visit = (n: ts.Node): void => {
    if (found || at < n.pos || at >= n.end) return;
    const body = ts.isFunctionLike(n) ? (n as ts.FunctionLikeDeclaration).body : undefined;
    if (body && at >= body.getStart() && at < body.end) found = true;
    else n.forEachChild(visit);
  };
  d.file.forEachChild(visit);
  return found;
}

function skipParens(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e) || ts.isTypeAssertionExpression(e)) e = e.expression;
  return e;
}

function hintForTsError(code: number, file: string, message: string): string {
  if (code === 2307 || code === 2792) {
    // a relative import of a file not in the compilation: name that file
    const spec = /'([^']+)'/.exec(message)?.[1] ?? '';
    if (spec.startsWith('.')) {
      const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
      const wanted = (dir.startsWith('/') ? '/' : '') + normalizeSegments((dir + spec.replace(/\.(js|ts)$/, '') + '.ts').split('/')).join('/');
      return `tsad reads only the files it is given: pass ${wanted} too (tsad ${file} ${wanted} …, or both in compile()'s input)`;
    }
    return 'tsad compiles only the files it is given and imports nothing else: pass the imported files too (packages cannot be imported)';
  }
  if (code === 2339) return 'only the members tsad knows are available: .length, .subarray, .fill on new arrays; see the README for the subset';
  if (code === 2304) return 'every identifier must be declared in the compilation (imports included)';
  if (code >= 1000 && code < 2000) return 'this is a syntax error: fix the code so that TypeScript parses it';
  return 'this is a TypeScript type error: tsad compiles only code that type-checks (tsc with its default settings)';
}

interface Ctx {
  checker: ts.TypeChecker;
  diags: DiagnosticBag;
  locOf(n: ts.Node): Loc;
  typeAt(n: ts.Node): Ty | null;
  convert(t: ts.Type, at: ts.Node): Ty | null;
  funcByDecl: Map<ts.Node, string>;
  globalByDecl: Map<ts.Node, string>;
  mod: Module;
  funcDecls: Map<string, FuncDecl>;
  globalNames: Set<string>;
  /** the classes of the compilation (src/frontend/classes.ts) */
  classes: ts.ClassDeclaration[];
  /** lowers the copy of a helper specialised for the functions passed to it (src/frontend/closures.ts) */
  specialise(callerCtx: Ctx, helper: string, label: string, key: string, spec: Specialisation): string | null;
}


class FunctionLowering {
  pre: Stmt[] = [];
  private names = new Set<string>();
  private varOf = new Map<ts.Node, { name: string; ty: Ty }>();
  private condDepth = 0;
  /** expressions whose value is only tested for truthiness (conditions, and operands of `&&`/`||` there) */
  private readonly tested = new Set<ts.Node>();
  private ok = true;
  /** `var` bindings of the function, by declaration (var-scope.ts) */
  private vars = new Map<ts.VariableDeclaration, VarBinding>();
  /** declarations refused: their later uses are not reported again (one problem, one error) */
  private refused = new Set<ts.Symbol>();
  /** statements that give a parameter its default in the body (`opts = opts || {}`): lowered as the parameter's local */
  private bodyDefaultAt = new Map<ts.Statement, { p: ts.ParameterDeclaration; param: Param; def: BodyDefault }>();
  /** effects inside expressions (src/frontend/sequencing.ts) */
  private seq: Sequencing;
  /** conditionals lowered as an `if` (chosenDecl): their branches are statements of their own */
  private unfolded = new Set<ts.Node>();
  /** the objects of the `?.` being lowered, each read once and narrowed (optional-chains.ts) */
  private chainObjects = new Map<ts.Node, Expr>();
  /** optional chains being lowered: their ends are then read as plain accesses */
  private chains = new Set<ts.Node>();
  /** nullable number `let`s assigned again, split into a number and a flag (nullable-locals.ts) */
  private splitLocals = new Set<string>();
  /** IR names of `for…in` keys over arrays (ints: `Number(k)` and `parseInt(k)` are the key itself) */
  private forInKeys = new Set<string>();
  /** `x = e;` statements that give a nullable `let x;` its one value (assignedOnceLater) */
  private nullableInits = new Map<ts.Node, { name: string; ty: Ty; decl: ts.VariableDeclaration }>();
  /** destructuring assignment (src/frontend/destructuring.ts) */
  private destructuring: DestructuringAssignment;

  constructor(
    private ctx: Ctx,
    private d: FuncDecl | null,
    spec: Specialisation | null = null,
  ) {
    this.hooks = {
      checker: this.ctx.checker,
      convert: (t, at) => this.ctx.convert(t, at),
      typeAt: (n) => this.ctx.typeAt(n),
      locOf: (n) => this.ctx.locOf(n),
      expr: (e) => this.expr(e),
      named: (e, x) => this.placed(e, x, true),
      lvalue: (e: ts.Expression, updates?: boolean) => this.lvalue(e, updates),
      exprStmt: (e) => this.exprStmt(e),
      markTarget: (n) => this.seq.markTarget(n),
      err: (n, msg, hint) => this.err(n, msg, hint),
      fresh: (base) => this.fresh(base),
      declareVar: (node, name, ty) => this.declareVar(node, name, ty),
      local: (id) => {
        const r = this.resolve(id);
        return r?.kind === 'local' ? r.name : null;
      },
      varTy: (id) => {
        const r = this.resolve(id);
        return r?.kind === 'local' ? r.ty : null;
      },
      emit: (st) => void this.pre.push(st),
      inCondition: () => this.condDepth > 0,
      block: (b) => this.stmts(b),
      statements: (list) => this.stmts(list),
      ok: () => this.ok,
      capture: (f) => {
        const saved = this.takePre();
        const r = f();
        const inner = this.takePre();
        this.pre = saved;
        return [r, inner];
      },
      bind: (node, name, ty) => void this.varOf.set(node, { name, ty }),
      destructure: (pattern, value, node) => this.bindTarget(pattern, value, false, node),
      isUnfolded: (n) => this.unfolded.has(n),
      withObject: (node, value, f) => {
        this.chainObjects.set(skipParens(node as ts.Expression), value);
        try {
          return f();
        } finally {
          this.chainObjects.delete(skipParens(node as ts.Expression));
        }
      },
      unbind: (node) => void this.varOf.delete(node),
      helper: (id) => {
        const r = this.resolve(id);
        const fd = r?.kind === 'func' ? this.ctx.funcDecls.get(r.name) : undefined;
        // (a class's implicit constructor is no callback)
        if (!fd || ts.isClassDeclaration(fd.node)) return null;
        const sig = this.ctx.checker.getSignatureFromDeclaration(fd.node);
        const ret = sig ? this.ctx.convert(this.ctx.checker.getReturnTypeOfSignature(sig), id) : null;
        return { name: fd.name, params: fd.node.parameters, ret };
      },
      takePre: () => this.takePre(),
      functionOf: (decl) => this.ctx.funcByDecl.get(decl) ?? null,
      userCall: (e, fn, self) => this.userCall(e, fn, self),
      helperCall: (e, fn) => {
        // (a helper taking functions is called through its copy specialised for those passed)
        const viaCopy = this.closures.helperCall(e, fn);
        return viaCopy !== undefined ? viaCopy : this.userCall(e, fn);
      },
      stmt: (st, out) => this.stmt(st, out),
      classes: () => this.ctx.classes,
      paramVar: (p) => {
        const v = this.varOf.get(p);
        return v ? { k: 'var', name: v.name, ty: v.ty } : null;
      },
      declVar: (decl) => this.varOf.get(decl) ?? null,
      helperDecl: (name) => {
        const fd = this.ctx.funcDecls.get(name);
        return fd && !fd.member ? { params: paramsOf(fd, this.ctx.checker) } : null;
      },
      specialise: (helper, label, key, spec) => this.ctx.specialise(this.ctx, helper, label, key, spec),
      refused: (id) => this.isRefused(id),
      fail: () => void (this.ok = false),
      failed: () => !this.ok,
      self: () => (this.self ? { k: 'var', name: this.self.name, ty: this.self.ty } : null),
    };
    // a constructor's field initializers are lowered with its body
    this.seq = new Sequencing(this.hooks, d?.member?.kind === 'ctor' ? d.member.cls : d && !ts.isClassDeclaration(d.node) ? d.node.body : undefined);
    this.destructuring = new DestructuringAssignment(this.hooks);
    this.callbacks = new Callbacks(this.hooks);
    this.closures = new Closures(this.hooks, spec);
  }

  /** Module-level names are shared (not copied per function: that would be quadratic in module size). */
  private taken(n: string): boolean {
    return this.names.has(n) || this.callsFunctionNamed(n) || this.ctx.globalNames.has(n);
  }

  /**
   * Is `n` a function of the compilation that this function's generated code may call? A parameter or
   * local of that name would shadow it, so it is renamed; a top-level function this one never names
   * leaves the user's name alone (`loss(w, sigma)` beside a function `sigma`).
   */
  private callsFunctionNamed(n: string): boolean {
    const fd = this.ctx.funcDecls.get(n);
    if (!fd) return false;
    if (fd.member || !this.d || ts.isClassDeclaration(this.d.node)) return true;
    if (!this.namedFunctions) {
      const found = new Set<string>();
      const checker = this.ctx.checker;
      const visit = (x: ts.Node): void => {
        if (ts.isIdentifier(x)) {
          for (const decl of checker.getSymbolAtLocation(x)?.declarations ?? []) {
            const name = this.ctx.funcByDecl.get(decl);
            if (name) found.add(name);
          }
        }
        x.forEachChild(visit);
      };
      visit(this.d.node);
      this.namedFunctions = found;
    }
    return this.namedFunctions.has(n);
  }
  private namedFunctions: Set<string> | null = null;

  /** what src/frontend/nullable.ts needs of this lowering */
  /**
   * What the modules of the front end's concerns (arrays, nullable, sequencing, destructuring, spread)
   * may ask of this lowering: one object, each module typed by the part it uses.
   */
  private readonly hooks: ArrayHost & NullableHost & OptionalChainHost & SequencingHost & DestructuringHost & SpreadHost & CallbackHost & TypedArrayHost & RestHost & ClassHost & ClosureHost & NamespaceHost;
  /** local functions inlined at their calls, functions passed to helpers (src/frontend/closures.ts) */
  private closures: Closures;
  /** array methods with callbacks, and the local functions passed to them (src/frontend/callbacks.ts) */
  private callbacks: Callbacks;
  /** `this` in a method, getter, setter or constructor: its first parameter, or the object it builds */
  private self: { name: string; ty: Ty } | null = null;

  private err(node: ts.Node, msg: string, hint?: string): null {
    this.ok = false;
    this.ctx.diags.error(this.ctx.locOf(node), msg, hint);
    return null;
  }

  /** what splitting nullable values needs of this lowering (src/frontend/nullable-locals.ts) */
  private splitHost(at: ts.Node): SplitHost {
    return {
      fresh: (b) => this.fresh(b),
      splitResult: (fn) => this.splitResultOf(fn),
      refuse: (loc, msg, hint) => {
        this.ok = false;
        this.ctx.diags.error(loc ?? this.ctx.locOf(at), msg, hint);
      },
    };
  }

  /**
   * The declared result of the module function `fn` when it is a nullable array returned as a pair:
   * read from its declaration, so that its body and every call agree whichever is lowered first. A
   * getter is not split (a narrowed read of it would disagree with its pair), nor an external one.
   */
  private splitResultOf(fn: string): Extract<Ty, { k: 'opt' }> | null {
    const d = this.ctx.funcDecls.get(fn);
    if (!d || d.external || ts.isClassDeclaration(d.node) || ts.isConstructorDeclaration(d.node) || ts.isGetAccessorDeclaration(d.node) || ts.isSetAccessorDeclaration(d.node)) return null;
    const sig = this.ctx.checker.getSignatureFromDeclaration(d.node);
    if (!sig) return null;
    const ty = this.ctx.convert(this.ctx.checker.getReturnTypeOfSignature(sig), d.node);
    return ty && isSplitResult(ty) ? ty : null;
  }

  private fresh(base: string): string {
    if (!this.taken(base)) {
      this.names.add(base);
      return base;
    }
    for (let i = 0; ; i++) {
      const n = `${base}${i}`;
      if (!this.taken(n)) {
        this.names.add(n);
        return n;
      }
    }
  }

  private declareVar(node: ts.Node, name: string, ty: Ty): string {
    const n = this.fresh(name);
    this.varOf.set(node, { name: n, ty });
    return n;
  }

  /** TypeScript's `any[]` */
  private isAnyArray(node: ts.Node): boolean {
    const t = this.ctx.checker.getTypeAtLocation(node);
    return this.ctx.checker.isArrayType(t) && !!(this.ctx.checker.getTypeArguments(t as ts.TypeReference)[0]?.flags & ts.TypeFlags.Any);
  }

  /**
   * `let prev;` with no type (TypeScript's evolving `any`, typed by flow at each use): the one type of
   * the values assigned to it, `| undefined` where it is compared with undefined or null; null where
   * that is not one type (the declaration is then refused as `any`, located).
   */
  private bareLetType(d: ts.VariableDeclaration): Ty | null {
    const checker = this.ctx.checker;
    if (d.type || d.initializer || !ts.isIdentifier(d.name) || !(checker.getTypeAtLocation(d.name).flags & ts.TypeFlags.Any)) return null;
    const sym = checker.getSymbolAtLocation(d.name);
    const scope = ts.findAncestor(d, ts.isFunctionLike);
    if (!sym || !scope) return null;
    const types = new Set<string>();
    let found: Ty | null = null;
    let tested = false;
    const visit = (n: ts.Node): void => {
      if (ts.isBinaryExpression(n)) {
        const k = n.operatorToken.kind;
        const left = skipParens(n.left), right = skipParens(n.right);
        const isIt = (e: ts.Expression) => ts.isIdentifier(e) && checker.getSymbolAtLocation(e) === sym;
        const nothing = (e: ts.Expression) => e.kind === ts.SyntaxKind.NullKeyword || (ts.isIdentifier(e) && e.text === 'undefined') || ts.isVoidExpression(e);
        if (k === ts.SyntaxKind.EqualsToken && isIt(left)) {
          if (nothing(right)) tested = true;
          else {
            const t = this.ctx.convert(checker.getBaseTypeOfLiteralType(checker.getTypeAtLocation(right)), right);
            if (!t) types.add('?');
            else {
              types.add(JSON.stringify(t));
              found = t;
            }
          }
        }
        const eq = k === ts.SyntaxKind.EqualsEqualsEqualsToken || k === ts.SyntaxKind.ExclamationEqualsEqualsToken || k === ts.SyntaxKind.EqualsEqualsToken || k === ts.SyntaxKind.ExclamationEqualsToken;
        if (eq && ((isIt(left) && nothing(right)) || (isIt(right) && nothing(left)))) tested = true;
      }
      n.forEachChild(visit);
    };
    visit(scope);
    const t = found as Ty | null;
    if (types.size !== 1 || !t) return null;
    return tested && (t.k === 'num' || t.k === 'int') ? { k: 'opt', base: t, none: ['undefined'] } : t;
  }

  /** the name of a class or interface reached again through the fields of `t` (arrays of it included), or null */
  private recursiveType(t: ts.Type, at: ts.Node): string | null {
    const checker = this.ctx.checker;
    const open = new Set<ts.Symbol>();
    const visit = (x: ts.Type, depth: number): string | null => {
      if (depth > 8) return null;
      if (checker.isArrayType(x)) return visit(checker.getTypeArguments(x as ts.TypeReference)[0], depth + 1);
      if (x.isUnion()) {
        for (const u of x.types) {
          const r = visit(u, depth + 1);
          if (r) return r;
        }
        return null;
      }
      const sym = x.getSymbol();
      if (!sym || !(x.flags & ts.TypeFlags.Object) || !(sym.flags & (ts.SymbolFlags.Class | ts.SymbolFlags.Interface))) return null;
      if (open.has(sym)) return sym.name;
      open.add(sym);
      for (const f of checker.getPropertiesOfType(x)) {
        if (!(f.flags & ts.SymbolFlags.Property)) continue;
        const r = visit(checker.getTypeOfSymbolAtLocation(f, at), depth + 1);
        if (r) return r;
      }
      open.delete(sym);
      return null;
    };
    return visit(t, 0);
  }

  private tyOrErr(node: ts.Node, what: string): Ty | null {
    const t = this.ctx.typeAt(node);
    const p = node.parent;
    if (!t && ts.isParameter(p) && !p.type && !p.initializer && this.ctx.checker.getTypeAtLocation(node).flags & ts.TypeFlags.Any) {
      const sfName = node.getSourceFile().fileName;
      // (a .js file typed by JSDoc is checked as JavaScript; one without is read as TypeScript)
      if (sfName.endsWith('.js') && !sfName.endsWith('.js.ts')) return this.err(node, `${what} has no type (TypeScript gives it 'any'), so tsad cannot tell what it holds`, `give it a JSDoc type, as TypeScript reads them in JavaScript: \`/** @param {number[]} ${node.getText()} */\` above the function`);
      const ext = sfName.endsWith('.js.ts') || /\.js$/.test(this.ctx.locOf(node).file);
      return this.err(node, `${what} has no type (TypeScript gives it 'any'), so tsad cannot tell what it holds`, `annotate it, e.g. \`(${node.getText()}: number)\` or \`(${node.getText()}: number[])\`${ext ? '; tsad reads a .js file as TypeScript: annotate it, give it a JSDoc type (`/** @param {number} ' + node.getText() + ' */`), or rename the file to .ts' : ''}`);
    }
    if (!t) {
      const shown = this.ctx.checker.typeToString(this.ctx.checker.getTypeAtLocation(node));
      // (an optional boolean, `closed?: boolean`, is the one nullable tsad does not take yet)
      if (/\bboolean \| undefined\b|\?: boolean\b/.test(shown))
        return this.err(node, `${what} has type '${shown}': an optional boolean is not supported`, 'make it required (`flag: boolean`) and pass it, or, for a parameter, give it a default (`flag = false`)');
      // (a class or interface holding instances of itself: say so, whatever the literal's own type, `[] as Node[]`)
      // (or the type its place gives it: `new Node('leaf', [], 0)` passes `[]` as a `Node[]`)
      const contextual = ts.isExpression(node) ? this.ctx.checker.getContextualType(node) : undefined;
      const asserted = ts.isAsExpression(p) || ts.isSatisfiesExpression(p) ? this.ctx.checker.getTypeAtLocation(p) : contextual && this.recursiveType(contextual, node) ? contextual : this.ctx.checker.getTypeAtLocation(node);
      const recursive = this.recursiveType(asserted, node);
      if (recursive)
        return this.err(node, `${what} has type '${this.ctx.checker.typeToString(asserted)}', and '${recursive}' holds instances of itself (a tree, a linked list): tsad does not differentiate through recursive types`, 'keep the structure in flat arrays (child or parent indices) and the numbers in number arrays, e.g. `w: number[]`, `kids: number[][]`');
      // (an object type is refused for one of its fields: name it, `end: Node | null`)
      const field = this.unsupportedField(this.ctx.checker.getTypeAtLocation(node), node);
      if (field) return this.err(node, `${what} has type '${shown}', whose field '${field.name}' has type '${field.type}', which tsad cannot differentiate through`, field.type.includes('null') || field.type.includes('undefined') ? 'a field holding an object or array that may be absent is not supported: give it a value of its type from the start (an empty array, a placeholder object) and a flag if needed' : 'use number, boolean, string-literal flags, number[] (nested), Float64Array, number tuples, or interfaces and classes of these');
      return this.err(node, `${what} has type '${shown}', which tsad cannot differentiate through`, 'use number, boolean, string-literal flags, number[] (nested), Float64Array, Float32Array, Int32Array (and the other integer typed arrays), number tuples, or interfaces of these');
    }
    return t;
  }

  /** the first field of an object type that does not convert (null when it is not an object or all do) */
  private unsupportedField(t: ts.Type, at: ts.Node): { name: string; type: string } | null {
    if (!(t.flags & ts.TypeFlags.Object) || this.ctx.checker.isArrayType(t) || this.ctx.checker.isTupleType(t) || t.getCallSignatures().length) return null;
    for (const p of this.ctx.checker.getPropertiesOfType(t)) {
      const pt = this.ctx.checker.getTypeOfSymbolAtLocation(p, at);
      if (pt.getCallSignatures().length) continue; // a method
      if (!this.ctx.convert(pt, at)) return { name: p.name, type: this.ctx.checker.typeToString(pt) };
    }
    return null;
  }

  /** A literal's type, from its context when it has one (`const a: number[] = []`). */
  private literalType(e: ts.Expression, what: string): Ty | null {
    const ctxTy = this.ctx.checker.getContextualType(e);
    const t = ctxTy && this.ctx.convert(ctxTy, e);
    if (t && (t.k === 'arr' || t.k === 'tuple' || t.k === 'obj')) return t;
    return this.tyOrErr(e, what);
  }

  /** the comments written right above a declaration (a blank line detaches what is above it: a file's header) */
  private comments(node: ts.Node): string[] | undefined {
    const sf = node.getSourceFile();
    const ranges = ts.getLeadingCommentRanges(sf.text, node.getFullStart());
    if (!ranges?.length) return undefined;
    let first = ranges.length;
    let next = node.getStart();
    while (first > 0 && !/\n[ \t]*\r?\n/.test(sf.text.slice(ranges[first - 1].end, next))) next = ranges[--first].pos;
    const kept = ranges.slice(first);
    return kept.length ? kept.map((r) => sf.text.slice(r.pos, r.end)) : undefined;
  }

  lowerFunction(): Func | null {
    const d = this.d!;
    if (ts.isClassDeclaration(d.node)) return this.lowerConstructor(d, null);
    const node = d.node;
    const params: Param[] = [];
    const unpack: Stmt[] = []; // parameters written as patterns, destructured at the top of the body
    for (const p of node.parameters) {
      if (this.closures.param(p, d.name)) continue; // a function parameter: bound in a specialised copy, else refused
      if (!ts.isIdentifier(p.name) && !p.dotDotDotToken) {
        const ty = this.tyOrErr(p, `parameter ${node.parameters.indexOf(p) + 1}`);
        if (!ty) continue;
        const name = this.fresh(patternParamName(p, node.parameters.indexOf(p)));
        const param: Param = { name, ty };
        // `{ ddof = 0 }: Opts = {}`: the default object is destructured where the argument is left out
        if (p.initializer) {
          const def = this.expr(p.initializer);
          if (def && varsRead(def).size) this.err(p.initializer, `the default value of parameter ${node.parameters.indexOf(p) + 1} reads '${[...varsRead(def)][0]}': tsad does not differentiate through parameter defaults`, 'give the fields their own defaults in the pattern');
          else if (def) param.def = def;
        }
        params.push(param);
        unpack.push(...this.bindTarget(p.name, { k: 'var', name, ty }, false, p));
        continue;
      }
      if (!ts.isIdentifier(p.name)) {
        this.err(p, 'a destructured rest parameter is not supported', 'name it (`...xs: number[]`) and read its elements');
        continue;
      }
      const ty = this.tyOrErr(p.name, `parameter '${p.name.text}'`);
      if (!ty) {
        this.silence(p);
        continue;
      }
      const name = this.declareVar(p, p.name.text, ty);
      const param: Param = { name, ty, ...(name !== p.name.text ? { source: p.name.text } : {}) };
      if (p.dotDotDotToken) {
        if (ty.k !== 'arr' || ty.typed) {
          this.err(p, `the rest parameter '${p.name.text}' must be an array (\`...${p.name.text}: number[]\`)`, 'declare it as an array of numbers, arrays or objects');
          continue;
        }
        param.rest = true;
      }
      if (isOptionalParam(p)) param.optional = true;
      if (p.initializer) {
        const def = this.expr(p.initializer);
        // (a constant default is filled in where the argument is missing, in the derivatives' signatures
        // too; one computed from other parameters is computed at entry, where the argument is undefined)
        const reads = def ? [...varsRead(def)] : [];
        if (reads.length) {
          // (at the top of the body, in the order of the parameters, as JavaScript evaluates them)
          const computed = this.computedDefault(p, param, def!);
          if (computed) unpack.push(computed);
        } else if (def) param.def = def;
      }
      params.push(param);
    }
    // `opts = opts || {}` in the body before any other use: the parameter's default, computed there
    if (node.body && ts.isBlock(node.body))
      for (const [p, def] of bodyDefaults(node.body, node.parameters, this.ctx.checker)) {
        const param = params.find((x) => x.name === this.varOf.get(p)?.name);
        if (param) this.bodyDefaultAt.set(def.stmt, { p, param, def });
      }
    params.push(...this.closures.capturedParams()); // a specialised copy takes what its closures capture
    if (d.member && d.member.kind !== 'static') {
      if (ts.isConstructorDeclaration(node)) return this.lowerConstructor(d, node, params, unpack);
      // a method takes its instance first (`C_m(self, …)`)
      const ty = this.ctx.typeAt(d.member.cls);
      if (!ty || ty.k !== 'obj') return this.err(d.member.cls.name ?? d.member.cls, `the fields of class '${d.member.className}' have types tsad cannot differentiate through`, 'use numbers, arrays and objects of numbers, and instances of classes');
      this.self = { name: this.fresh('self'), ty };
      params.unshift({ name: this.self.name, ty });
    }
    const sig = this.ctx.checker.getSignatureFromDeclaration(node);
    let ret: Ty | null = VOID;
    // an unannotated function TypeScript types `any` (its result computed from an array it cannot type): typed by what it returns, below
    let retFromBody = false;
    if (sig) {
      const rt = this.ctx.checker.getReturnTypeOfSignature(sig);
      retFromBody = !node.type && !!(rt.flags & ts.TypeFlags.Any);
      ret = rt.flags & ts.TypeFlags.Never ? VOID : retFromBody ? null : this.ctx.convert(rt, node);
      // (its body is not lowered: the closure it returns would be a second error of one problem)
      // (a factory only ever called as `const m = factory(…)` is followed there, and reported there if it cannot be)
      if (!ret && !retFromBody && rt.getCallSignatures().length && onlyMadeInto(d.member ? node : (node.parent && ts.isVariableDeclaration(node.parent) ? node.parent : node), [...this.ctx.funcDecls.values()].map((f) => f.node), this.ctx.checker)) {
        this.ok = false;
        return null;
      }
      if (!ret && !retFromBody && rt.getCallSignatures().length)
        return this.err(node.type ?? node.name ?? node, `'${d.name}' returns a function (a closure over its arguments): tsad differentiates a function returned by a factory only through the runtime API`, `call what the closure computes directly (a helper taking the factory's arguments too), or differentiate it with the runtime API: \`grad(${d.name}(…), { scope: { … } })\``);
      if (!ret && !retFromBody) this.err(node.type ?? node.name ?? node, `the return type '${this.ctx.checker.typeToString(rt)}' of '${d.name}' is not supported`, 'return a number, an array or an object of numbers');
    }
    const body: Stmt[] = [...unpack];
    if (node.body && ts.isBlock(node.body)) {
      const hoisted = this.hoistVars(node.body, body);
      for (const s of node.body.statements) this.stmt(s, body);
      body.splice(0, body.length, ...this.checkpointRegions(body, node.body));
      checkDefiniteAssignment(body, hoisted, (name, loc) => {
        this.ok = false;
        this.ctx.diags.error(loc, `'${name}' may be read before it is assigned (a \`var\` holds undefined until then)`, `assign '${name}' on every path before this read, e.g. give it a value where it is declared: \`var ${name} = 0;\``);
      });
    } else if (node.body) {
      const e = this.expr(node.body as ts.Expression);
      body.push(...this.takePre(), { k: 'return', e, loc: this.ctx.locOf(node.body) });
    }
    body.splice(0, body.length, ...splitNullableLocals(body, this.splitHost(node)));
    if (retFromBody && this.ok) ret = this.returnedType(body) ?? this.err(node.name ?? node, `the return type 'any' of '${d.name}' is not supported`, 'annotate its return type, e.g. `): number {`');
    if (!this.ok || !ret) return null;
    // `return;` and the end of the body give `undefined` where the result may be undefined: written out,
    // so that every mode returns its pair there too
    if (ret.k === 'opt' && ret.none.includes('undefined')) body.splice(0, body.length, ...explicitUndefined(body));
    // a nullable array result is returned as `[array, isSet]` (src/frontend/nullable-locals.ts)
    const nullableResult = this.splitResultOf(d.name);
    if (nullableResult) {
      body.splice(0, body.length, ...returnPairs(body, nullableResult, this.splitHost(node), this.ctx.locOf(node)));
      ret = resultPair(nullableResult);
    }
    refuseUnnamedResults(body, this.splitHost(node));
    if (!this.ok) return null;
    return { name: d.name, params, ret, body, exported: d.exported, loc: this.ctx.locOf(node), comments: this.comments(d.member ? node : d.stmt), ...(d.external ? { external: true } : {}), ...(nullableResult ? { nullableResult } : {}) };
  }

  /**
   * A default computed from other parameters (`c2 = c0 * 2`): JavaScript evaluates it at entry where the
   * argument is undefined, left out or passed so. The parameter becomes optional, and the body's `c2`
   * a local `c2Value` given the argument or the default: the default's derivative is then the
   * derivative of the parameters it reads. Call sites leave such an argument out as undefined.
   */
  private computedDefault(p: ts.ParameterDeclaration, param: Param, def: Expr): Stmt | null {
    const name = p.name.getText();
    // (an array or object parameter that may be left out is passive: say so, rather than send the
    // reader to `name?:`, whose hint would send them back here)
    const refHint = `to differentiate with respect to '${name}', declare it required (\`${name}: ${p.type?.getText() ?? 'number[]'}\`) and pass ${p.initializer!.getText()} where it is left out; to keep it optional, give it the default in the body, \`if (${name} === undefined) ${name} = ${p.initializer!.getText()};\`, where it is passive`;
    if (this.pre.length) {
      this.pre = [];
      return this.err(p.initializer!, `the default value of '${name}' needs statements of its own (an array method, a spread): tsad computes parameter defaults that are expressions of other parameters`, isRef(param.ty) ? refHint : `compute it in the body: \`const ${name}Value = ${name} ?? ${p.initializer!.getText()};\` with the parameter declared optional`);
    }
    const ty = param.ty;
    if (ty.k === 'opt' || isRef(ty)) return this.err(p.initializer!, `the default value of '${name}' reads other parameters: tsad computes such defaults for numbers only`, isRef(ty) ? refHint : `compute it in the body: \`const ${name}Value = ${name} ?? ${p.initializer!.getText()};\` with the parameter declared optional`);
    // (the parameter keeps its name, which callers and `wrt` use; the body reads the local)
    const local = this.declareVar(p, `${p.name.getText()}Value`, ty);
    param.ty = { k: 'opt', base: ty, none: ['undefined'] };
    param.optional = true;
    const arg: Expr = { k: 'var', name: param.name, ty: param.ty };
    const given: Expr = { k: 'bin', op: '===', a: arg, b: { k: 'undef' }, ty: BOOL };
    const value: Expr = { k: 'cond', c: given, a: def, b: { k: 'var', name: param.name, ty, nn: true }, ty };
    return { k: 'decl', name: local, ty, init: value, konst: true, loc: this.ctx.locOf(p) };
  }

  /**
   * The local a body default declares where it stands (src/frontend/param-defaults.ts): `const yValue
   * = y ?? 2`, the body's later reads of `y` made reads of it; 'none' where the parameter cannot be
   * absent; null (the statement then lowers as written) where the test does not cover every absence
   * the parameter's type allows.
   */
  private bodyDefault(p: ts.ParameterDeclaration, param: Param, def: BodyDefault): Stmt[] | 'none' | null {
    const ty = param.ty;
    // (a parameter that cannot be absent, typed by the runtime API from a value given: an array or
    // object is truthy, so only a number's `||` can change it)
    if (ty.k !== 'opt' && (def.test === 'present' || isRef(ty))) return 'none';
    if (ty.k !== 'opt' && (ty.k === 'num' || ty.k === 'int' || ty.k === 'str')) return this.truthyDefault(p, param, def);
    if (ty.k !== 'opt' || ty.none.includes('false') || (def.test === 'present' && !ty.none.every((n) => def.covers.includes(n as 'null' | 'undefined')))) return null;
    const arg: Expr = { k: 'var', name: param.name, ty };
    const given: Expr = def.test === 'present' ? present(arg, ty.none) : truthy(arg);
    return this.defaultLocal(p, param, def, given, { k: 'var', name: param.name, ty: ty.base, nn: true }, ty.base);
  }

  /**
   * `const yValue = given ? y : fallback`, or, where the fallback needs statements of its own (`ws =
   * xs.map(…)`), those statements run only where the argument is absent: `let wsValue; if (given)
   * wsValue = ws; else { …; wsValue = fallback; }`. The fallback is lowered before the body's reads of
   * the parameter move to the local.
   */
  private defaultLocal(p: ts.ParameterDeclaration, param: Param, def: BodyDefault, given: Expr, arg: Expr, ty: Ty): Stmt[] | null {
    const fallback = this.expr(def.fallback);
    const pre = this.takePre();
    if (!fallback) return null;
    const local = this.declareVar(p, `${param.name}Value`, ty);
    const loc = this.ctx.locOf(def.stmt);
    if (!pre.length) return [{ k: 'decl', name: local, ty, init: { k: 'cond', c: given, a: arg, b: fallback, ty }, konst: true, loc, origin: 'param.bodydefault' }];
    const set = (value: Expr): Stmt => ({ k: 'assign', target: { k: 'var', name: local, ty }, value, loc });
    return [
      { k: 'decl', name: local, ty, init: null, konst: false, loc, origin: 'param.bodydefault' },
      { k: 'if', c: given, then: [set(arg)], else: [...pre, set(fallback)], loc },
    ];
  }

  /**
   * `y = y || 2` on a number or string that is always given: `const yValue = y || 2` (0, NaN and ''
   * take the fallback)
   */
  private truthyDefault(p: ts.ParameterDeclaration, param: Param, def: BodyDefault): Stmt[] | null {
    const ty = param.ty.k === 'int' ? NUM : param.ty;
    const arg: Expr = { k: 'var', name: param.name, ty: param.ty };
    return this.defaultLocal(p, param, def, truthy(arg), arg, ty);
  }

  /** the one type every `return` of a lowered body gives (numbers only), or null */
  private returnedType(body: Stmt[]): Ty | null {
    const tys = new Set<string>();
    forEachStmt(body, (s) => {
      if (s.k === 'return') tys.add(s.e ? tyOf(s.e).k : 'void');
    });
    return tys.size === 1 && (tys.has('num') || tys.has('int')) ? NUM : null;
  }

  /** `C_new(…)`: builds the instance (src/frontend/classes.ts) and returns it */
  /** `unpack`: the parameters written as patterns and the computed defaults, taken at the top of the body */
  private lowerConstructor(d: FuncDecl, node: ts.ConstructorDeclaration | null, params: Param[] = [], unpack: Stmt[] = []): Func | null {
    const cls = d.member!.cls;
    const ty = this.ctx.convert(this.ctx.checker.getTypeAtLocation(cls), cls);
    if (!ty || ty.k !== 'obj') return this.err(cls.name ?? cls, `the fields of class '${d.member!.className}' have types tsad cannot differentiate through`, 'use numbers, arrays and objects of numbers, and instances of classes');
    // an implicit constructor takes its base class's parameters, and passes them on
    if (!node)
      for (const p of inheritedParams(this.ctx.checker, cls)) {
        if (!ts.isIdentifier(p.name) || p.dotDotDotToken || p.initializer || isOptionalParam(p))
          return this.err(cls.name ?? cls, `'${d.member!.className}' has no constructor, and the one it inherits has optional, default, rest or destructured parameters`, 'write the constructor: `constructor(…) { super(…); }`');
        const ty = this.tyOrErr(p.name, `parameter '${p.name.text}'`);
        if (!ty) return null;
        params.push({ name: this.declareVar(p, p.name.text, ty), ty });
      }
    this.self = { name: this.fresh('self'), ty };
    const body: Stmt[] = [...unpack];
    if (node?.body) this.hoistVars(node.body, body);
    const rest = constructorBody(this.hooks, cls, node, ty, this.self.name);
    if (!rest || !this.ok) return null;
    body.push(...splitNullableLocals(rest, this.splitHost(node ?? cls)));
    refuseUnnamedResults(body, this.splitHost(node ?? cls));
    if (!this.ok) return null;
    return { name: d.name, params, ret: ty, body, exported: d.exported, loc: this.ctx.locOf(node ?? cls), comments: this.comments(d.stmt) };
  }

  /**
   * Declares the function's hoisted `var` bindings (one IR variable each, unassigned) at the top of its
   * body; the others are lowered in place as `let` (see var-scope.ts). Returns the hoisted names.
   */
  private hoistVars(block: ts.Block, body: Stmt[]): Set<string> {
    this.vars = collectVarBindings(block, this.ctx.checker);
    const names = new Set<string>();
    const refusedDecls = new Set<ts.Node>();
    for (const b of new Set(this.vars.values())) {
      if (!b.hoisted) continue;
      const d0 = b.decls.find((d) => !ts.isIdentifier(d.name)) ?? b.decls[0];
      if (!ts.isIdentifier(d0.name)) {
        if (refusedDecls.has(d0)) continue; // one error for the declaration, whatever its names
        refusedDecls.add(d0);
        this.refuse(d0, 'a destructuring `var` used outside its block, or declared twice, is not supported', 'declare the names with `let` before the block, or destructure with `const` where they are used');
        continue;
      }
      const ty = hoistedType(b, this.ctx.checker, this.ctx.convert);
      const assignments = b.refs.filter((r) => ts.isBinaryExpression(r.parent) && r.parent.left === r && r.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken);
      const isFn = (e: ts.Expression | undefined) => !!e && (ts.isFunctionExpression(skipParens(e)) || ts.isArrowFunction(skipParens(e)));
      const fnValued = this.ctx.checker.getTypeOfSymbolAtLocation(b.symbol, d0.name).getCallSignatures().length > 0 || b.decls.some((d) => isFn(d.initializer)) || assignments.some((r) => isFn((r.parent as ts.BinaryExpression).right));
      if (!ty && fnValued) {
        // (a local function is written out where it is called, from the one declaration that gives it)
        const assigned = assignments.length > 0;
        const where = assigned || b.decls.length > 1 || !b.decls[0].initializer ? 'is given its function by an assignment, or more than one' : 'is called outside the block that declares it';
        this.refuse(d0, `the local function '${d0.name.text}' (a \`var\`) ${where}: tsad writes a local function out where it is called, from its one declaration`, `declare it once where every call sees it, before the loop or block: \`const ${d0.name.text} = function (…) { … };\` (it reads the variables' values at each call)`);
        continue;
      }
      if (!ty) {
        const shown = this.ctx.checker.typeToString(this.ctx.checker.getTypeOfSymbolAtLocation(b.symbol, d0.name));
        this.refuse(d0, `the \`var\` '${d0.name.text}' has type '${shown}', which tsad cannot differentiate through (or is given values of different types)`, `give it one type: \`var ${d0.name.text}: number;\`, or a number, array or object value where it is declared`);
        continue;
      }
      const name = this.fresh(d0.name.text);
      for (const d of b.decls) this.varOf.set(d, { name, ty });
      names.add(name);
      body.push({ k: 'decl', name, ty, init: null, konst: false, hoisted: true, loc: this.ctx.locOf(d0) });
    }
    return names;
  }

  /** A declaration outside the subset: one error; its names' later uses stay silent. */
  private refuse(d: ts.VariableDeclaration | ts.BindingElement, msg: string, hint: string): null {
    this.silence(d);
    return this.err(d, msg, hint);
  }

  /** the names of a declaration already reported (its type or initializer): later uses add no error */
  private silence(d: ts.VariableDeclaration | ts.BindingElement | ts.ParameterDeclaration): void {
    this.ok = false;
    const visit = (n: ts.BindingName) => {
      if (ts.isIdentifier(n)) {
        const sym = this.ctx.checker.getSymbolAtLocation(n);
        if (sym) this.refused.add(sym);
      } else for (const el of n.elements) if (!ts.isOmittedExpression(el)) visit(el.name);
    };
    visit(d.name);
  }

  private takePre(): Stmt[] {
    const p = this.pre;
    this.pre = [];
    return p;
  }

  // ---------- statements ----------
  private stmts(nodes: readonly ts.Statement[] | ts.Statement): Stmt[] {
    const out: Stmt[] = [];
    if (ts.isBlock(nodes as ts.Node)) {
      for (const s of (nodes as ts.Block).statements) this.stmt(s, out);
      return this.checkpointRegions(out, nodes as ts.Block);
    }
    if (Array.isArray(nodes)) for (const s of nodes) this.stmt(s, out);
    else this.stmt(nodes as ts.Statement, out);
    return out;
  }

  /**
   * `// $ad checkpoint-start` … `// $ad checkpoint-end` around statements of one block: they become a
   * block marked for checkpointing (the end marker is on the statement after the region, or last in
   * the block). The region must be left only by falling through its end.
   */
  private checkpointRegions(list: Stmt[], block: ts.Block): Stmt[] {
    const has = (st: Stmt, word: string) => hasDirectiveIn(st.comments, word);
    if (!list.some((st) => has(st, 'checkpoint-start') || has(st, 'checkpoint-end'))) {
      const tail = this.blockTail(block);
      if (directiveArgs(tail, 'checkpoint-end') !== null) this.err(block, "'$ad checkpoint-end' without a '$ad checkpoint-start' before it in the same block", 'put both markers in the same block, around the statements to checkpoint');
      return list;
    }
    const out: Stmt[] = [];
    let open: Stmt[] | null = null;
    const regions: { at: number; decls: Extract<Stmt, { k: 'decl' }>[] }[] = [];
    const close = () => {
      if (!open) return;
      this.checkRegionExits(open, block);
      regions.push({ at: out.length, decls: open.filter((st): st is Extract<Stmt, { k: 'decl' }> => st.k === 'decl') });
      out.push({ k: 'block', body: open, comments: ['// $ad checkpoint-region'], loc: open[0]?.loc });
      open = null;
    };
    for (const st of list) {
      if (has(st, 'checkpoint-end')) {
        if (!open) this.err(block, "'$ad checkpoint-end' without a '$ad checkpoint-start' before it in the same block", 'put both markers in the same block, around the statements to checkpoint');
        close();
      }
      if (has(st, 'checkpoint-start')) {
        if (open) this.err(block, "a '$ad checkpoint-start' inside a region already open", "close the first region with '$ad checkpoint-end' before starting another");
        close();
        open = [];
      }
      if (open) open.push(st);
      else out.push(st);
    }
    if (open) {
      if (directiveArgs(this.blockTail(block), 'checkpoint-end') !== null) close();
      else this.err(block, "'$ad checkpoint-start' without a matching '$ad checkpoint-end' in the same block", "add '// $ad checkpoint-end' after the last statement of the region");
    }
    // a region is a block: what it declares ends with it
    for (const r of regions) {
      const later = new Set<string>();
      forEachStmt(out.slice(r.at + 1), (st) => {
        if (st.k === 'assign' && st.target.k === 'var') later.add(st.target.name);
        for (const e of stmtExprs(st)) for (const n of varsRead(e)) later.add(n);
      });
      const d = r.decls.find((x) => later.has(x.name));
      if (d) {
        this.ctx.diags.error(d.loc, `'${d.name}' is declared inside a '$ad checkpoint-start' … '$ad checkpoint-end' region and used after it`, `declare it before the region (\`let ${d.name} = 0;\`) and assign it inside`);
        this.ok = false;
      }
    }
    return out;
  }

  /** the text between a block's last statement and its closing brace (where a trailing marker sits) */
  private blockTail(block: ts.Block): string {
    const sf = block.getSourceFile();
    const from = block.statements.length ? block.statements[block.statements.length - 1].end : block.getStart() + 1;
    return sf.text.slice(from, block.end);
  }

  private checkRegionExits(region: Stmt[], at: ts.Node): void {
    const visit = (ss: Stmt[], inLoop: boolean) => {
      for (const st of ss) {
        if (st.k === 'return' || ((st.k === 'break' || st.k === 'continue') && (!inLoop || st.label))) {
          this.ctx.diags.error(st.loc ?? this.ctx.locOf(at), `a checkpointed region cannot be left by '${st.k}'`, 'end the region before the statement, or move the jump out of it');
          this.ok = false;
        }
        if (st.k === 'if') {
          visit(st.then, inLoop);
          visit(st.else, inLoop);
        } else if (st.k === 'for' || st.k === 'while' || st.k === 'do') visit(st.body, true);
        else if (st.k === 'switch') for (const c of st.cases) visit(c.body, true);
        else if (st.k === 'block') visit(st.body, inLoop);
      }
    };
    visit(region, false);
  }

  private stmt(s: ts.Statement, out: Stmt[], label?: string): void {
    const bd = this.bodyDefaultAt.get(s);
    const local = bd && this.bodyDefault(bd.p, bd.param, bd.def);
    if (local) {
      if (local !== 'none') out.push(...local);
      return;
    }
    const loc = this.ctx.locOf(s);
    const comments = this.comments(s);
    const push = (st: Stmt) => {
      st.loc ??= loc;
      if (comments && !st.comments) st.comments = comments;
      out.push(...this.takePre(), st);
    };
    if (ts.isBlock(s)) {
      if (label) push({ k: 'block', label, body: this.stmts(s) });
      else for (const x of s.statements) this.stmt(x, out);
      return;
    }
    if (ts.isEmptyStatement(s)) return;
    if (ts.isVariableStatement(s)) {
      const list = this.varDeclList(s.declarationList);
      if (list.length) list[0].comments = comments;
      out.push(...list);
      return;
    }
    if (ts.isExpressionStatement(s)) {
      if (this.isFreeF(s.expression)) return; // giving a static-tape buffer back: nothing to differentiate
      const nullable = this.nullableInits.get(s);
      if (nullable) {
        const init = this.initExpr((skipParens(s.expression) as ts.BinaryExpression).right, nullable.name);
        out.push(...this.takePre());
        if (init) push({ k: 'decl', name: nullable.name, ty: nullable.ty, init, konst: true, loc: this.ctx.locOf(nullable.decl) });
        return;
      }
      const st = this.exprStmt(s.expression);
      if (st) push(st);
      else out.push(...this.takePre());
      return;
    }
    if (ts.isIfStatement(s)) {
      const c = this.cond(s.expression);
      out.push(...this.takePre()); // the condition's effects, before the branches are lowered
      const then = this.stmts(s.thenStatement);
      const els = s.elseStatement ? this.stmts(s.elseStatement) : [];
      if (c) push({ k: 'if', c, then, else: els });
      return;
    }
    if (ts.isForStatement(s)) {
      const init: Stmt[] = [];
      if (s.initializer) {
        if (ts.isVariableDeclarationList(s.initializer)) init.push(...this.varDeclList(s.initializer));
        else {
          const st = this.exprStmt(s.initializer);
          init.push(...this.takePre());
          if (st) init.push(st);
        }
      }
      const cond = s.condition ? this.cond(s.condition) : null;
      const condPre = this.takePre();
      const update: Stmt[] = [];
      if (s.incrementor) this.updateList(s.incrementor, update);
      // a temporary of the update (`j = i++` keeps i's old value) is declared before the loop: a
      // declaration cannot stand in a `for` header's update
      for (const [k, st] of update.entries())
        if (st.k === 'decl') {
          push({ k: 'decl', name: st.name, ty: st.ty, init: null, konst: false, loc: st.loc });
          update[k] = { k: 'assign', target: { k: 'var', name: st.name, ty: st.ty }, value: st.init!, loc: st.loc };
        }
      const body = this.stmts(s.statement);
      push(this.seq.forLoop(label, init, condPre, cond, update, body, loc));
      return;
    }
    if (ts.isForOfStatement(s)) {
      this.forOf(s, label, push);
      return;
    }
    if (ts.isForInStatement(s)) {
      this.forIn(s, label, push);
      return;
    }
    if (ts.isWhileStatement(s)) {
      const c = this.cond(s.expression);
      const condPre = this.takePre();
      const body = this.stmts(s.statement);
      if (c) push(this.seq.whileLoop(label, condPre, c, body, loc));
      return;
    }
    if (ts.isDoStatement(s)) {
      const body = this.stmts(s.statement);
      const c = this.cond(s.expression);
      const condPre = this.takePre();
      const st = c && this.seq.doLoop(s, label, body, condPre, c, loc);
      if (st) push(st);
      return;
    }
    if (ts.isSwitchStatement(s)) {
      const disc = this.expr(s.expression);
      out.push(...this.takePre()); // the discriminant's effects, before the cases are lowered
      const cases: { tests: Expr[] | null; body: Stmt[] }[] = [];
      for (const c of s.caseBlock.clauses) {
        const body = this.stmts(c.statements as unknown as ts.Statement[]);
        if (ts.isDefaultClause(c)) {
          cases.push({ tests: null, body });
        } else {
          const t = this.expr(c.expression);
          if (t) cases.push({ tests: [t], body });
        }
      }
      if (disc) push({ k: 'switch', label, disc, cases });
      return;
    }
    if (ts.isLabeledStatement(s)) {
      this.stmt(s.statement, out, s.label.text);
      return;
    }
    if (ts.isBreakStatement(s)) {
      push({ k: 'break', label: s.label?.text });
      return;
    }
    if (ts.isContinueStatement(s)) {
      push({ k: 'continue', label: s.label?.text });
      return;
    }
    if (ts.isReturnStatement(s)) {
      const e = s.expression ? this.expr(s.expression) : null;
      push({ k: 'return', e });
      return;
    }
    if (ts.isThrowStatement(s)) {
      push({ k: 'throw', e: { k: 'raw', text: s.expression.getText(), ty: VOID } });
      return;
    }
    if (ts.isFunctionDeclaration(s)) {
      this.closures.declareFunction(s); // inlined where it is called (src/frontend/closures.ts)
      return;
    }
    if (ts.isTryStatement(s)) {
      this.err(s, '`try`/`catch` is not supported in differentiated code', 'validate inputs with `if (…) throw new Error(…)` instead');
      return;
    }
    if (ts.isClassDeclaration(s)) {
      this.err(s, 'classes declared inside a function are not supported', 'declare the class at the top level of the module');
      return;
    }
    this.err(s, `${ts.SyntaxKind[s.kind]} is not supported in differentiated code`, 'see the README for the supported subset');
  }

  private forOf(s: ts.ForOfStatement, label: string | undefined, push: (s: Stmt) => void): void {
    if (s.awaitModifier) {
      this.err(s, '`for await` is not supported');
      return;
    }
    const init = s.initializer;
    if (!ts.isVariableDeclarationList(init) || init.declarations.length !== 1) {
      this.err(s, '`for…of` needs one `const` or `let` declaration', 'write `for (const x of xs)`');
      return;
    }
    const d = init.declarations[0];
    if (this.vars.get(d)?.hoisted) {
      this.refuse(d, 'a `for…of` `var` used outside its loop (or declared again) is not supported', 'write `for (const x of xs)` and copy the value into a variable declared before the loop where it is needed after it');
      return;
    }
    // `for (const [i, x] of xs.entries())`: the index and the element of a counted loop over xs
    const source = skipParens(s.expression);
    const entries = ts.isCallExpression(source) && source.arguments.length === 0 && ts.isPropertyAccessExpression(source.expression) && source.expression.name.text === 'entries' && ts.isArrayBindingPattern(d.name);
    let arr = this.expr(entries ? (source.expression as ts.PropertyAccessExpression).expression : s.expression);
    if (!arr) return;
    if (entries && tyOf(arr).k !== 'arr' && tyOf(arr).k !== 'tuple') {
      this.err(source, '`.entries()` is supported on arrays only', 'iterate with an indexed `for` loop');
      return;
    }
    const pre: Stmt[] = this.takePre();
    arr = this.walkedArray(entries ? (source.expression as ts.PropertyAccessExpression).expression : s.expression, arr, s.statement, pre);
    const second = entries ? (d.name as ts.ArrayBindingPattern).elements[1] : undefined;
    const base = ts.isIdentifier(d.name) ? d.name.text : second && ts.isBindingElement(second) && ts.isIdentifier(second.name) ? second.name.text : 'item';
    const i = this.fresh(`${base}Index`);
    const iv: Expr = { k: 'var', name: i, ty: INT };
    const elem: Expr = { k: 'idx', obj: arr, index: iv, ty: elemTy(tyOf(arr)) };
    const konst = (init.flags & ts.NodeFlags.Const) !== 0;
    let bodyHead: Stmt[];
    const parts = entries ? (d.name as ts.ArrayBindingPattern).elements : null;
    if (parts && parts.length <= 2 && parts.every((x) => ts.isOmittedExpression(x) || (ts.isIdentifier(x.name) && !x.initializer && !x.dotDotDotToken))) {
      // (each name bound on its own: `const i = index; const x = xs[index];`, no pair made per pass)
      bodyHead = parts.flatMap((x, k) => (ts.isOmittedExpression(x) ? [] : this.bindTarget(x.name, k === 0 ? iv : elem, konst, x)));
    } else {
      const pair: Expr = { k: 'arrlit', elems: [iv, elem], ty: { k: 'tuple', elems: [INT, elemTy(tyOf(arr))], ro: true } };
      bodyHead = this.bindTarget(d.name, entries ? pair : elem, konst, d);
    }
    const body = [...bodyHead, ...this.stmts(s.statement)];
    for (const p of pre) push(p);
    push({
      k: 'for',
      label,
      init: [{ k: 'decl', name: i, ty: INT, init: { k: 'num', v: 0 }, konst: false }],
      cond: { k: 'bin', op: '<', a: iv, b: { k: 'len', obj: arr }, ty: BOOL },
      update: [{ k: 'assign', target: iv as Extract<Expr, { k: 'var' }>, value: { k: 'bin', op: '+', a: iv, b: { k: 'num', v: 1 }, ty: INT }, op: '+', inc: true }],
      body,
    });
  }

  /** `for (const k in xs)` over an array: its indices, the key an int used only as one (for-in.ts) */
  private forIn(s: ts.ForInStatement, label: string | undefined, push: (s: Stmt) => void): void {
    const init = s.initializer;
    const d = ts.isVariableDeclarationList(init) && init.declarations.length === 1 ? init.declarations[0] : undefined;
    if (!d || !ts.isIdentifier(d.name) || d.initializer) {
      this.err(s, '`for…in` needs one `const`, `let` or `var` key', 'write `for (const k in xs)`');
      return;
    }
    if (this.vars.get(d)?.hoisted) {
      this.refuse(d, 'a `for…in` `var` used outside its loop (or declared again) is not supported', 'write `for (const k in xs)`, or an indexed `for` loop');
      return;
    }
    let arr = this.expr(s.expression);
    if (!arr) return;
    const t = tyOf(arr);
    if (t.k !== 'arr' && t.k !== 'tuple') {
      this.err(s.expression, '`for…in` over the keys of an object is not supported (tsad\'s objects have fixed fields, read by name)', 'read the fields by name, or keep the values in an array and loop over it with `for…of`');
      return;
    }
    const problem = forInProblem(d.name, s.statement, this.ctx.checker);
    if (problem) {
      this.err(problem.node, problem.message, problem.hint);
      return;
    }
    const pre: Stmt[] = this.takePre();
    arr = this.walkedArray(s.expression, arr, s.statement, pre);
    const i = this.declareVar(d, d.name.text, INT);
    this.forInKeys.add(i);
    // (keys added during the loop are not visited, keys removed before their turn are skipped)
    const n = mayResize(s.statement) ? this.fresh('keyCount') : null;
    if (n) pre.push({ k: 'decl', name: n, ty: INT, init: { k: 'len', obj: arr }, konst: true, loc: this.ctx.locOf(s.expression) });
    const loop = countedFor(i, { k: 'len', obj: arr }, this.stmts(s.statement)) as Extract<Stmt, { k: 'for' }>;
    if (n) loop.cond = { k: 'bin', op: '&&', a: { k: 'bin', op: '<', a: { k: 'var', name: i, ty: INT }, b: { k: 'var', name: n, ty: INT }, ty: BOOL }, b: loop.cond!, ty: BOOL };
    for (const p of pre) push(p);
    push({ ...loop, label, loc: this.ctx.locOf(s) });
  }

  /**
   * The array a `for…of` or `for…in` walks, evaluated once: a temporary where it is not a variable, or
   * where the body assigns that variable (JavaScript walks the array the expression gave).
   */
  private walkedArray(node: ts.Expression, arr: Expr, body: ts.Statement, pre: Stmt[]): Expr {
    const iterated = skipParens(node);
    const rebound = arr.k === 'var' && ts.isIdentifier(iterated) && isAssignedIn(iterated, body, this.ctx.checker);
    if ((arr.k === 'var' || arr.k === 'global') && !rebound) return arr;
    const t = this.fresh('items');
    pre.push({ k: 'decl', name: t, ty: tyOf(arr), init: arr, konst: true, loc: this.ctx.locOf(node) });
    return { k: 'var', name: t, ty: tyOf(arr) };
  }

  private varDeclList(list: ts.VariableDeclarationList): Stmt[] {
    const out: Stmt[] = [];
    const konst = (list.flags & ts.NodeFlags.Const) !== 0;
    const isVar = isVarList(list);
    if (!isVar && !(list.flags & (ts.NodeFlags.Const | ts.NodeFlags.Let))) {
      this.err(list, '`using` declarations are not supported', 'use `let` or `const`');
      return out;
    }
    for (const d of list.declarations) {
      const binding = isVar ? this.vars.get(d) : undefined;
      if (binding?.hoisted) {
        // one function-wide variable (declared at the top): `var x = e` assigns it, `var x;` does nothing
        out.push(...this.hoistedDecl(d));
        continue;
      }
      if (!d.initializer) {
        if (!ts.isIdentifier(d.name)) {
          this.err(d, 'destructuring needs an initializer');
          continue;
        }
        const ty = this.bareLetType(d) ?? this.tyOrErr(d.name, `variable '${d.name.text}'`);
        if (!ty) {
          this.silence(d);
          continue;
        }
        const later = ty.k === 'opt' ? assignedOnceLater(d, this.ctx.checker) : null;
        if (later) {
          // declared where it takes its one value (the statement `x = e` lowers as `const x = e`)
          this.nullableInits.set(later, { name: this.declareVar(d, d.name.text, ty), ty, decl: d });
          continue;
        }
        if (ty.k === 'opt' && !konst && isSplittable(ty)) {
          // a nullable number assigned later, maybe many times: a number and a flag (nullable-locals.ts)
          const name = this.declareVar(d, d.name.text, ty);
          this.splitLocals.add(name);
          out.push({ k: 'decl', name, ty, init: null, konst: false, loc: this.ctx.locOf(d) });
          continue;
        }
        if (ty.k === 'opt') {
          this.err(d.name, `the nullable variable '${d.name.text}' must be \`const\` with an initializer`, 'keep a number and test a separate flag, or assign it once, in the block that declares it');
          this.silence(d);
          continue;
        }
        const name = this.declareVar(d, d.name.text, ty);
        out.push({ k: 'decl', name, ty, init: null, konst, loc: this.ctx.locOf(d) });
        continue;
      }
      const x = skipParens(d.initializer);
      const reported = this.ctx.diags.list.length;
      if (this.closures.declareChoice(d) || this.closures.declareMade(d)) {
        // `const ease = c ? f : g`, `const model = makeModel(k)`: followed at their calls (src/frontend/closures.ts); refused: their uses stay silent
        out.push(...this.takePre());
        if (this.ctx.diags.list.length > reported) this.silence(d);
        continue;
      }
      if (this.callbacks.declareLocal(d, konst || isFixedBinding(d, this.ctx.checker))) {
        // `const f = (v) => …`, written out where it is passed or called; refused: its uses stay silent
        if (this.ctx.diags.list.length > reported) this.silence(d);
        continue;
      }
      if (ts.isIdentifier(d.name) && isCallbackCall(x) && !isMappedFrom(x)) {
        // `const ys = xs.map(…)`: the new array or the accumulator is the variable itself
        const r = this.callbacks.lower(x, d);
        if (r !== undefined) {
          out.push(...this.takePre());
          if (!r) this.silence(d);
          else if (!r.bound) out.push(...this.bindTarget(d.name, r.value, konst, d));
          continue;
        }
      }
      if (ts.isIdentifier(d.name) && ts.isCallExpression(x) && isMappedFrom(x)) {
        // the filled array is the variable itself: no temporary
        if (!this.arrayFrom(x, d.name.text, d)) this.silence(d);
        out.push(...this.takePre());
        continue;
      }
      const absentOr = ts.isBinaryExpression(x) && (x.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken || (x.operatorToken.kind === ts.SyntaxKind.BarBarToken && this.objectOrAbsent(x.left)));
      if (ts.isIdentifier(d.name) && (ts.isConditionalExpression(x) || absentOr) && branchHasCallback(x)) {
        // `const m = c ? xs.reduce(…) : 0`, `const w = weights ?? xs.map(…)` (or `weights || …`, the
        // same where weights is an array or object: never falsy when present): an `if`, each branch
        // running its own loop (written in the condition, the loop would run whichever way it goes)
        const st = this.chosenDecl(d, d.name, x);
        if (!st) this.silence(d);
        else out.push(...st);
        continue;
      }
      const untyped = untypedArrayDecl(this.hooks, d, konst);
      if (untyped) {
        out.push(...this.takePre(), ...untyped);
        continue;
      }
      const init = this.initExpr(d.initializer, ts.isIdentifier(d.name) ? d.name.text : 'tmp');
      out.push(...this.takePre());
      if (!init) {
        this.silence(d);
        continue;
      }
      out.push(...this.bindTarget(d.name, init, konst, d));
    }
    return out;
  }

  /** an array or object, maybe null or undefined (never false): `||` on it is `??` */
  private objectOrAbsent(e: ts.Expression): boolean {
    const t = this.ctx.checker.getTypeAtLocation(e);
    if (!t.isUnion()) return (t.flags & ts.TypeFlags.Object) !== 0;
    return t.types.every((p) => p.flags & (ts.TypeFlags.Null | ts.TypeFlags.Undefined) || (p.flags & ts.TypeFlags.Object) !== 0);
  }

  /**
   * `const v = c ? a : b` or `const v = o ?? b` (or `o || b`, o an array or object) where a branch
   * calls an array method with a callback: `let v; if (c) { …a's loop; v = a } else { …b's loop; v = b }`,
   * so that each loop runs only where its branch is taken.
   */
  private chosenDecl(d: ts.VariableDeclaration, name: ts.Identifier, x: ts.ConditionalExpression | ts.BinaryExpression): Stmt[] | null {
    const ty = this.tyOrErr(name, `variable '${name.text}'`);
    if (!ty) return null;
    const loc = this.ctx.locOf(d);
    let c: Expr | null, whenTrue: () => Expr | null, whenFalse: ts.Expression;
    if (ts.isConditionalExpression(x)) {
      c = this.cond(x.condition);
      whenTrue = () => this.expr(x.whenTrue);
      whenFalse = x.whenFalse;
    } else {
      // `o ?? b`: o where it is present (read narrowed), b elsewhere
      const o = this.expr(x.left);
      const ot = o && tyOf(o);
      // (`ws || xs.map(…)` where ws is an array or object that is always there: ws, the right never runs)
      if (o && ot && (ot.k === 'arr' || ot.k === 'obj' || ot.k === 'tuple') && x.operatorToken.kind === ts.SyntaxKind.BarBarToken) {
        this.unfolded.add(x);
        return [...this.takePre(), ...this.bindTarget(name, o, false, d)];
      }
      if (!o || !ot || ot.k !== 'opt' || !(o.k === 'var' || o.k === 'field')) return this.err(x.left, `the left operand of \`${x.operatorToken.getText()}\` before an array method with a callback must be a variable or a field that may be absent`, 'test it with an `if` and compute each case in its branch');
      c = ot.none.map((n): Expr => ({ k: 'bin', op: '!==', a: o, b: n === 'null' ? NULL : { k: 'undef' }, ty: BOOL })).reduce((a, b) => ({ k: 'bin', op: '&&', a, b, ty: BOOL }));
      whenTrue = () => ({ ...o, ty: ot.base, nn: true });
      whenFalse = x.right;
    }
    if (!c) return null;
    this.unfolded.add(x);
    const pre = this.takePre();
    const a = whenTrue();
    const then = this.takePre();
    const b = this.expr(whenFalse);
    const els = this.takePre();
    if (!a || !b) return null;
    const v = this.declareVar(d, name.text, ty);
    const target: Extract<Expr, { k: 'var' }> = { k: 'var', name: v, ty };
    return [
      ...pre,
      { k: 'decl', name: v, ty, init: null, konst: false, loc },
      { k: 'if', c, then: [...then, { k: 'assign', target, value: a, loc }], else: [...els, { k: 'assign', target, value: b, loc }], loc },
    ];
  }

  /**
   * `c ? xs.map(…) : ys`, `a || xs.some(…)`, `a && ++k < n` inside a larger expression, where a branch
   * calls an array method with a callback or holds an assignment or increment: an `if` before the
   * statement, each branch running its own loop or effect, and the expression reads the value it chose
   * (`chosen`, `test`). Undefined where this does
   * not apply (no such branch, or the expression itself sits in a branch that is not unfolded: there the
   * callback's refusal stands).
   */
  private branchesAsIf(e: ts.ConditionalExpression | ts.BinaryExpression): Expr | null | undefined {
    if (this.unfolded.has(e) || !(branchHasCallback(e) || branchHasEffect(e)) || !this.runsWhereItStands(e)) return undefined;
    const loc = this.ctx.locOf(e);
    if (ts.isConditionalExpression(e)) {
      const c = this.cond(e.condition);
      if (!c) return null;
      this.unfolded.add(e);
      const pre = this.takePre();
      const a = this.expr(e.whenTrue);
      const then = this.takePre();
      const b = this.expr(e.whenFalse);
      const els = this.takePre();
      this.pre = pre;
      if (!a || !b) return null;
      const ta = tyOf(a), tb = tyOf(b);
      let ty = ta.k === 'int' && tb.k === 'int' ? INT : ta.k === 'int' ? tb : ta;
      if (ta.k === 'void' || tb.k === 'void') ty = this.ctx.typeAt(e) ?? ty;
      const target: Extract<Expr, { k: 'var' }> = { k: 'var', name: this.fresh('chosen'), ty };
      this.pre.push({ k: 'decl', name: target.name, ty, init: null, konst: false, loc }, { k: 'if', c, then: [...then, { k: 'assign', target, value: a, loc }], else: [...els, { k: 'assign', target, value: b, loc }], loc });
      return target;
    }
    // (`a || b` as a value other than a test is refused where it is lowered: only booleans here)
    const test = this.tested.has(e);
    if (!test && !(this.ctx.checker.getTypeAtLocation(e).flags & ts.TypeFlags.BooleanLike)) return undefined;
    const a0 = test ? this.cond(e.left) : this.expr(e.left);
    const a = a0 && (test ? this.truthiness(e.left, a0) : a0);
    if (!a) return null;
    this.unfolded.add(e);
    const target: Extract<Expr, { k: 'var' }> = { k: 'var', name: this.fresh('test'), ty: BOOL };
    this.pre.push({ k: 'decl', name: target.name, ty: BOOL, init: a, konst: false, loc });
    const pre = this.takePre();
    const b0 = test ? this.cond(e.right) : this.expr(e.right);
    const b = b0 && (test ? this.truthiness(e.right, b0) : b0);
    const right = this.takePre();
    this.pre = pre;
    if (!b) return null;
    const or = e.operatorToken.kind === ts.SyntaxKind.BarBarToken;
    this.pre.push({ k: 'if', c: or ? { k: 'un', op: '!', a: target, ty: BOOL } : target, then: [...right, { k: 'assign', target, value: b, loc }], else: [], loc });
    return target;
  }

  /** whether `e` is evaluated whenever its statement runs: in no branch of `?:`, `&&`, `||`, `??` left folded */
  private runsWhereItStands(e: ts.Node): boolean {
    let c: ts.Node = e;
    while (c.parent && ts.isExpression(c.parent) && !ts.isArrowFunction(c.parent) && !ts.isFunctionExpression(c.parent)) {
      const p = c.parent;
      if (this.unfolded.has(p)) return true;
      if (ts.isConditionalExpression(p) && c !== p.condition) return false;
      if (ts.isBinaryExpression(p) && c === p.right && [ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken].includes(p.operatorToken.kind)) return false;
      c = p;
    }
    return true;
  }

  /** `var x = e` of a hoisted binding: an assignment (`var x;` assigns nothing: x keeps its value). */
  private hoistedDecl(d: ts.VariableDeclaration): Stmt[] {
    const v = this.varOf.get(d);
    if (!v || !d.initializer) return []; // refused in hoistVars (reported there), or nothing to assign
    const value = this.initExpr(d.initializer, v.name);
    const pre = this.takePre();
    if (!value) return pre;
    return [...pre, { k: 'assign', target: { k: 'var', name: v.name, ty: v.ty, loc: this.ctx.locOf(d.name) }, value, loc: this.ctx.locOf(d) }];
  }

  /** a name bound by a parameter pattern (`f({ a, b }: Opts)`) that the body never assigns */
  private isConstantPatternParam(name: ts.Identifier): boolean {
    let n: ts.Node = name.parent;
    while (ts.isBindingElement(n) || ts.isObjectBindingPattern(n) || ts.isArrayBindingPattern(n)) n = n.parent;
    return ts.isParameter(n) && n.name !== name && !isAssignedIn(name, (n.parent as ts.FunctionLikeDeclaration).body, this.ctx.checker);
  }

  /** Declares the names of a binding (identifier or pattern) from `init`. */
  private bindTarget(name: ts.BindingName, init: Expr, konst: boolean, declNode: ts.Node): Stmt[] {
    const loc = this.ctx.locOf(declNode);
    if (ts.isIdentifier(name)) {
      let ty = untypedReadType(this.hooks, name, init) ?? this.tyOrErr(name, `variable '${name.text}'`);
      if (!ty) {
        this.silence(declNode as ts.VariableDeclaration);
        return [];
      }
      const past = pastEndBinding(this.hooks, name, init, ty);
      if (past) ({ init, ty } = past);
      // a `let`/`var` that nothing assigns again (`var tol = opts === void 0 ? void 0 : opts.tol;`, down-levelled code) is a constant
      if (ty.k === 'opt' && !konst && ts.isVariableDeclaration(declNode) && declNode.name === name && isNeverAssigned(declNode, [declNode.getSourceFile()], this.ctx.checker)) konst = true;
      if (ty.k === 'opt' && !konst && !this.isConstantPatternParam(name) && !(isSplittable(ty) && ts.isVariableDeclaration(declNode))) {
        if ((ty.base.k === 'num' || ty.base.k === 'int') && ty.none.length > 1) {
          this.err(name, `the nullable variable '${name.text}' is assigned again and may hold both null and undefined: tsad keeps such a variable as a number and a flag, which cannot tell the two apart`, `declare it \`number | null\` (or \`number | undefined\`) and use that one for "no value"`);
          this.silence(declNode as ts.VariableDeclaration);
          return [];
        }
        this.err(name, `the nullable variable '${name.text}' must be \`const\``, 'keep a number and test a separate flag, or write `const` and give each new value its own name');
        this.silence(declNode as ts.VariableDeclaration); // its uses are not reported again
        return [];
      }
      const n = this.declareVar(declNode, name.text, ty);
      if (ty.k === 'opt' && !konst) this.splitLocals.add(n);
      const literal = init.k === 'num' || (init.k === 'un' && init.op === '-' && init.a.k === 'num');
      const widened = konst && literal && ts.isVariableDeclaration(declNode) && !!declNode.type;
      return [{ k: 'decl', name: n, ty, init, konst, loc, ...(widened ? { widened } : {}) }];
    }
    const out: Stmt[] = [];
    let src = init;
    if (init.k !== 'var' && init.k !== 'global') {
      const t = this.fresh('tmp');
      out.push({ k: 'decl', name: t, ty: tyOf(init), init, konst: true, loc });
      src = { k: 'var', name: t, ty: tyOf(init) };
    }
    if (ts.isArrayBindingPattern(name)) {
      name.elements.forEach((el, i) => {
        if (ts.isOmittedExpression(el)) return;
        if (el.dotDotDotToken) {
          const rest = restElement(this.hooks, el, src, tyOf(src), i, konst, loc);
          if (rest) out.push(...rest);
          else this.silence(el);
          return;
        }
        const e: Expr | null = this.withInitializer(el, { k: 'idx', obj: src, index: { k: 'num', v: i }, ty: elemTy(tyOf(src), { k: 'num', v: i }) }, out);
        if (e) out.push(...this.bindTarget(el.name, e, konst, el));
      });
    } else {
      for (const el of name.elements) {
        if (el.dotDotDotToken) {
          const rest = objectRest(this.hooks, el, src, tyOf(src), konst, loc);
          if (rest) out.push(...rest);
          else this.silence(el);
          continue;
        }
        const prop = el.propertyName ?? el.name;
        if (!ts.isIdentifier(prop)) {
          this.err(el, 'computed keys in destructuring are not supported', 'read the field explicitly: `const v = o[key]`');
          this.silence(el);
          continue;
        }
        const read = patternField(src, prop.text);
        if (!read) {
          this.err(el, notAField(tyOf(src)), 'read `.length`, or index the array');
          this.silence(el);
          continue;
        }
        const e = this.withInitializer(el, read, out);
        if (e) out.push(...this.bindTarget(el.name, e, konst, el));
      }
    }
    return out;
  }

  /** a binding element's value with its default (`{ k = 2 }`: `o.k === undefined ? 2 : o.k`) */
  private withInitializer(el: ts.BindingElement, value: Expr, out: Stmt[]): Expr | null {
    if (!el.initializer) return value;
    if (refuseActiveDefault(el.initializer, (n, m, h) => this.err(n, m, h))) return null;
    const d = this.expr(el.initializer);
    out.push(...this.takePre());
    // past the end of a tuple the value is undefined by its type: the default itself (reading it would not type-check)
    const st = value.k === 'idx' ? tyOf(value.obj) : null;
    if (d && st?.k === 'tuple' && value.k === 'idx' && value.index.k === 'num' && value.index.v >= st.elems.length) return d;
    return d && withDefault(value, d);
  }

  /** Initializers may be `Array.from(...)`, which lowers to an allocation and a filling loop. */
  private initExpr(e: ts.Expression, target: string): Expr | null {
    const x = skipParens(e);
    if (ts.isCallExpression(x) && isMappedFrom(x)) return this.arrayFrom(x, target);
    return this.expr(e);
  }

  private arrayFrom(call: ts.CallExpression, target: string, declNode?: ts.Node): Expr | null {
    const [src, cb] = call.arguments;
    const keysOf = src && !cb ? keysCall(src) : null;
    if (keysOf) return indexRange(this.hooks, call, keysOf, this.ctx.typeAt(call), declNode && ((ty) => this.declareVar(declNode, target, ty)));
    if (src && !cb && call.arguments.length === 1 && !ts.isObjectLiteralExpression(src)) {
      const copy = arrayFromCopy(this.hooks, call, src);
      if (!copy || !declNode) return copy;
      const t = this.declareVar(declNode, target, tyOf(copy));
      const konst = ts.isVariableDeclaration(declNode) && (ts.getCombinedNodeFlags(declNode) & ts.NodeFlags.Const) !== 0;
      this.pre.push({ k: 'decl', name: t, ty: tyOf(copy), init: copy, konst, loc: this.ctx.locOf(call) });
      return { k: 'var', name: t, ty: tyOf(copy) };
    }
    const lenProp =
      src && ts.isObjectLiteralExpression(src) && src.properties.length === 1 && ts.isPropertyAssignment(src.properties[0]) &&
      ts.isIdentifier(src.properties[0].name) && src.properties[0].name.text === 'length'
        ? src.properties[0].initializer
        : null;
    if (!lenProp && isCallbackCall(call)) {
      // `Array.from(xs, (v, i) => …)`: a map (src/frontend/callbacks.ts)
      const r = this.callbacks.lower(call, declNode as ts.VariableDeclaration | undefined);
      return r ? r.value : null;
    }
    if (!lenProp || !cb || !(ts.isArrowFunction(cb) || ts.isFunctionExpression(cb)) || (ts.isBlock(cb.body) && !endsInOnlyReturn(cb.body))) {
      return this.err(call, 'only `Array.from({ length: n }, (_, i) => …)` is supported, its callback an expression or a block ending in its one `return`', 'or allocate with `new Float64Array(n)` and fill it in a loop');
    }
    if (this.condDepth > 0) return this.err(call, '`Array.from` inside a condition is not supported', 'assign it to a variable first');
    const len = this.expr(lenProp);
    if (!len) return null;
    const loc = this.ctx.locOf(call);
    let bodyExpr: ts.Expression;
    let leading: readonly ts.Statement[] = [];
    if (ts.isBlock(cb.body)) {
      const last = cb.body.statements[cb.body.statements.length - 1] as ts.ReturnStatement;
      bodyExpr = last.expression!;
      leading = cb.body.statements.slice(0, -1);
    } else bodyExpr = cb.body;
    const ip = cb.parameters[1];
    const usesIndex = !!ip;
    const i = ip && ts.isIdentifier(ip.name) ? this.declareVar(ip, ip.name.text, INT) : this.fresh('i');
    const saved = this.takePre();
    // (the block's statements before its `return` run in each pass, before the value)
    const before: Stmt[] = [];
    for (const st of leading) this.stmt(st, before);
    const value = this.expr(bodyExpr);
    const inner = [...before, ...this.takePre()];
    this.pre = saved;
    if (!value) return null;
    // TypeScript types the result `any[]` when the callback reads an untyped `var`: the element is what the callback returns
    const ty = this.ctx.typeAt(call) ?? (this.isAnyArray(call) && (tyOf(value).k === 'num' || tyOf(value).k === 'int') ? arrOf(tyOf(value)) : this.tyOrErr(call, 'Array.from result'));
    if (!ty || ty.k !== 'arr') return null;
    const t = declNode ? this.declareVar(declNode, target, ty) : this.fresh(target);
    const tv: Expr = { k: 'var', name: t, ty };
    const elem = ty.elem;
    const simpleFill = !usesIndex && inner.length === 0 && value.k === 'num' && elem.k === 'num';
    this.pre.push({ k: 'decl', name: t, ty, init: { k: 'alloc', len, fill: simpleFill ? value : elem.k === 'num' ? { k: 'num', v: 0 } : null, ty }, konst: false, loc });
    if (!simpleFill) {
      const iv: Expr = { k: 'var', name: i, ty: INT };
      this.pre.push({ ...countedFor(i, { k: 'len', obj: tv }, [...inner, { k: 'assign', target: { k: 'idx', obj: tv, index: iv, ty: elem }, value }]), loc });
    }
    return tv;
  }

  /**
   * `a ||= v`, `a &&= v` (a number or boolean) and `y ??= v` (a nullable local), as statements: an `if`
   * on the old value whose branch evaluates `v` and assigns it, as JavaScript assigns only then.
   */
  private logicalAssign(e: ts.BinaryExpression, op: '||' | '&&' | '??'): Stmt | null {
    const loc = this.ctx.locOf(e);
    const target = this.lvalue(e.left, true);
    if (!target) return null;
    this.checkSimpleTarget(e.left, target);
    const old = this.expr(e.left);
    if (!old) return null;
    const t = tyOf(old);
    let c: Expr;
    if (op === '??') {
      if (t.k !== 'opt') return this.err(e, `\`??=\` on a value that is never null or undefined assigns nothing`, `remove it, or declare '${e.left.getText()}' nullable`);
      const absentTest = (n: string): Expr => ({ k: 'bin', op: '===', a: old, b: n === 'null' ? NULL : { k: 'undef' }, ty: BOOL });
      c = t.none.map(absentTest).reduce((a, b) => ({ k: 'bin', op: '||', a, b, ty: BOOL }));
    } else {
      if (t.k !== 'num' && t.k !== 'int' && t.k !== 'bool') return this.err(e, `\`${op}=\` is supported on numbers and booleans`, `write \`if (${op === '||' ? '!' : ''}${e.left.getText()}) ${e.left.getText()} = …;\``);
      const not: Expr = { k: 'un', op: '!', a: old, ty: BOOL };
      c = op === '||' ? not : t.k === 'bool' ? old : { k: 'un', op: '!', a: not, ty: BOOL };
    }
    // (the value's own statements run only in the branch, as JavaScript evaluates it only then)
    const saved = this.takePre();
    const value = this.initExpr(e.right, target.k === 'var' ? target.name : 'tmp');
    const inner = this.takePre();
    this.pre = saved;
    if (!value) return null;
    return { k: 'if', c, then: [...inner, { k: 'assign', target, value, loc }], else: [], loc };
  }

  private updateList(e: ts.Expression, out: Stmt[]): void {
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.CommaToken) {
      this.updateList(e.left, out);
      this.updateList(e.right, out);
      return;
    }
    const st = this.exprStmt(e);
    out.push(...this.takePre()); // effects inside the update run before it, at each update
    if (st) out.push(st);
  }

  /**
   * An assignment's target. `updates`: the target's old value is read first (`+=`, `++`): an optional
   * field asserted present (`o.f! += v`) may then be updated, as it already holds a number (when it does
   * not, JavaScript gives NaN, and so does its derivative); an optional field is never created here.
   */
  private lvalue(e: ts.Expression, updates = false): Extract<Expr, { k: 'var' | 'idx' | 'field' }> | null {
    if (accessorWrite(this.hooks, e, null, e.parent) !== undefined) return null; // through a setter: only `o.x = v;`
    const x = this.expr(e);
    if (!x) return null;
    if (ts.isIdentifier(e) && x.k === 'var') {
      const r = this.resolve(e);
      if (r?.kind === 'local' && !this.splitLocals.has(r.name) && !assignsNullable(this.hooks, e, r.ty, e.text)) return null;
    }
    let written = e;
    while (ts.isParenthesizedExpression(written) && !assertsPresent(written)) written = written.expression;
    const asserted = updates && x.k === 'field' && assertsPresent(written) && (x.ty.k === 'opt' ? x.ty.base : x.ty).k === 'num';
    if (asserted) return { ...x, ty: NUM, nn: true };
    if (x.k === 'field' && (x.nn || x.ty.k === 'opt'))
      return this.err(e, `the optional field '${x.name}' cannot be assigned in differentiated code`, updates ? `update it asserted present (\`${ts.isPropertyAccessExpression(e) ? e.getText() : x.name}! += …\`), or build a new object with the field set` : 'build a new object with the field set');
    if (x.k === 'var' || x.k === 'idx' || x.k === 'field') return x;
    if (x.k === 'global') return this.err(e, `module constant '${x.name}' cannot be assigned`, 'copy it into a local variable');
    // (`o[kind]` with `kind` a union of string literals reads the field it names, through a test)
    if (x.k === 'cond' && ts.isElementAccessExpression(written)) {
      const o = written.expression.getText(), key = written.argumentExpression.getText();
      return this.err(e, `a field chosen by a string-literal key (\`${o}[${key}]\`) is read, not assigned, in differentiated code`, `assign the field by name in a test of the key: \`if (${key} === '…') ${o}.… = …; else …\``);
    }
    return this.err(e, 'this assignment target is not supported', 'assign to a variable, an array element or an object field');
  }

  /** is `o.name` a field of an object (a class instance, an interface), not an array's property? */
  private isObjectField(e: ts.PropertyAccessExpression): boolean {
    const t = this.ctx.checker.getTypeAtLocation(e.expression);
    return !this.ctx.checker.isArrayType(t) && !this.ctx.checker.isTupleType(t) && !/Array$/.test(t.symbol?.name ?? '') && !!t.getProperty(e.name.text);
  }

  /** is this expression an instance of a class (whose methods may share names with arrays')? */
  private isClassInstance(e: ts.Expression): boolean {
    const sym = this.ctx.checker.getTypeAtLocation(e).getSymbol();
    return !!sym && !!(sym.flags & ts.SymbolFlags.Class);
  }

  private exprStmt(e0: ts.Expression): Stmt | null {
    const e = skipParens(e0);
    const loc = this.ctx.locOf(e);
    if (ts.isBinaryExpression(e)) {
      const k = e.operatorToken.kind;
      if (k === ts.SyntaxKind.EqualsToken) {
        if (ts.isArrayLiteralExpression(e.left) || ts.isObjectLiteralExpression(e.left)) {
          if (!this.destructuring.lower(e)) return null;
          return this.pre.pop() ?? null; // its last store is the statement, what comes before it goes first
        }
        const viaSetter = accessorWrite(this.hooks, e.left, e.right, e);
        if (viaSetter !== undefined) return viaSetter;
        // (an array's length; a field named `length` of an object is a field)
        if (ts.isPropertyAccessExpression(e.left) && e.left.name.text === 'length' && !this.isObjectField(e.left)) return this.lengthAssignment(e);
        const target = this.lvalue(e.left);
        const value = target && this.initExpr(e.right, target.k === 'var' ? target.name : 'tmp');
        if (!target || !value) return null;
        // `a[a.length] = v` appends, as `a.push(v)` does: a store at an index read from the length it changes
        // would be undone (and its adjoint read) at the length after it
        if (appendsByIndex(target)) return { k: 'expr', e: { k: 'intr', fn: 'push', args: [target.obj, value], ty: VOID }, loc };
        return { k: 'assign', target, value, loc };
      }
      const op = COMPOUND_OPS[k];
      if (op) {
        const viaAccessors = accessorUpdate(this.hooks, e.left, op, e.right, e);
        if (viaAccessors !== undefined) return viaAccessors;
      }
      if (op && this.seq.rhsHasEffects(e)) return this.seq.compound(e, op);
      if (op) {
        const target = this.lvalue(e.left, true);
        const rhs = this.expr(e.right);
        if (!target || !rhs) return null;
        this.checkSimpleTarget(e.left, target);
        const ty = op === '|' ? INT : NUM;
        return { k: 'assign', target, value: { k: 'bin', op, a: target, b: rhs, ty }, op, loc };
      }
      if (k === ts.SyntaxKind.CommaToken) {
        // `a, b` as a statement: `a;` then `b;` (for headers: `i = 0, j = n - 1`, `i++, j--`)
        const first = this.exprStmt(e.left);
        if (first) this.pre.push(first);
        return this.exprStmt(e.right);
      }
    }
    if ((ts.isPrefixUnaryExpression(e) || ts.isPostfixUnaryExpression(e)) && (e.operator === ts.SyntaxKind.PlusPlusToken || e.operator === ts.SyntaxKind.MinusMinusToken)) {
      const viaAccessors = accessorUpdate(this.hooks, e.operand, e.operator === ts.SyntaxKind.PlusPlusToken ? '+' : '-', null, e);
      if (viaAccessors !== undefined) return viaAccessors;
      const target = this.lvalue(e.operand, true);
      if (!target) return null;
      this.checkSimpleTarget(e.operand, target);
      const op: BinOp = e.operator === ts.SyntaxKind.PlusPlusToken ? '+' : '-';
      return { k: 'assign', target, value: { k: 'bin', op, a: target, b: { k: 'num', v: 1 }, ty: NUM }, op, inc: true, loc };
    }
    if (ts.isCallExpression(e)) {
      // (a class's own `push` or `fill` method is a method call like any other)
      const arrayMethodOf = (name: string) => ts.isPropertyAccessExpression(e.expression) && e.expression.name.text === name && !this.isClassInstance(e.expression.expression);
      if (arrayMethodOf('fill')) return this.fillStmt(e);
      if (arrayMethodOf('push')) return this.pushStmt(e);
      if (arrayMethodOf('pop') && e.arguments.length === 0) {
        const arr = this.expr((e.expression as ts.PropertyAccessExpression).expression);
        return arr && this.popStmt(e, arr);
      }
      // imports from 'tsad/runtime' are not functions of the compilation: accept the call as a statement
      const x = this.expr(e);
      if (!x) return null;
      if (x.k === 'var' || x.k === 'undef') return null; // `a.reverse();`, `xs.forEach(…);`: its effect is in the statements lowered before it
      return { k: 'expr', e: x, loc };
    }
    if (ts.isBinaryExpression(e) && LOGICAL_ASSIGNMENTS.has(e.operatorToken.kind)) return this.logicalAssign(e, LOGICAL_ASSIGNMENTS.get(e.operatorToken.kind)!);
    // (a compound assignment with an operator COMPOUND_OPS lacks: none of today's; kept for one a later TypeScript adds)
    if (ts.isBinaryExpression(e) && e.operatorToken.kind >= ts.SyntaxKind.FirstCompoundAssignment && e.operatorToken.kind <= ts.SyntaxKind.LastCompoundAssignment) {
      const op = ts.tokenToString(e.operatorToken.kind) ?? '';
      return this.err(e, `the compound assignment \`${op}\` is not supported`, `write it out: \`${e.left.getText()} = ${e.left.getText()} ${op.slice(0, -1)} ${e.right.getText()}\``);
    }
    return this.err(e, 'this expression statement has no effect tsad can differentiate', 'write an assignment or a call');
  }

  /** `a.push(v)`: grows an array by one element (the adjoint pops it again). */
  private pushStmt(e: ts.CallExpression): Stmt | null {
    const pa = e.expression as ts.PropertyAccessExpression;
    const arr = this.expr(pa.expression);
    if (!arr) return null;
    const at = tyOf(arr);
    if (at.k !== 'arr' || at.typed || at.ro) return this.err(e, '`push` is supported on `number[]` and arrays of arrays only', 'allocate the array with its final length');
    const loc = this.ctx.locOf(e);
    const pushOf = (v: Expr): Stmt => ({ k: 'expr', e: { k: 'intr', fn: 'push', args: [arr, v], ty: VOID }, loc });
    const spread = e.arguments.find(ts.isSpreadElement);
    if (spread && e.arguments.length === 1) return this.pushSpread(spread, arr, pushOf, loc);
    if (spread) return this.err(spread, 'spreading into `push` beside other values is not supported', 'push the values in a loop: `for (const v of vs) a.push(v)`');
    if (e.arguments.length === 0) return this.err(e, '`push()` with no value does nothing', 'remove it');
    if (e.arguments.length === 1) {
      const v = this.expr(e.arguments[0]);
      return v && pushOf(v);
    }
    // `a.push(u, v)`: JavaScript evaluates every value before it pushes the first (a value may read
    // `a`): each is frozen into a constant unless it is a literal, then the pushes follow
    const values: Expr[] = [];
    for (const a of e.arguments) {
      const v = this.expr(a);
      if (!v) return null;
      values.push(v.k === 'num' ? v : this.constant(v, 'item', loc));
    }
    const pushes = values.map(pushOf);
    pushes[0].origin = 'array.pushmany';
    this.pre.push(...pushes.slice(0, -1));
    return pushes[pushes.length - 1];
  }

  /**
   * `a.push(...vs)` of numbers: JavaScript reads every value before it pushes the first, so the count is
   * taken first (`a.push(...a)` pushes the old elements once), then each is pushed in order.
   */
  private pushSpread(spread: ts.SpreadElement, arr: Expr, pushOf: (v: Expr) => Stmt, loc: Loc): Stmt | null {
    const src = this.expr(spread.expression);
    if (!src) return null;
    const st = tyOf(src);
    if (st.k !== 'arr' || (st.elem.k !== 'num' && st.elem.k !== 'int'))
      return this.err(spread, 'spreading into `push` is supported for arrays of numbers only', 'push the values in a loop: `for (const v of vs) a.push(v)`');
    const items = src.k === 'var' ? src : this.constant(src, 'items', loc);
    const n = this.constant({ k: 'len', obj: items }, 'count', loc);
    const z = this.fresh('k');
    const loop = countedFor(z, n, [pushOf({ k: 'idx', obj: items, index: { k: 'var', name: z, ty: INT }, ty: NUM })]);
    return { ...loop, loc, origin: 'array.pushspread' };
  }

  /**
   * `a.pop()`, its value unused: `if (a.length > 0) a.pop()` (the IR's pop needs an element to take off,
   * so that the adjoint can put it back). A popped row or object takes its shadow with it: the adjoint
   * records both and puts them back (adjoint/record.ts).
   */
  private popStmt(e: ts.Node, arr: Expr): Stmt | null {
    const at = tyOf(arr);
    if (at.k !== 'arr' || at.typed || at.ro)
      return this.err(e, '`pop` is supported on arrays (`number[]`, arrays of rows or of objects) only', 'keep a count of the elements in use instead of shortening the array');
    const loc = this.ctx.locOf(e);
    const pop: Stmt = { k: 'expr', e: { k: 'intr', fn: 'pop', args: [arr], ty: VOID }, loc };
    return { k: 'if', c: { k: 'bin', op: '>', a: { k: 'len', obj: arr }, b: { k: 'num', v: 0 }, ty: BOOL }, then: [pop], else: [], loc };
  }

  /**
   * `a.length = n` truncates the array in place: `while (a.length > n) a.pop()`, which every name of
   * the array sees. Growing an array this way leaves holes, which have no numbers: a RangeError.
   */
  private lengthAssignment(e: ts.BinaryExpression): Stmt | null {
    const arr = this.expr((e.left as ts.PropertyAccessExpression).expression);
    const n = arr && this.expr(e.right);
    if (!arr || !n) return null;
    if (!this.popStmt(e, arr)) return null;
    const loc = this.ctx.locOf(e);
    let len = n;
    if (n.k !== 'num' && n.k !== 'var') {
      const name = this.fresh('newLength');
      this.pre.push({ k: 'decl', name, ty: tyOf(n), init: n, konst: true, loc });
      len = { k: 'var', name, ty: tyOf(n) };
    }
    const count: Expr = { k: 'len', obj: arr };
    this.pre.push({ k: 'if', c: { k: 'bin', op: '>', a: len, b: count, ty: BOOL }, then: [{ k: 'throw', e: { k: 'raw', text: "new RangeError('tsad: a length assignment that grows an array is not supported (it would leave holes)')", ty: VOID }, loc }], else: [], loc });
    const body: Stmt[] = [{ k: 'expr', e: { k: 'intr', fn: 'pop', args: [arr], ty: VOID }, loc }];
    return { k: 'while', cond: { k: 'bin', op: '>', a: count, b: len, ty: BOOL }, body, loc, origin: 'assign.length' };
  }

  /** `a.fill(v)` on an existing array: lowered to a loop so its effect is explicit. */
  private fillStmt(e: ts.CallExpression): Stmt | null {
    const pa = e.expression as ts.PropertyAccessExpression;
    const arr = this.expr(pa.expression);
    if (!arr) return null;
    if (arr.k !== 'var' || e.arguments.length > 1) {
      // `o.a.fill(v)`, `m[i].fill(v)`: through a constant naming the array; `a.fill(v, start, end)`: its
      // bounds checked and clamped there too (src/frontend/arrays.ts)
      arrayMethod(this.hooks, e, 'fill', arr);
      return null;
    }
    const val = e.arguments[0] ? this.expr(e.arguments[0]) : null;
    if (!val) return null;
    const loop = fillLoop(this.hooks, arr, val, this.ctx.locOf(e));
    this.pre.push(...loop.slice(0, -1));
    return loop[loop.length - 1];
  }

  private checkSimpleTarget(node: ts.Node, t: Expr): void {
    let bad = false;
    const visit = (x: Expr) => {
      if (x.k === 'idx') {
        if (hasCall(x.index)) bad = true;
        visit(x.obj);
      } else if (x.k === 'field') visit(x.obj);
    };
    visit(t);
    if (bad) this.err(node, 'a compound assignment whose index calls a function is not supported', 'compute the index into a variable first');
  }

  private cond(e: ts.Expression): Expr | null {
    this.condDepth++;
    this.tested.add(skipParens(e));
    const r = this.expr(e);
    this.condDepth--;
    return r;
  }

  /**
   * An operand of `&&`/`||` in a test (`if (opts && opts.scale)`) counts only by its truthiness, so it
   * is lowered as a boolean: a number or a value that may be absent as `!!v`, an object or array in a
   * variable or field (never falsy) as `true`, an element `!(a[i] === undefined)`. Null where the
   * operand is none of these.
   */
  private truthiness(node: ts.Expression, v: Expr): Expr | null {
    const t = tyOf(v);
    if (t.k === 'bool') return v;
    if (t.k === 'num' || t.k === 'int' || t.k === 'opt') return { ...truthy(v), tt: true };
    if ((t.k === 'obj' || t.k === 'arr' || t.k === 'tuple') && (v.k === 'var' || v.k === 'field' || v.k === 'global')) return { k: 'bool', v: true, tt: true };
    // an element past the end is undefined: `rows[i] && …` is a bounds test
    if ((t.k === 'obj' || t.k === 'arr' || t.k === 'tuple') && v.k === 'idx') return { k: 'un', op: '!', a: { k: 'bin', op: '===', a: v, b: { k: 'undef' }, ty: BOOL }, ty: BOOL, tt: true };
    return this.err(node, `\`${node.getText()}\` cannot be tested for truthiness here`, 'compare it explicitly (`!== 0`, `!== null`)');
  }

  // ---------- expressions ----------
  expr(e0: ts.Expression): Expr | null {
    const e = skipParens(e0);
    const loc = this.ctx.locOf(e);
    const r = this.exprInner(e);
    if (r && !r.loc) r.loc = loc;
    return r && this.seq.settle(e, r);
  }

  private resolve(id: ts.Identifier): { kind: 'local'; name: string; ty: Ty } | { kind: 'global'; name: string; ty: Ty } | { kind: 'func'; name: string } | null {
    const checker = this.ctx.checker;
    let sym = ts.isShorthandPropertyAssignment(id.parent) ? checker.getShorthandAssignmentValueSymbol(id.parent) : checker.getSymbolAtLocation(id);
    if (!sym) return null;
    if (sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    for (const decl of sym.declarations ?? []) {
      const local = this.varOf.get(decl);
      if (local) return { kind: 'local', ...local };
      const fn = this.ctx.funcByDecl.get(decl);
      if (fn) return { kind: 'func', name: fn };
      const g = this.ctx.globalByDecl.get(decl);
      if (g) {
        const gc = this.ctx.mod.globals.get(g);
        if (gc) return { kind: 'global', name: g, ty: gc.ty };
      }
    }
    return null;
  }

  private exprInner(e: ts.Expression): Expr | null {
    const given = this.chainObjects.get(e);
    if (given) return given;
    if (isChainEnd(e) && !this.chains.has(e)) {
      this.chains.add(e);
      const r = optionalChain(this.hooks, e);
      this.chains.delete(e);
      return r;
    }
    if (ts.isNumericLiteral(e)) return { k: 'num', v: Number(e.text), raw: e.getText() };
    if (e.kind === ts.SyntaxKind.TrueKeyword) return { k: 'bool', v: true };
    if (e.kind === ts.SyntaxKind.FalseKeyword) return { k: 'bool', v: false };
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return { k: 'str', v: e.text };
    if (ts.isIdentifier(e)) return this.identifier(e);
    if (e.kind === ts.SyntaxKind.ThisKeyword || e.kind === ts.SyntaxKind.SuperKeyword) {
      if (this.self) return { k: 'var', name: this.self.name, ty: this.self.ty };
      return this.err(e, '`this` outside a method, getter, setter or constructor is not supported', this.d?.member?.kind === 'static' ? 'in a static method, name the class: `C.method(…)`' : 'pass the object as a parameter');
    }
    if (ts.isBinaryExpression(e)) return this.binary(e);
    if (ts.isPrefixUnaryExpression(e)) {
      if (e.operator === ts.SyntaxKind.PlusPlusToken || e.operator === ts.SyntaxKind.MinusMinusToken) return this.seq.increment(e);
      // `!(opts && opts.k)`: the negation of a test is a test
      if (e.operator === ts.SyntaxKind.ExclamationToken && this.tested.has(e)) this.tested.add(skipParens(e.operand));
      const a = this.expr(e.operand);
      if (!a) return null;
      if (tyOf(a).k === 'opt' && e.operator !== ts.SyntaxKind.ExclamationToken) {
        const t = this.ctx.checker.typeToString(this.ctx.checker.getTypeAtLocation(e.operand));
        return this.err(e.operand, `'${e.operand.getText()}' has type '${t}' here: it may be absent where \`${ts.tokenToString(e.operator)}\` uses it`, `test it first (\`if (${e.operand.getText()} !== undefined)\`), or give it a default: \`(${e.operand.getText()} ?? 0)\``);
      }
      if (e.operator === ts.SyntaxKind.MinusToken) {
        if (a.k === 'num' && !a.raw?.startsWith('-')) return { k: 'num', v: -a.v, raw: a.raw !== undefined ? '-' + a.raw : undefined };
        return { k: 'un', op: '-', a, ty: tyOf(a).k === 'int' ? INT : NUM };
      }
      if (e.operator === ts.SyntaxKind.PlusToken) return { k: 'un', op: '+', a, ty: tyOf(a).k === 'int' ? INT : NUM };
      if (e.operator === ts.SyntaxKind.ExclamationToken) return { k: 'un', op: '!', a, ty: BOOL };
      if (e.operator === ts.SyntaxKind.TildeToken) return { k: 'un', op: '~', a, ty: INT };
    }
    if (ts.isPostfixUnaryExpression(e)) return this.seq.increment(e);
    if (ts.isConditionalExpression(e)) {
      const unfolded = this.branchesAsIf(e);
      if (unfolded !== undefined) return unfolded;
      const c = this.cond(e.condition);
      this.condDepth++;
      const a = this.expr(e.whenTrue);
      const b = this.expr(e.whenFalse);
      this.condDepth--;
      if (!c || !a || !b) return null;
      const ta = tyOf(a), tb = tyOf(b);
      let ty = ta.k === 'int' && tb.k === 'int' ? INT : ta.k === 'int' ? tb : ta;
      // `c ? null : x`, `c ? void 0 : x`: a nullable value, as the checker types it
      if (ta.k === 'void' || tb.k === 'void') ty = this.ctx.typeAt(e) ?? ty;
      return { k: 'cond', c, a, b, ty };
    }
    if (ts.isCallExpression(e)) return this.call(e);
    if (ts.isNewExpression(e)) return this.newExpr(e);
    if (ts.isElementAccessExpression(e)) {
      const obj = this.placed(e.expression, this.expr(e.expression));
      const index = obj && this.expr(e.argumentExpression);
      if (!obj || !index) return null;
      const ot = tyOf(obj);
      // `o['rate']`: a field named by a string literal is that field
      if (ot.k === 'obj' && index.k === 'str' && ot.fields.some((f) => f.name === index.v)) return { k: 'field', obj, name: index.v, ty: fieldTy(ot, index.v) };
      if (ot.k === 'obj' && index.k === 'str' && /^[A-Za-z_$][\w$]*$/.test(index.v))
        return this.err(e, `'${index.v}' is not a data field of this object (a getter or a method is read by name only)`, `write \`${e.expression.getText()}.${index.v}\``);
      // `SIGN[kind]`, `kind` one of string literals each naming a field of one type: the field it names
      const byLiteral = ot.k === 'obj' ? literalKeyRead(obj, index) : null;
      if (byLiteral) return byLiteral;
      if (ot.k !== 'arr' && ot.k !== 'tuple') return this.err(e, 'dynamic keys (`obj[key]`) on objects are not supported', ot.k === 'obj' && tyOf(index).k === 'str' ? 'a key typed by string literals naming fields of one type is read (`Record<\'call\' | \'put\', number>` indexed by `kind: \'call\' | \'put\'`); otherwise use a field name, or store the values in an array' : 'use a field name, or store the values in an array');
      if (tyOf(index).k === 'str') return this.err(e.argumentExpression, 'string keys are not supported', 'index arrays with numbers');
      return { k: 'idx', obj, index, ty: elemTy(ot, index) };
    }
    if (ts.isPropertyAccessExpression(e)) return this.property(e);
    if (ts.isArrayLiteralExpression(e)) {
      if (e.elements.some(ts.isSpreadElement)) return spreadLiteral(this.hooks, e);
      if (e.elements.length === 0) {
        // `out = []` on an array declared untyped: the variable's type
        const t = emptyLiteralType(this.hooks, e, (id) => this.hooks.varTy(id));
        if (t) return { k: 'arrlit', elems: [], ty: t };
      }
      const elems: Expr[] = [];
      for (const el of e.elements) {
        if (ts.isSpreadElement(el)) return this.err(el, 'spread in array literals is not supported', 'copy the elements in a loop');
        const x = this.expr(el);
        if (!x) return null;
        elems.push(x);
      }
      const ty = this.literalType(e, 'array literal');
      if (!ty) return null;
      return { k: 'arrlit', elems, ty };
    }
    if (ts.isObjectLiteralExpression(e)) {
      let fields: LiteralField[] | null = [];
      if (e.properties.some(ts.isSpreadAssignment)) {
        fields = this.spreadFields(e.properties);
        if (!fields) return null;
      } else
        for (const p of e.properties) {
          const f = this.literalField(p);
          if (!f) return null;
          fields.push(f);
        }
      const ty = this.literalType(e, 'object literal');
      if (!ty) return null;
      return { k: 'objlit', fields, ty };
    }
    if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return this.closures.literal(e);
    if (ts.isTemplateExpression(e)) return this.err(e, 'template strings are not supported', 'strings are passive flags only');
    if (ts.isAwaitExpression(e) || ts.isYieldExpression(e)) return this.err(e, '`await`/`yield` are not supported', 'write synchronous code');
    if (ts.isTypeOfExpression(e)) return typeofTest(this.hooks, e);
    if (e.kind === ts.SyntaxKind.NullKeyword) return NULL;
    // `void 0` is how down-levelled code (bundlers, tsc's ES5 emit) writes `undefined`
    if (ts.isVoidExpression(e) && ts.isNumericLiteral(skipParens(e.expression))) return { k: 'undef' };
    if (ts.isDeleteExpression(e) || ts.isVoidExpression(e)) return this.err(e, `\`${e.getText().split(' ')[0]}\` is not supported`, 'types are known statically here: drop the run-time type test');
    return this.err(e, `${ts.SyntaxKind[e.kind]} is not supported in differentiated code`, 'see the README for the supported subset');
  }

  /** `name: value` or a shorthand `name` of an object literal */
  private literalField(p: ts.ObjectLiteralElementLike): LiteralField | null {
    if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) {
      const v = this.expr(p.initializer);
      return v && { name: p.name.text, value: v };
    }
    if (ts.isShorthandPropertyAssignment(p)) {
      const v = this.identifier(p.name);
      return v && { name: p.name.text, value: v };
    }
    return this.err(p, 'only `name: value`, shorthand fields and spreads (`...o`) are supported in object literals', 'spell out each field');
  }

  private identifier(id: ts.Identifier): Expr | null {
    if (id.text === 'undefined') return { k: 'undef' };
    if (id.text === 'Infinity') return { k: 'num', v: Infinity, raw: 'Infinity' };
    if (id.text === 'NaN') return { k: 'num', v: NaN, raw: 'NaN' };
    const viaClosure = this.closures.read(id); // a parameter of an inlined body, or a local function as a value
    if (viaClosure !== undefined) return viaClosure;
    const r = this.resolve(id);
    if (!r && this.isRefused(id)) return null; // its declaration was reported: one problem, one error
    if (!r && this.callbacks.localUse(id)) return null;
    if (!r && this.isStandardGlobal(id)) return this.standardGlobalRefused(id);
    if (!r && namespaceUse(this.hooks, id) === null) return null;
    if (!r) return this.err(id, `'${id.text}' cannot be resolved to a variable, parameter, module constant or function of the compilation`, 'declare it, import it from a file of the compilation, or pass it as a parameter');
    if (r.kind === 'local') return narrowRead(this.hooks, id, { k: 'var', name: r.name, ty: r.ty });
    if (r.kind === 'global') return { k: 'global', name: r.name, ty: r.ty };
    return this.err(id, `function '${r.name}' used as a value: functions can only be called`, 'call it directly');
  }

  private isRefused(id: ts.Identifier): boolean {
    if (!this.refused.size) return false;
    const sym = this.ctx.checker.getSymbolAtLocation(id);
    if (!sym || !this.refused.has(sym)) return false;
    this.ok = false;
    return true;
  }

  private binary(e: ts.BinaryExpression): Expr | null {
    const k = e.operatorToken.kind;
    if (k === ts.SyntaxKind.EqualsToken || COMPOUND_OPS[k]) return this.seq.assignment(e, COMPOUND_OPS[k]);
    if (k === ts.SyntaxKind.CommaToken) return this.seq.comma(e);
    if (k === ts.SyntaxKind.InKeyword) return inTest(this.hooks, e);
    if (k === ts.SyntaxKind.InstanceOfKeyword) return this.err(e, `\`${e.operatorToken.getText()}\` is not supported`, 'fields and types are known statically here: drop the run-time test');
    const op = k === ts.SyntaxKind.QuestionQuestionToken ? '??' : BIN_OPS[k];
    if (!op) return this.err(e, `operator '${e.operatorToken.getText()}' is not supported`);
    if (op === '&&' || op === '||') {
      const unfolded = this.branchesAsIf(e);
      if (unfolded !== undefined) return unfolded;
    }
    const test = (op === '&&' || op === '||') && this.tested.has(e);
    if (test) {
      this.tested.add(skipParens(e.left));
      this.tested.add(skipParens(e.right));
    }
    let a = this.expr(e.left);
    const short = op === '&&' || op === '||' || op === '??';
    if (a && (op === '??' || op === '||') && !test && mayBePastEnd(a)) {
      this.condDepth++;
      const fallback = this.expr(e.right);
      this.condDepth--;
      return fallback && pastEndFallback(this.hooks, e, op, a, fallback);
    }
    // `counts[k] || 0`, `(a && b) || 1`: the left operand is tested and then used, so a number that is
    // not a plain read is evaluated once into a constant first (always evaluated: where the expression is)
    if (a && short && !test && this.condDepth === 0 && !isPlainRead(a) && (op === '??' ? tyOf(a).k === 'opt' : ['num', 'int', 'opt'].includes(tyOf(a).k))) {
      a = this.constant(a, 'lhs', this.ctx.locOf(e.left));
    }
    if (short) this.condDepth++;
    let b = this.expr(e.right);
    if (short) this.condDepth--;
    if (!a || !b) return null;
    if (test) {
      a = this.truthiness(e.left, a);
      b = this.truthiness(e.right, b);
      if (!a || !b) return null;
    }
    if (short) {
      const sc = shortCircuit(this.hooks, e, op, a, b);
      if (sc !== undefined || op === '??') return sc ?? null;
    }
    const ta = tyOf(a), tb = tyOf(b);
    const none = pastEndTest(this.hooks, e, op, a, b);
    if (none !== undefined) return none;
    if ((ta.k === 'str' || tb.k === 'str') && !COMPARISONS.has(op)) return this.err(e, 'string operations are not supported', 'strings are passive flags only');
    // a value that may be absent is only tested (===, !==, ==, !=): arithmetic or an order on it is
    // NaN or false where it is absent, which strict TypeScript (the generated code) does not accept
    const absent = ta.k === 'opt' ? e.left : tb.k === 'opt' ? e.right : null;
    if (absent && !['===', '!==', '==', '!='].includes(op)) {
      const t = this.ctx.checker.typeToString(this.ctx.checker.getTypeAtLocation(absent));
      // (a call, `st.pop()`, cannot be tested and then used: it would run twice)
      const hint = ts.isCallExpression(skipParens(absent))
        ? `give it a default: \`(${absent.getText()} ?? 0)\`, or in TypeScript assert it present: \`${absent.getText()}!\``
        : `test it first (\`if (${absent.getText()} !== undefined)\`), or give it a default: \`(${absent.getText()} ?? 0)\``;
      return this.err(absent, `'${absent.getText()}' has type '${t}' here: it may be absent where \`${op}\` uses it`, hint);
    }
    let ty: Ty;
    if (COMPARISONS.has(op)) ty = BOOL;
    else if (BITWISE.has(op)) ty = INT;
    else if (op === '&&' || op === '||') {
      if (ta.k !== 'bool' || tb.k !== 'bool') return this.err(e, `\`${op}\` on non-boolean operands is not supported`, 'compare explicitly, e.g. `x !== 0`');
      ty = BOOL;
    } else ty = NUM;
    if ((ta.k === 'arr' || ta.k === 'obj' || tb.k === 'arr' || tb.k === 'obj') && op !== '===' && op !== '!==') return this.err(e, 'arithmetic on arrays or objects is not supported', 'loop over the elements');
    return { k: 'bin', op, a, b, ty };
  }

  /**
   * `rows.find(…)!.s` (or `rows.find(…).s`): the field of the element found, read as `rows[at].s` where `at` is the index the
   * search found (-1 if none: the read then throws a TypeError, as JavaScript's of `undefined` does).
   * No nullable object is held. undefined: not this form.
   */
  private foundElement(e: ts.PropertyAccessExpression): Expr | null | undefined {
    // (without `!` too, where the checker lets it through: plain JavaScript, or TypeScript without null checks)
    const call = skipParens(e.expression);
    // (`rows.find(…)?.s`: the element found is held, tested and narrowed by optionalChain)
    if (this.chainObjects.has(call)) return undefined;
    if (!ts.isCallExpression(call) || !ts.isPropertyAccessExpression(call.expression) || (call.expression.name.text !== 'find' && call.expression.name.text !== 'findLast') || !isCallbackCall(call)) return undefined;
    const elem = this.ctx.typeAt(call.expression.expression);
    if (!elem || elem.k !== 'arr' || !isRef(elem.elem) || this.condDepth > 0) return undefined;
    const value = this.expr(call);
    if (!value) return null;
    // (the search's last statement names the element found: `const found = at >= 0 ? rows[at] : undefined`)
    const last = this.pre[this.pre.length - 1];
    const pick = value.k === 'var' && last?.k === 'decl' && last.name === value.name && last.init?.k === 'cond' && last.init.a.k === 'idx' ? last.init.a : null;
    if (!pick) return this.err(e, `the element \`find\` gives is read here in a way tsad does not follow`, `use \`findIndex\` and index the array: \`const k = ${call.expression.expression.getText()}.findIndex(…); … ${call.expression.expression.getText()}[k].${e.name.text}\``);
    this.pre.pop();
    const ot = tyOf(pick);
    if (ot.k !== 'obj') return this.err(e, `property '${e.name.text}' is not supported here`, 'read a field of an object');
    if (!ot.fields.some((f) => f.name === e.name.text)) return this.err(e, `unknown field '${e.name.text}'`);
    return narrowRead(this.hooks, e, { k: 'field', obj: pick, name: e.name.text, ty: fieldTy(ot, e.name.text) });
  }

  private property(e: ts.PropertyAccessExpression): Expr | null {
    const name = e.name.text;
    if (ts.isIdentifier(e.expression)) {
      const base = e.expression.text;
      if (base === 'Math' && !this.resolve(e.expression)) {
        if (MATH_CONSTS.has(name)) return { k: 'num', v: (Math as unknown as Record<string, number>)[name], raw: `Math.${name}` };
        return this.err(e, `Math.${name} used as a value`, 'call it, or use one of the Math constants');
      }
      if (base === 'Number' && !this.resolve(e.expression)) {
        if (NUMBER_CONSTS.has(name)) return { k: 'num', v: (Number as unknown as Record<string, number>)[name], raw: `Number.${name}` };
        return this.err(e, `Number.${name} used as a value is not supported`);
      }
    }
    // (a `?.` is lowered by optionalChain, which gives its object: one not given is not followed)
    if (e.questionDotToken && !this.chainObjects.has(skipParens(e.expression))) return this.err(e, 'optional chaining is not supported here', 'test the value first: `o !== undefined ? o.f : …`');
    const viaAccessor = accessorRead(this.hooks, e);
    if (viaAccessor !== undefined) return viaAccessor;
    const element = this.foundElement(e);
    if (element !== undefined) return element;
    const value = this.expr(e.expression);
    if (!value) return null;
    const ot = tyOf(value);
    if (name === 'length' && (ot.k === 'arr' || ot.k === 'tuple')) return { k: 'len', obj: value };
    const obj = this.placed(e.expression, value);
    if (!obj) return null;
    if (ot.k === 'obj') {
      if (!ot.fields.some((f) => f.name === name)) return this.err(e, `unknown field '${name}'`);
      return narrowRead(this.hooks, e, { k: 'field', obj, name, ty: fieldTy(ot, name) });
    }
    // `rows.find(…)!.s`: the element `find` gives, asserted present
    const inner = skipParens(e.expression);
    const found = ts.isNonNullExpression(inner) ? skipParens(inner.expression) : inner;
    if (ot.k === 'opt' && ts.isCallExpression(found) && ts.isPropertyAccessExpression(found.expression) && (found.expression.name.text === 'find' || found.expression.name.text === 'findLast'))
      return this.err(e, `the element \`find\` gives is an array or object that may be absent: tsad does not read its fields (\`.${name}\`), even asserted present with \`!\``, `use \`findIndex\` and index the array: \`const k = ${found.expression.expression.getText()}.findIndex(…); … ${found.expression.expression.getText()}[k].${name}\``);
    return this.err(e, `property '${name}' is not supported here`, 'arrays support .length and Float64Array supports .subarray(start, end)');
  }

  /** the fields of an object literal with spreads, or of `Object.assign({}, …)` (spread.ts) */
  private spreadFields(parts: readonly (ts.ObjectLiteralElementLike | ts.Expression)[]): LiteralField[] | null {
    return objectSpreadFields(
      this.hooks,
      parts,
      (p) => this.literalField(p),
      hasCallOrEffect,
      (n) => isClassInstance(this.ctx.checker.getTypeAtLocation(n)),
      (n) => this.ctx.checker.getPropertiesOfType(this.ctx.checker.getNonNullableType(this.ctx.checker.getTypeAtLocation(n))).map((p) => p.name),
      (n) => this.moduleConstantFields(n),
    );
  }

  /**
   * The fields a module-level `const` initialised with an object literal gives (no spreads in it), by
   * name: they are there whatever optional fields its declared type has (tsad refuses writes into
   * module-level data, so none is set to undefined later). null for anything else.
   */
  private moduleConstantFields(n: ts.Expression): ReadonlySet<string> | null {
    let e = n;
    while (ts.isParenthesizedExpression(e)) e = e.expression;
    if (!ts.isIdentifier(e)) return null;
    let sym = this.ctx.checker.getSymbolAtLocation(e);
    if (sym && sym.flags & ts.SymbolFlags.Alias) sym = this.ctx.checker.getAliasedSymbol(sym);
    const d = sym?.valueDeclaration;
    if (!d || !ts.isVariableDeclaration(d) || !d.initializer || !(ts.getCombinedNodeFlags(d) & ts.NodeFlags.Const)) return null;
    if (!ts.isVariableDeclarationList(d.parent) || !ts.isVariableStatement(d.parent.parent) || !ts.isSourceFile(d.parent.parent.parent)) return null;
    let init = d.initializer;
    while (ts.isParenthesizedExpression(init) || ts.isAsExpression(init) || ts.isSatisfiesExpression(init)) init = init.expression;
    if (!ts.isObjectLiteralExpression(init)) return null;
    const names = new Set<string>();
    for (const p of init.properties) {
      if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) {
        // (a field given as `undefined` is not there for tsad)
        if (p.initializer.kind !== ts.SyntaxKind.UndefinedKeyword && !(ts.isIdentifier(p.initializer) && p.initializer.text === 'undefined')) names.add(p.name.text);
      } else if (ts.isShorthandPropertyAssignment(p)) names.add(p.name.text);
      else return null;
    }
    return names;
  }

  /** `Object.assign({}, DEFAULTS, options)`: a fresh object, as `{ ...DEFAULTS, ...options }` is */
  private objectAssign(e: ts.CallExpression): Expr | null {
    const [target, ...sources] = e.arguments;
    const fresh = target && ts.isObjectLiteralExpression(skipParens(target)) && (skipParens(target) as ts.ObjectLiteralExpression).properties.length === 0;
    if (!fresh || sources.some(ts.isSpreadElement)) return this.err(e, '`Object.assign` is supported only as `Object.assign({}, a, b, …)`: a fresh object with the fields of its sources', 'write `{ ...a, ...b }`, or assign the fields one by one');
    const fields = this.spreadFields(sources);
    if (!fields) return null;
    // (its own type is an intersection, `{} & Opts & Partial<Opts>`: the object's type is its fields')
    const ctxTy = this.ctx.checker.getContextualType(e);
    const declared = ctxTy && this.ctx.convert(ctxTy, e);
    const ty: Ty = declared && declared.k === 'obj' ? declared : { k: 'obj', name: null, fields: fields.map((f) => ({ name: f.name, ty: tyOf(f.value) })) };
    return { k: 'objlit', fields, ty };
  }

  private call(e: ts.CallExpression): Expr | null {
    const callee = skipParens(e.expression);
    // `Number(k)`, `parseInt(k)` of a `for…in` key over an array: the index it names
    if (ts.isIdentifier(callee) && (callee.text === 'Number' || callee.text === 'parseInt') && !this.resolve(callee) && e.arguments.length && ts.isIdentifier(skipParens(e.arguments[0]))) {
      const key = this.expr(e.arguments[0]);
      if (key && key.k === 'var' && this.forInKeys.has(key.name)) return key;
    }
    if (ts.isPropertyAccessExpression(callee)) {
      const m = callee.name.text;
      const objNode = skipParens(callee.expression);
      // `Math.max.apply(null, xs)`
      if (m === 'apply' && ts.isPropertyAccessExpression(objNode) && ts.isIdentifier(objNode.expression) && objNode.expression.text === 'Math' && !this.resolve(objNode.expression) && MATH_FUNCS.has(objNode.name.text))
        return mathApplyCall(e, objNode.name.text, this.hooks);
      if (ts.isIdentifier(objNode) && !this.resolve(objNode)) {
        const full = `${objNode.text}.${m}`;
        if (full === 'Object.assign') return this.objectAssign(e);
        if (NONDETERMINISTIC.has(full)) return this.err(e, `${full}() is non-deterministic and cannot be differentiated`, 'pass random values in as a parameter');
        if (objNode.text === 'Math') {
          if (!MATH_FUNCS.has(m)) return this.err(e, `Math.${m} is not supported`, 'see the README for the supported Math functions');
          return this.mathCall(e, m);
        }
        if (objNode.text === 'Number' && (m === 'isFinite' || m === 'isNaN' || m === 'isInteger')) {
          const a = e.arguments[0] && this.expr(e.arguments[0]);
          if (!a) return null;
          return { k: 'intr', fn: `Number.${m}`, args: [a], ty: BOOL };
        }
        if (objNode.text === 'Array' && m === 'isArray') return isArrayTest(this.hooks, e);
        if (isMappedFrom(e) && isCallbackCall(e) && !ts.isObjectLiteralExpression(e.arguments[0])) return this.callbacks.lower(e)?.value ?? null;
        // (elsewhere in an expression, a row of a matrix built by an outer `Array.from`: named first)
        if (isMappedFrom(e) && this.condDepth === 0) return this.arrayFrom(e, 'row');
        if (isMappedFrom(e)) return this.err(e, `\`${objNode.text}.from\` inside a condition is not supported`, `write \`const xs = ${objNode.text}.from({ length: n }, (_, i) => …)\` before it`);
        if (isTypedCtor(objNode.text) && m === 'from' && e.arguments.length === 1 && keysCall(e.arguments[0])) return indexRange(this.hooks, e, keysCall(e.arguments[0])!, typedArrayTy(objNode.text));
        if (isTypedCtor(objNode.text) && m === 'from') return newTypedArray(this.hooks, e, objNode.text, true);
        if (objNode.text === 'console') return this.err(e, 'console output is not supported in differentiated code', 'log outside the differentiated function');
      }
      if (m === 'fill' && ts.isNewExpression(objNode) && ts.isIdentifier(objNode.expression) && isTypedCtor(objNode.expression.text) && !this.resolve(objNode.expression)) return this.filled(e, newTypedArrayFill(this.hooks, objNode, e, objNode.expression.text));
      if (m === 'fill' && (ts.isNewExpression(objNode) || isArrayOfLength(objNode))) return this.filled(e, this.newArrayFill(objNode, e));
      const method = methodCall(this.hooks, e);
      if (method !== undefined) return method;
      const nsCall = namespaceCall(this.hooks, e);
      if (nsCall !== undefined) return nsCall;
      if (ts.isIdentifier(objNode) && this.runtimeName(objNode) === 'Tape' && (m === 'acquire' || m === 'release')) {
        const args = e.arguments.map((a) => this.expr(a));
        if (args.some((a) => !a)) return null;
        return { k: 'intr', fn: `Tape.${m}`, args: args as Expr[], ty: m === 'acquire' ? { k: 'tape' } : VOID };
      }
      if (isCallbackCall(e)) {
        const r = this.callbacks.lower(e);
        if (r !== undefined) return r && r.value;
      }
      const obj = this.expr(objNode);
      if (!obj) return null;
      const ot = tyOf(obj);
      if (ot.k === 'tape') {
        // tape operations of generated code: differentiable again (tsad can differentiate its output)
        const ops: Record<string, Ty> = { pushF: VOID, pushI: VOID, pushR: VOID, popF: NUM, popI: INT };
        const args = e.arguments.map((a) => this.expr(a));
        if (args.some((a) => !a)) return null;
        if (m === 'popR') {
          const ty = this.tyOrErr(e, 'popped reference');
          return ty && { k: 'intr', fn: 'tape.popR', args: [obj], ty };
        }
        // a static-tape buffer is, for differentiation, a fresh array (its reuse is only a saving)
        if (m === 'bufF' && args.length === 1) return { k: 'alloc', len: args[0]!, fill: null, ty: { k: 'arr', elem: NUM, typed: true, ro: false } };
        // a stack buffer grown (static-tape.ts stackedTape): a fresh array holding the old one's values
        if (m === 'growF' && args.length === 2) {
          const fty: Ty = { k: 'arr', elem: NUM, typed: true, ro: false };
          const [old, n] = args as Expr[];
          const grown: Expr = { k: 'var', name: this.fresh('grown'), ty: fty };
          const z = this.fresh('z');
          const zv: Expr = { k: 'var', name: z, ty: INT };
          const len: Expr = { k: 'intr', fn: 'Math.max', args: [n, { k: 'len', obj: old }], ty: INT };
          this.pre.push({ k: 'decl', name: grown.name, ty: fty, init: { k: 'alloc', len, fill: null, ty: fty }, konst: true, loc: this.ctx.locOf(e) });
          this.pre.push(countedFor(z, { k: 'len', obj: old }, [{ k: 'assign', target: { k: 'idx', obj: grown, index: zv, ty: NUM }, value: { k: 'idx', obj: old, index: zv, ty: NUM } }]));
          return grown;
        }
        if (!(m in ops)) return this.err(e, `unknown tape operation '${m}'`);
        return { k: 'intr', fn: `tape.${m}`, args: [obj, ...(args as Expr[])], ty: ops[m] };
      }
      if (m === 'pop' && ot.k === 'arr' && e.arguments.length === 0) {
        // (an array made where it stands, `xs.slice().pop()`, is named first: read, measured and popped
        // once, and its element's derivative kept)
        let arr = obj;
        if (!(obj.k === 'var' || obj.k === 'global' || obj.k === 'field' || obj.k === 'idx')) {
          const t = this.fresh('arr');
          this.pre.push({ k: 'decl', name: t, ty: ot, init: obj, konst: true, loc: this.ctx.locOf(e) });
          arr = { k: 'var', name: t, ty: ot };
        }
        const pop = this.popStmt(e, arr);
        return pop && this.seq.popValue(e, arr, pop);
      }
      if (m === 'subarray' && ot.k === 'arr' && ot.typed) {
        const start = e.arguments[0] ? this.expr(e.arguments[0]) : { k: 'num' as const, v: 0 };
        const end = e.arguments[1] ? this.expr(e.arguments[1]) : null;
        if (!start || (e.arguments[1] && !end)) return null;
        return { k: 'sub', obj, start, end, ty: ot };
      }
      // (`copy` copies rows too: an array of rows or objects is sliced by arrayMethod, sharing them as JavaScript does)
      if (m === 'slice' && ot.k === 'arr' && !isRef(ot.elem) && e.arguments.length === 0) return { k: 'intr', fn: 'copy', args: [obj], ty: { ...ot, ro: false } };
      const arrMethod = arrayMethod(this.hooks, e, m, obj);
      if (arrMethod !== undefined) return arrMethod;
      const what = ot.k === 'arr' ? `the array method '.${m}()'` : `the method '.${m}()'`;
      // (an array TypeScript types `any[]`, `new Array(n)`, gives its callbacks untyped parameters)
      if (CALLBACK_METHODS.has(m) && this.isAnyArray(callee.expression))
        return this.err(e, `${what} is called on an array TypeScript types \`any[]\` (made by \`new Array(n)\`), so its callback's parameters have no type`, `annotate the array where it is made: \`const ${callee.expression.getText()}: number[] = new Array(n);\``);
      // (a push used as a value, its result the new length: statements push)
      if (m === 'push' && ot.k === 'arr' && !ot.typed) {
        const name = callee.expression.getText();
        return this.err(e, '`push` is supported as a statement of its own, not as a value (the new length it returns)', `push in a statement, then read the length: \`${name}.push(…); const n = ${name}.length;\``);
      }
      // (a local function's parameter without a type: `const d = (a, b) => a.reduce(…)` in plain JavaScript)
      if (this.ctx.checker.getTypeAtLocation(callee.expression).flags & ts.TypeFlags.Any)
        return this.err(callee.expression, `'${callee.expression.getText()}' has no type here (type 'any'), so tsad cannot tell that \`.${m}()\` is an array's`, `give it a type where it is declared: \`(${callee.expression.getText()}: number[]) => …\`, or in a .js file a JSDoc comment on the function: \`/** @param {number[]} ${callee.expression.getText()} */\``);
      return this.err(e, `${what} is not supported in differentiated code`, m === 'map' || m === 'reduce' || m === 'forEach' ? 'write a `for` loop over the indices' : 'write the computation with loops and indexing');
    }
    if (ts.isIdentifier(callee)) {
      if (callee.text === 'isFinite' || callee.text === 'isNaN') {
        const a = e.arguments[0] && this.expr(e.arguments[0]);
        if (!a) return null;
        return { k: 'intr', fn: callee.text, args: [a], ty: BOOL };
      }
      // (`Number(x)` of a number is x itself, NaN and -0 included)
      if (callee.text === 'Number' && !this.resolve(callee) && e.arguments.length === 1 && !ts.isSpreadElement(e.arguments[0])) {
        const a = this.expr(e.arguments[0]);
        if (!a) return null;
        const t = tyOf(a);
        if (t.k === 'num' || t.k === 'int') return a;
        return this.err(e, '`Number(…)` of something other than a number is not supported in differentiated code', 'convert the value before the differentiated code, or write the number itself');
      }
      if (callee.text === 'eval') return this.err(e, '`eval` cannot be differentiated', 'write the code directly');
      if (callee.text === 'Array' && !this.resolve(callee)) return this.newExpr(e); // `Array(n)` is `new Array(n)`
      const rt = this.runtimeName(callee);
      if (rt) return this.runtimeCall(e, rt);
      if (this.isRefused(callee)) return null; // its declaration was reported: one problem, one error
      const viaClosure = this.closures.call(e); // a local function, a function parameter, a helper taking functions
      if (viaClosure !== undefined) return viaClosure;
      const r = this.resolve(callee);
      if (!r && this.callbacks.localUse(callee)) return null;
      if ((!r || r.kind !== 'func') && this.ctx.mod.failed.has(callee.text)) {
        // a call of a function that was rejected: its own diagnostic is reported when the head reaches it
        const args = e.arguments.map((a) => this.expr(a)).filter((a): a is Expr => !!a);
        return { k: 'call', fn: callee.text, args, ty: NUM };
      }
      if (!r && this.isStandardGlobal(callee)) return this.standardGlobalRefused(callee);
      if (!r || r.kind !== 'func') return this.err(callee, `'${callee.text}' is not a function of the compilation`, r ? 'only top-level functions can be called' : 'declare or import it');
      return this.userCall(e, r.name);
    }
    return this.err(e, 'this kind of call is not supported', 'call a top-level function, a local function or a Math function by name (a function read from an array or returned by a call is known only at run time)');
  }

  /** Is this identifier a global of JavaScript's standard library (`Object`, `parseFloat`, `JSON`)? */
  private isStandardGlobal(id: ts.Identifier): boolean {
    const decls = this.ctx.checker.getSymbolAtLocation(id)?.declarations ?? [];
    return decls.length > 0 && decls.every((d) => isStdLibPath(d.getSourceFile().fileName) || d.getSourceFile().fileName === LIB_FILE);
  }

  private standardGlobalRefused(id: ts.Identifier): null {
    return this.err(
      id,
      `'${id.text}' of JavaScript's standard library is not supported in differentiated code (tsad knows Math, Number's constants and tests, and the array methods the README lists)`,
      'compute the value before the call and pass it in as a parameter, or write it with arithmetic, loops and arrays',
    );
  }

  /** The export of 'tsad/runtime' an identifier is bound to, if any. */
  private runtimeName(id: ts.Identifier): string | null {
    const checker = this.ctx.checker;
    const sym = checker.getSymbolAtLocation(id);
    if (!sym || !(sym.flags & ts.SymbolFlags.Alias)) return null;
    const target = checker.getAliasedSymbol(sym);
    const decl = target.declarations?.[0];
    if (!decl || decl.getSourceFile().fileName !== LIB_FILE) return null;
    return target.name;
  }

  private runtimeCall(e: ts.CallExpression, name: string): Expr | null {
    const args = e.arguments.map((a) => this.expr(a));
    if (args.some((a) => !a)) return null;
    const as = args as Expr[];
    if (name === 'zerosLike' || name === 'snapshot') return { k: 'intr', fn: name, args: as, ty: name === 'zerosLike' ? this.tyOrErr(e, 'zerosLike result') ?? tyOf(as[0]) : tyOf(as[0]) };
    if (name === 'zeroFill' || name === 'restoreInto' || name === 'addInto') return { k: 'intr', fn: name, args: as, ty: VOID };
    if (name === 'zeros' && as.length === 1) return { k: 'alloc', len: as[0], fill: { k: 'num', v: 0 }, ty: { k: 'arr', elem: NUM, typed: false, ro: false } };
    return this.err(e, `runtime function '${name}' cannot be used here`);
  }

  private mathCall(e: ts.CallExpression, m: string): Expr | null {
    const args: Expr[] = [];
    if (e.arguments.some(ts.isSpreadElement)) return mathSpreadCall(e, m, this.hooks);
    for (const a of e.arguments) {
      const x = this.expr(a);
      if (!x) return null;
      args.push(x);
    }
    const arity = MATH_BINARY.has(m) ? 2 : 1;
    if (!MATH_NARY.has(m) && args.length !== arity) return this.err(e, `Math.${m} expects ${arity} argument(s)`);
    return { k: 'intr', fn: `Math.${m}`, args, ty: MATH_INTEGRAL.has(m) ? INT : NUM };
  }

  private userCall(e: ts.CallExpression | ts.NewExpression, fn: string, self?: Expr): Expr | null {
    const decl = this.ctx.funcDecls.get(fn)!;
    const params = paramsOf(decl, this.ctx.checker);
    const restAt = params.findIndex((p) => p.dotDotDotToken);
    const all = e.arguments ?? [];
    const lead = restAt < 0 ? all : all.slice(0, restAt);
    if (restAt >= 0 && lead.some(ts.isSpreadElement)) return this.err(e, `spread arguments before the rest parameter of '${fn}' are not supported`, 'pass the leading arguments one by one');
    const given = helperArgs(e, fn, this.hooks, lead);
    if (!given) return null;
    const args: Expr[] = given;
    if (args.length > params.length) return this.err(e, `too many arguments to '${fn}'`);
    // an argument passed as undefined takes a constant default, as JavaScript gives it
    args.forEach((a, i) => {
      const init = params[i]?.initializer && skipParens(params[i].initializer!);
      if (!init || !isLiteralValue(init)) return;
      const t = tyOf(a);
      if (a.k === 'undef') args[i] = this.expr(init) ?? a;
      // (a value that may be undefined, read from a name: the default where it is)
      else if (t.k === 'opt' && t.none.includes('undefined') && (a.k === 'var' || a.k === 'field')) {
        const d = this.expr(init);
        if (d) args[i] = { k: 'cond', c: { k: 'bin', op: '===', a, b: { k: 'undef' }, ty: BOOL }, a: d, b: { ...a, ty: t.base, nn: true } as Expr, ty: t.base };
      }
    });
    // (a factory returning a function is reported once, at the factory)
    if (this.ctx.checker.getTypeAtLocation(e).getCallSignatures().length) {
      this.ok = false;
      return null;
    }
    const ty = this.tyOrErr(e, `the result of '${fn}'`);
    if (!ty) return null;
    // Missing arguments take the callee's defaults, filled in at the call (the IR has no optional params).
    for (let i = args.length; i < (restAt < 0 ? params.length : restAt); i++) {
      const p = params[i];
      if (isOptionalParam(p) && !p.initializer) {
        args.push({ k: 'undef' }); // an optional parameter left out is undefined
        continue;
      }
      if (!p.initializer) return this.err(e, `missing argument '${p.name.getText()}' to '${fn}'`);
      const dv = skipParens(p.initializer);
      if (!isLiteralValue(dv)) {
        args.push({ k: 'undef' }); // computed in the callee (computedDefault)
        continue;
      }
      const x = this.expr(dv);
      if (!x) return null;
      args.push(x);
    }
    if (restAt >= 0) {
      const rest = this.restArray(e, params[restAt], args, all.slice(restAt));
      if (!rest) return null;
      args.push(rest);
    }
    if (self) args.unshift(self);
    return { k: 'call', fn, args, ty };
  }

  /**
   * The array a rest parameter receives, built before the call. JavaScript reads the leading arguments
   * first: when the trailing ones hold a call or an effect (`g(x[0], h(x))`, `g(i, i++)`), the leading
   * ones are frozen into constants before the array is built.
   */
  private restArray(e: ts.CallExpression | ts.NewExpression, p: ts.ParameterDeclaration, lead: Expr[], tail: readonly ts.Expression[]): Expr | null {
    const ty = this.ctx.typeAt(p.name);
    if (!ty) return null;
    if (tail.some((t) => hasCallOrEffect(t)))
      for (let i = 0; i < lead.length; i++) {
        const x = lead[i];
        if (x.k === 'num' || x.k === 'str' || x.k === 'bool' || x.k === 'undef') continue;
        lead[i] = this.constant(x, 'arg', this.ctx.locOf(e));
      }
    return restArgument(this.hooks, e, ty, (p.name as ts.Identifier).text, tail);
  }

  /** `x` evaluated here, once, into a new constant (emitted before the current statement) */
  /**
   * What an element or field read reads from: a fresh literal or copy is named first
   * (Sequencing.nameFresh); with `conds`, a conditional too (a spread array, read by index in a loop).
   */
  private placed(e: ts.Expression, obj: Expr | null, conds = false): Expr | null {
    if (!obj || !(FRESH_KINDS.has(obj.k) || (conds && obj.k === 'cond'))) return obj;
    if (obj.k === 'cond') {
      const ta = tyOf(obj.a), tb = tyOf(obj.b);
      if (ta.k === 'arr' && tb.k === 'arr' && !!ta.typed !== !!tb.typed)
        return this.err(e, 'a condition choosing between a typed array and a plain array is not supported here', 'convert one of them first (`Float64Array.from(a)` or `Array.from(t)`)');
    }
    return this.seq.nameFresh(e, obj);
  }

  private constant(x: Expr, base: string, loc: Loc): Expr {
    const name = this.fresh(base);
    this.pre.push({ k: 'decl', name, ty: tyOf(x), init: x, konst: true, loc });
    return { k: 'var', name, ty: tyOf(x) };
  }

  /** `tape.freeF(b)` in generated code */
  private isFreeF(e: ts.Expression): boolean {
    if (!ts.isCallExpression(e) || !ts.isPropertyAccessExpression(e.expression) || e.expression.name.text !== 'freeF') return false;
    const obj = this.expr(e.expression.expression);
    return !!obj && tyOf(obj).k === 'tape';
  }

  private newExpr(e: ts.NewExpression | ts.CallExpression): Expr | null {
    const instance = ts.isNewExpression(e) ? newInstance(this.hooks, e) : undefined;
    if (instance !== undefined) return instance;
    if (!ts.isIdentifier(e.expression)) return this.err(e, 'this `new` expression is not supported');
    const c = e.expression.text;
    const arg = e.arguments?.[0];
    if (isTypedCtor(c) && !this.resolve(e.expression)) return newTypedArray(this.hooks, e, c, false);
    if (c === 'Array') {
      const ty = this.ctx.typeAt(e);
      if (arg && ty && ty.k === 'arr' && isRef(ty.elem)) {
        const len = this.expr(arg);
        return len && { k: 'alloc', len, fill: null, ty };
      }
      return this.err(e, '`new Array(n)` must be filled', 'write `new Array(n).fill(0)`, or declare it and fill it in the loop right after: `const a = new Array(n); for (let i = 0; i < n; i++) a[i] = …;`');
    }
    if (c === 'Error' || c === 'RangeError' || c === 'TypeError') return this.err(e, 'errors can only be thrown', 'write `throw new Error(…)`');
    return this.err(e, `\`new ${c}\` is not supported`, 'use Float64Array, arrays and object literals');
  }

  /**
   * `new Array(n).fill(v)` with a computed `v`: allocated with zeros, then filled by a loop (v evaluated
   * once, first), so that every transformation sees the stores that carry v's derivative.
   */
  private filled(call: ts.CallExpression, alloc: Expr | null): Expr | null {
    // (an integer typed array carries no derivative: its fill stays one call)
    if (!alloc || alloc.k !== 'alloc' || !alloc.fill || isConstant(alloc.fill) || !hasFloat(alloc.ty)) return alloc;
    if (!this.seq.placeable(call, '`new Array(n).fill(v)` with a computed value', 'fill it before the statement: `const a = new Array(n).fill(v);`')) return null;
    const loc = this.ctx.locOf(call);
    const v = this.constant(alloc.fill, 'fillValue', loc);
    const a = this.constant({ ...alloc, fill: { k: 'num', v: 0 } }, 'filled', loc);
    const i = this.fresh('i');
    const store: Stmt = { k: 'assign', target: { k: 'idx', obj: a, index: { k: 'var', name: i, ty: INT }, ty: NUM }, value: v };
    this.pre.push({ ...countedFor(i, { k: 'len', obj: a }, [store]), loc });
    return a;
  }

  private newArrayFill(n: ts.NewExpression | ts.CallExpression, call: ts.CallExpression): Expr | null {
    if (!ts.isIdentifier(n.expression) || n.expression.text !== 'Array' || n.arguments?.length !== 1 || call.arguments.length !== 1)
      return this.err(call, 'only `new Array(n).fill(value)` is supported');
    // (a literal is refused as what it shares before it is typed: `[]` alone is `never[]`)
    let arg: ts.Expression = call.arguments[0];
    while (ts.isParenthesizedExpression(arg)) arg = arg.expression;
    if (ts.isArrayLiteralExpression(arg) || ts.isObjectLiteralExpression(arg)) return this.err(call, '`fill` with an array or object would share one value between all elements', 'use `Array.from({ length: n }, () => …)`');
    const len = this.expr(n.arguments[0]);
    const fill = this.expr(call.arguments[0]);
    if (!len || !fill) return null;
    // `new Array(n)` is `any[]` to the checker: the element type comes from the fill value
    let ty = this.ctx.typeAt(call);
    if (!ty && !isRef(tyOf(fill))) ty = { k: 'arr', elem: tyOf(fill).k === 'int' ? NUM : tyOf(fill), typed: false, ro: false };
    if (!ty || ty.k !== 'arr') return this.err(call, 'cannot type this array', 'annotate the variable, e.g. `const a: number[] = …`');
    if (isRef(tyOf(fill))) return this.err(call, '`fill` with an array or object would share one value between all elements', 'use `Array.from({ length: n }, () => …)`');
    return { k: 'alloc', len, fill, ty };
  }
}

/** `Array.from(…)`, or a typed array's `X.from(src, fn)` with a callback (one argument is a copy: newTypedArray) */
function isMappedFrom(x: ts.CallExpression): boolean {
  const c = x.expression;
  if (!ts.isPropertyAccessExpression(c) || !ts.isIdentifier(c.expression) || c.name.text !== 'from') return false;
  return c.expression.text === 'Array' || (isTypedCtor(c.expression.text) && x.arguments.length === 2);
}

function hasCall(e: Expr): boolean {
  return containsCall(e);
}

/**
 * `obj[key]` where `key` is a name (or literal) typed by string literals, each a data field of `obj` of
 * one type: `key === 'a' ? obj.a : key === 'b' ? obj.b : obj.c` (the last literal is what is left: the
 * checker allows no other value). Null: not this form.
 */
function literalKeyRead(obj: Expr, key: Expr): Expr | null {
  const ot = tyOf(obj);
  const kt = tyOf(key);
  if (ot.k !== 'obj' || kt.k !== 'str' || !kt.lits.length || (key.k !== 'var' && key.k !== 'global') || (obj.k !== 'var' && obj.k !== 'global')) return null;
  const fields = kt.lits.map((l) => ot.fields.find((f) => f.name === l && !f.optional));
  if (fields.some((f) => !f) || !fields.every((f) => JSON.stringify(f!.ty) === JSON.stringify(fields[0]!.ty))) return null;
  const ty = fields[0]!.ty;
  const read = (name: string): Expr => ({ k: 'field', obj, name, ty });
  let out = read(kt.lits[kt.lits.length - 1]);
  for (let i = kt.lits.length - 2; i >= 0; i--) out = { k: 'cond', c: { k: 'bin', op: '===', a: key, b: { k: 'str', v: kt.lits[i] }, ty: BOOL }, a: read(kt.lits[i]), b: out, ty };
  return out;
}

/** `||=`, `&&=`, `??=`: assignments made only where the old value says so */
const LOGICAL_ASSIGNMENTS = new Map<ts.SyntaxKind, '||' | '&&' | '??'>([
  [ts.SyntaxKind.BarBarEqualsToken, '||'],
  [ts.SyntaxKind.AmpersandAmpersandEqualsToken, '&&'],
  [ts.SyntaxKind.QuestionQuestionEqualsToken, '??'],
]);

/** `body` with each bare `return;` returning `undefined`, and a `return undefined;` at its end when control can reach it */
function explicitUndefined(body: Stmt[]): Stmt[] {
  const undef: Expr = { k: 'undef' };
  const visit = (list: Stmt[]): Stmt[] => list.map((s) => (s.k === 'return' && !s.e ? { ...s, e: undef } : mapBodies(s, visit)));
  const out = visit(body);
  return completes(out) ? [...out, { k: 'return', e: undef }] : out;
}

/** whether control may leave `list` by its end (not through a return or a throw on every path) */
function completes(list: Stmt[]): boolean {
  const last = list[list.length - 1];
  if (!last) return true;
  if (last.k === 'return' || last.k === 'throw') return false;
  if (last.k === 'if') return completes(last.then) || completes(last.else);
  if (last.k === 'block') return completes(last.body);
  return true;
}

/** `a[a.length]` of a plain array (a typed array's length is fixed: the store past it does nothing) */
function appendsByIndex(t: Expr): t is Extract<Expr, { k: 'idx' }> {
  if (t.k !== 'idx' || t.index.k !== 'len' || !exprEq(t.index.obj, t.obj)) return false;
  const ty = tyOf(t.obj);
  return ty.k === 'arr' && !ty.typed;
}
