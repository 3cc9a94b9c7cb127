// Types for the local declarations of plain JavaScript that TypeScript types too loosely: a bare `let y;`
// (assigned in the branches of a switch or an if) gets the one type of the values assigned to it, and a
// `const args = [a, b, t]` used only as `f(...args)` the tuple type its literal has (TypeScript says
// `number[]`, which a call cannot spread into fixed parameters). TypeScript types such a variable by
// flow only (its declaration is `any`), which the strict front end cannot take as it is; annotated
// `let y: number;`, the strict front end checks every assignment and every read (a read before it is
// assigned is its located error), so a wrong guess is a type error, never a wrong derivative.
import ts from 'typescript';
import { createProgram } from '../frontend/lower.js';

/** `let y;` or `var y;`: a declaration with neither a type nor a value (not a `for…of` or `for…in` head) */
function isBare(d: ts.VariableDeclaration): boolean {
  const head = d.parent.parent;
  return ts.isIdentifier(d.name) && !d.type && !d.initializer && !ts.isForOfStatement(head) && !ts.isForInStatement(head);
}

function declarations(sf: ts.SourceFile, which: (d: ts.VariableDeclaration) => boolean): ts.VariableDeclaration[] {
  const out: ts.VariableDeclaration[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isVariableDeclaration(n) && which(n)) out.push(n);
    n.forEachChild(visit);
  };
  visit(sf);
  return out;
}

const bareDeclarations = (sf: ts.SourceFile) => declarations(sf, isBare);
const spreadTuples = (sf: ts.SourceFile) => declarations(sf, isArrayLiteralConst);
const candidates = (sf: ts.SourceFile) => declarations(sf, (d) => isBare(d) || isArrayLiteralConst(d));

/** the right-hand sides of `name = e` for the variable `d` declares, anywhere in the file */
function assignedValues(sf: ts.SourceFile, d: ts.VariableDeclaration, checker: ts.TypeChecker): ts.Expression[] {
  const sym = checker.getSymbolAtLocation(d.name);
  const out: ts.Expression[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      let left: ts.Expression = n.left;
      while (ts.isParenthesizedExpression(left)) left = left.expression;
      if (ts.isIdentifier(left) && sym && checker.getSymbolAtLocation(left) === sym) out.push(n.right);
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return out;
}

/** `const xs = [a, b, c]` with no annotation, of two or more elements, none of them spread */
function isArrayLiteralConst(d: ts.VariableDeclaration): boolean {
  const init = d.initializer;
  return ts.isIdentifier(d.name) && !d.type && !!init && ts.isArrayLiteralExpression(init) && init.elements.length > 1 && !init.elements.some(ts.isSpreadElement) && !!(d.parent.flags & ts.NodeFlags.Const);
}

/** every use of the variable `d` declares is a spread argument of a call (`f(...xs)`): it is never written */
function onlySpread(sf: ts.SourceFile, d: ts.VariableDeclaration, checker: ts.TypeChecker): boolean {
  const sym = checker.getSymbolAtLocation(d.name);
  let uses = 0;
  let other = false;
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n) && n !== d.name && sym && checker.getSymbolAtLocation(n) === sym) {
      uses++;
      if (!(ts.isSpreadElement(n.parent) && ts.isCallExpression(n.parent.parent))) other = true;
    }
    n.forEachChild(visit);
  };
  visit(sf);
  return uses > 0 && !other;
}

/** a type that says what a value holds (not `any`, `never`, `undefined`, `null` or a union with them) */
const DEFINITE = (t: string) => !/\b(any|never|undefined|null|void|unknown)\b/.test(t);

/**
 * The module text with each bare local declaration annotated with the one type of the values assigned
 * to it. Declarations with no assignment, or assigned values of different or indefinite types, are left
 * as they are (the front end then refuses them, located).
 */
export function annotateLocals(text: string): string {
  // most functions declare neither: they cost no program
  if (!candidates(ts.createSourceFile('m.ts', text, ts.ScriptTarget.ES2020, true)).length) return text;
  const program = createProgram(new Map([['m.ts', text]]), { strict: false, noImplicitAny: true, strictNullChecks: true });
  const sf = program.getSourceFile('/m.ts')!;
  const checker = program.getTypeChecker();
  const edits: { at: number; type: string }[] = [];
  for (const d of bareDeclarations(sf)) {
    const types = new Set(assignedValues(sf, d, checker).map((v) => checker.typeToString(checker.getBaseTypeOfLiteralType(checker.getTypeAtLocation(v)))));
    const [type] = types;
    if (types.size === 1 && DEFINITE(type)) edits.push({ at: d.name.end, type });
  }
  for (const d of spreadTuples(sf)) {
    if (!onlySpread(sf, d, checker)) continue;
    const elems = (d.initializer as ts.ArrayLiteralExpression).elements.map((e) => checker.typeToString(checker.getBaseTypeOfLiteralType(checker.getTypeAtLocation(e))));
    if (elems.every(DEFINITE)) edits.push({ at: d.name.end, type: `[${elems.join(', ')}]` });
  }
  // from the back, so that earlier offsets stay valid
  let out = text;
  for (const e of edits.sort((a, b) => b.at - a.at)) out = out.slice(0, e.at) + `: ${e.type}` + out.slice(e.at);
  return out;
}
