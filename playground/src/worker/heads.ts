// The functions a user may pick as the head, read with TypeScript's parser alone: cheap, and it still
// works while the code does not type-check (the list must not empty itself at every typo).
import ts from 'typescript';

export interface Heads {
  /** top-level functions (declarations and `const f = (…) => …`), then class methods as `Class.method` */
  names: string[];
  /** the last exported function, else the first function */
  preferred: string | undefined;
}

const exported = (s: ts.Statement) => !!ts.getModifiers(s as ts.HasModifiers)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

export function headsOf(source: string): Heads {
  const sf = ts.createSourceFile('input.ts', source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const functions: string[] = [];
  const exports: string[] = [];
  const methods: string[] = [];
  const add = (name: string, s: ts.Statement) => {
    functions.push(name);
    if (exported(s)) exports.push(name);
  };
  for (const s of sf.statements) {
    if (ts.isFunctionDeclaration(s) && s.name && s.body) add(s.name.text, s);
    else if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations)
        if (ts.isIdentifier(d.name) && d.initializer && (ts.isArrowFunction(d.initializer) || ts.isFunctionExpression(d.initializer))) add(d.name.text, s);
    } else if (ts.isClassDeclaration(s) && s.name) {
      for (const m of s.members) if (ts.isMethodDeclaration(m) && m.body && ts.isIdentifier(m.name)) methods.push(`${s.name.text}.${m.name.text}`);
    }
  }
  return { names: [...functions, ...methods], preferred: exports[exports.length - 1] ?? functions[0] };
}
