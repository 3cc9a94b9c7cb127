// Which TypeScript errors refuse the user's code. tsad type-checks under --strict, because it needs the
// precise types strict mode gives (`number | undefined` is not `number`; an unannotated parameter is
// `any`, not silently a number). But the user's code is only required to be what `tsc` accepts with its
// default, non-strict settings. So:
//  - an error that tsc also reports without --strict is the user's type error: reported as it is;
//  - a strict-only error whose cause tsad refuses by itself, with its own located diagnostic saying what
//    to write (an `any` type, a `T | undefined` value — see STRICT_ONLY_CHECKED_BY_TSAD), is dropped:
//    the lowering reports the construct instead;
//  - any other strict-only error (`undefined` given where a number is declared, a `let` read before it
//    is assigned) is held to the function it is in and reported only if the lowering of that function
//    finds nothing (for a `var`, var-scope.ts reports the read itself), as a value tsad cannot
//    differentiate, with a hint.
// The non-strict program is built only when the strict one has errors (clean code pays nothing), and it
// reuses the strict program's parsed files.
import ts from 'typescript';
import { DEFAULT_LIB, LIB_DIR } from './stdlib.js';

/**
 * Strict-only errors whose cause the lowering refuses on its own: implicit `any` (types tsad cannot
 * convert), possibly-undefined or -null values (union types tsad cannot convert).
 */
const STRICT_ONLY_CHECKED_BY_TSAD = new Set([
  18048, 18047, 18049, 2532, 2531, 2533, // 'x' is possibly 'undefined' / 'null'; Object is possibly …
  7005, 7006, 7008, 7010, 7011, 7015, 7018, 7019, 7022, 7023, 7024, 7031, 7034, 7053, // implicit any
]);

export interface UserTypeError {
  d: ts.Diagnostic;
  /** true: reported under --strict only (tsad's own wording applies) */
  strictOnly: boolean;
}

/** The errors to report for a program checked with --strict (`keep` selects the user's files). */
export function userTypeErrors(program: ts.Program, keep: (d: ts.Diagnostic) => boolean): UserTypeError[] {
  const strict = ts.getPreEmitDiagnostics(program).filter((d) => d.category === ts.DiagnosticCategory.Error && keep(d));
  if (!strict.length) return [];
  const loose = ts.getPreEmitDiagnostics(permissive(program)).filter((d) => d.category === ts.DiagnosticCategory.Error && keep(d) && !autoTypedRedeclaration(d));
  const key = (d: ts.Diagnostic) => `${d.file?.fileName}:${d.start}:${d.code}`;
  const inLoose = new Set(loose.map(key));
  const out: UserTypeError[] = loose.map((d) => ({ d, strictOnly: false }));
  const checker = program.getTypeChecker();
  for (const d of strict) if (!inLoose.has(key(d)) && !STRICT_ONLY_CHECKED_BY_TSAD.has(d.code) && !autoTypedRedeclaration(d) && !varReadBeforeAssigned(d, checker)) out.push({ d, strictOnly: true });
  return out.sort((a, b) => (a.d.file?.fileName ?? '').localeCompare(b.d.file?.fileName ?? '') || (a.d.start ?? 0) - (b.d.start ?? 0));
}

/** the same files checked with tsc's default (non-strict) settings, parsed files shared */
function permissive(program: ts.Program): ts.Program {
  const options: ts.CompilerOptions = { ...program.getCompilerOptions(), strict: false, noImplicitAny: false, strictNullChecks: false };
  const host: ts.CompilerHost = {
    getSourceFile: (f) => program.getSourceFile(f),
    getDefaultLibFileName: () => DEFAULT_LIB, // the same standard library as the strict program
    getDefaultLibLocation: () => LIB_DIR,
    writeFile: () => {},
    getCurrentDirectory: () => program.getCurrentDirectory(),
    getCanonicalFileName: (f) => f,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (f) => !!program.getSourceFile(f),
    readFile: (f) => program.getSourceFile(f)?.text,
    directoryExists: () => true,
    getDirectories: () => [],
  };
  return ts.createProgram({ rootNames: program.getRootFileNames(), options, host });
}

