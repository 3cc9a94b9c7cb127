// What a JSDoc comment says in a JavaScript file where TypeScript has syntax of its own: an optional
// parameter (`@param {boolean} [on]`, TypeScript's `on?: boolean`) and a cast to a type without null or
// undefined (`/** @type {number} */ (st.pop())`, TypeScript's `st.pop()!`). tsc --checkJs reads them
// so; the front end asks here wherever it looks for the TypeScript spelling.
import ts from 'typescript';

const inJavaScript = (n: ts.Node): boolean => !!(n.getSourceFile().flags & ts.NodeFlags.JavaScriptFile);

/** `p?: T`, or in JavaScript `@param {T} [p]` (without a default: one makes any parameter optional) */
export function isOptionalParam(p: ts.ParameterDeclaration): boolean {
  if (p.questionToken) return true;
  if (!inJavaScript(p) || p.initializer) return false;
  return ts.getJSDocParameterTags(p).some((t) => t.isBracketed || (t.typeExpression && ts.isJSDocOptionalType(t.typeExpression.type)));
}

/** `e!`, or in JavaScript a parenthesized `e` cast by `/** @type {T} *\/` to a T that holds neither null nor undefined */
export function assertsPresent(n: ts.Node): boolean {
  if (ts.isNonNullExpression(n)) return true;
  if (!ts.isParenthesizedExpression(n) || !inJavaScript(n)) return false;
  const t = ts.getJSDocTypeTag(n)?.typeExpression?.type;
  return !!t && !mayBeAbsent(t);
}

function mayBeAbsent(t: ts.TypeNode): boolean {
  if (ts.isParenthesizedTypeNode(t)) return mayBeAbsent(t.type);
  if (ts.isUnionTypeNode(t)) return t.types.some(mayBeAbsent);
  if (ts.isLiteralTypeNode(t)) return t.literal.kind === ts.SyntaxKind.NullKeyword;
  return t.kind === ts.SyntaxKind.UndefinedKeyword || t.kind === ts.SyntaxKind.AnyKeyword || t.kind === ts.SyntaxKind.UnknownKeyword || ts.isJSDocNullableType(t) || ts.isJSDocAllType(t) || ts.isJSDocUnknownType(t) || ts.isJSDocOptionalType(t);
}
