// The part of a module one function needs. `grad(loss)` may name a function of the module that calls
// it, and that module is an app's: it imports the runtime API from 'tsad', runs statements at the top
// level, keeps values computed by calls. None of that is the function's, and the compiler takes a
// module of declarations from relative files only. So the compiler is given the declarations the
// function reaches (functions, classes, constants, types, the imports they name), found by name from
// it, and every other top-level statement is blanked where it stands: lines and columns stay, so
// diagnostics and source maps point into the file as written.
import ts from 'typescript';
import { scriptKind } from './files.js';

/** the names a top-level statement declares (an import: the names it binds) */
function declaredNames(s: ts.Statement): string[] {
  if (ts.isImportDeclaration(s)) {
    const c = s.importClause;
    if (!c) return [];
    const named = c.namedBindings;
    return [...(c.name ? [c.name.text] : []), ...(named ? (ts.isNamespaceImport(named) ? [named.name.text] : named.elements.map((e) => e.name.text)) : [])];
  }
  if (ts.isImportEqualsDeclaration(s)) return [s.name.text];
  if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name) return [s.name.text];
  if (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s) || ts.isEnumDeclaration(s)) return [s.name.text];
  if (ts.isModuleDeclaration(s) && ts.isIdentifier(s.name)) return [s.name.text];
  if (ts.isVariableStatement(s)) return s.declarationList.declarations.flatMap((d) => bindingNames(d.name));
  return [];
}

function bindingNames(n: ts.BindingName): string[] {
  if (ts.isIdentifier(n)) return [n.text];
  return n.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

/** a checker of the one file, on its own: it binds names to their declarations (nothing is resolved or type-checked) */
function binderOf(sf: ts.SourceFile): ts.TypeChecker {
  const options: ts.CompilerOptions = { noLib: true, noResolve: true, types: [], allowJs: true };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang) => (name === sf.fileName ? sf : getSourceFile(name, lang));
  return ts.createProgram({ rootNames: [sf.fileName], options, host }).getTypeChecker();
}

/** the top-level statements whose declarations the identifiers of `s` name (a parameter or local of the same name is not one) */
function referencedStatements(s: ts.Node, checker: ts.TypeChecker, topLevel: ReadonlySet<ts.Node>): Set<ts.Statement> {
  const out = new Set<ts.Statement>();
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n)) {
      const sym = ts.isShorthandPropertyAssignment(n.parent) ? checker.getShorthandAssignmentValueSymbol(n.parent) : checker.getSymbolAtLocation(n);
      for (const d of sym?.declarations ?? []) {
        let at: ts.Node = d;
        while (at.parent && !topLevel.has(at)) at = at.parent;
        if (topLevel.has(at) && at !== s) out.add(at as ts.Statement);
      }
    }
    n.forEachChild(visit);
  };
  visit(s);
  return out;
}

/**
 * `code` with every top-level statement `head` does not reach, directly or through others, blanked
 * (spaces, its line breaks kept). Unchanged when `head` is not declared at the top level.
 */
export function neededPart(code: string, file: string, head: string): string {
  const sf = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, scriptKind(file));
  const heads = sf.statements.filter((s) => declaredNames(s).includes(head));
  if (!heads.length) return code;
  const checker = binderOf(sf);
  const topLevel = new Set<ts.Node>(sf.statements);
  const kept = new Set<ts.Statement>();
  const todo = [...heads];
  while (todo.length) {
    const s = todo.pop()!;
    if (kept.has(s)) continue;
    kept.add(s);
    for (const r of referencedStatements(s, checker, topLevel)) todo.push(r);
  }
  let out = code;
  for (const s of [...sf.statements].reverse()) {
    if (kept.has(s)) continue;
    const start = s.getStart(sf);
    out = out.slice(0, start) + out.slice(start, s.end).replace(/[^\r\n]/g, ' ') + out.slice(s.end);
  }
  return out;
}