/**
 * `var j; … for (var j = 0; …)`: TypeScript types the first declaration `any` and reports the second
 * (2403), though JavaScript has one variable and down-levelled code writes this often. tsad types such a
 * binding by the values it is given (var-scope.ts hoistedType) and refuses it when they disagree, so
 * this error is left to it.
 */
function autoTypedRedeclaration(d: ts.Diagnostic): boolean {
  if (d.code !== 2403 || !d.file || d.start === undefined) return false;
  let n: ts.Node | undefined = findToken(d.file, d.start);
  while (n && !ts.isVariableDeclaration(n)) n = n.parent;
  if (!n || !ts.isVariableDeclaration(n) || !ts.isIdentifier(n.name)) return false;
  const list = n.parent;
  if (!ts.isVariableDeclarationList(list) || list.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const)) return false;
  // some declaration of the same name in the function is bare (`var j;`): it is the one typed `any`
  const name = n.name.text;
  let scope: ts.Node = n;
  while (scope.parent && !ts.isFunctionLike(scope) && !ts.isSourceFile(scope)) scope = scope.parent;
  let bare = false;
  const visit = (x: ts.Node): void => {
    if (bare || (ts.isFunctionLike(x) && x !== scope)) return;
    if (ts.isVariableDeclaration(x) && ts.isIdentifier(x.name) && x.name.text === name && !x.type && !x.initializer) bare = true;
    x.forEachChild(visit);
  };
  scope.forEachChild(visit);
  return bare;
}

/**
 * A `var` read TypeScript cannot prove assigned (2454): `for (var i = 0; i < 3; i++) { var t = …; }`
 * then `t` after the loop, which its flow analysis does not know runs. tsad's own check over the lowered
 * function (var-scope.ts checkDefiniteAssignment) decides, and refuses a read that may see undefined
 * (a `let` stays TypeScript's to refuse).
 */
function varReadBeforeAssigned(d: ts.Diagnostic, checker: ts.TypeChecker): boolean {
  if (d.code !== 2454 || !d.file || d.start === undefined) return false;
  const id = findToken(d.file, d.start);
  const decls = id && ts.isIdentifier(id) ? (checker.getSymbolAtLocation(id)?.declarations ?? []) : [];
  return decls.length > 0 && decls.every((x) => ts.isVariableDeclaration(x) && ts.isVariableDeclarationList(x.parent) && (x.parent.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const | ts.NodeFlags.Using)) === 0);
}

function findToken(sf: ts.SourceFile, pos: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (n: ts.Node): void => {
    if (pos < n.getStart(sf) || pos >= n.end) return;
    found = n;
    n.forEachChild(visit);
  };
  sf.forEachChild(visit);
  return found;
}

/** the compiler's internal region check: the program's method takes the nodes to check as a third argument (TypeScript ≥ 5.6) */
type RegionCheck = (sf: ts.SourceFile, token: ts.CancellationToken | undefined, nodes: readonly ts.Node[]) => readonly ts.Diagnostic[];

/**
 * Whether tsc, checking with --strict, reports an error in `nodes` of `sf`, in its syntax or bindings,
 * or program-wide: only those nodes are type-checked (the language server's region diagnostics). A
 * caller that finds one takes the whole-file path, which says which errors to report and how.
 */
export function hasErrorsIn(program: ts.Program, sf: ts.SourceFile, nodes: readonly ts.Node[]): boolean {
  const error = (ds: readonly ts.Diagnostic[]) => ds.some((d) => d.category === ts.DiagnosticCategory.Error);
  if (error(program.getSyntacticDiagnostics(sf)) || error(program.getOptionsDiagnostics()) || error(program.getGlobalDiagnostics())) return true;
  return error((program.getSemanticDiagnostics as unknown as RegionCheck)(sf, undefined, nodes));
}
