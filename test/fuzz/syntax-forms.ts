// Source spellings the front end accepts that lower to IR the coverage classifier cannot tell from
// other spellings (a `type` alias is its type, `x == null` a test, `e as T` is `e`, `o['u']` is
// `o.u`): counted on the generated source, by syntax, as cells of the coverage table
// (test/fuzz/coverage.ts: `syntax.*`, type and effect `-`, counted once per program as straight-line).
// The generator writes them in TsFormSpec (test/fuzz/generator.ts).
import ts from 'typescript';

/** `|` and `>>` (the generator's `| 0` and halving) aside: these are the bitwise operators it did not write */
const BITWISE = new Set([
  ts.SyntaxKind.AmpersandToken, ts.SyntaxKind.CaretToken, ts.SyntaxKind.LessThanLessThanToken, ts.SyntaxKind.GreaterThanGreaterThanGreaterThanToken,
  ts.SyntaxKind.AmpersandEqualsToken, ts.SyntaxKind.BarEqualsToken, ts.SyntaxKind.CaretEqualsToken, ts.SyntaxKind.LessThanLessThanEqualsToken,
  ts.SyntaxKind.GreaterThanGreaterThanEqualsToken, ts.SyntaxKind.GreaterThanGreaterThanGreaterThanEqualsToken,
]);

const UINT = new Set(['Uint16Array', 'Uint32Array', 'Uint8ClampedArray']);

/** each form and whether a node is one */
export const SYNTAX_FORMS = {
  // `type Span = { lo: number; hi: number }`, `type Pair = [number, number]`
  'syntax.typealias': (n: ts.Node) => ts.isTypeAliasDeclaration(n),
  // `interface Scaled extends P { k: number }`
  'syntax.extends': (n: ts.Node) => ts.isInterfaceDeclaration(n) && !!n.heritageClauses?.length,
  // `if (!(w >= 0)) throw new RangeError(…)`
  'syntax.throw': (n: ts.Node) => ts.isThrowStatement(n),
  // `y == null`, `k != 1`
  'syntax.looseeq': (n: ts.Node) => ts.isBinaryExpression(n) && (n.operatorToken.kind === ts.SyntaxKind.EqualsEqualsToken || n.operatorToken.kind === ts.SyntaxKind.ExclamationEqualsToken),
  // `e as number`, `{ … } satisfies P`, `<number>e` (not `[] as number[]`, which the generator wrote already)
  'syntax.cast': (n: ts.Node) => (ts.isAsExpression(n) && !ts.isArrayLiteralExpression(n.expression)) || ts.isSatisfiesExpression(n) || ts.isTypeAssertionExpression(n),
  // `k & 1`, `k ^ 1`, `k << 1`, `m >>> 0`, `~m`, `m |= k`
  'syntax.bitwise': (n: ts.Node) => (ts.isBinaryExpression(n) && BITWISE.has(n.operatorToken.kind)) || (ts.isPrefixUnaryExpression(n) && n.operator === ts.SyntaxKind.TildeToken),
  // `Number.isFinite(e)`, `Number.MAX_VALUE`, … (not `Number.EPSILON`, which the generator wrote already)
  'syntax.number': (n: ts.Node) => ts.isPropertyAccessExpression(n) && ts.isIdentifier(n.expression) && n.expression.text === 'Number' && n.name.text !== 'EPSILON',
  // `o['u']`, `o['v'] = e`
  'syntax.keyaccess': (n: ts.Node) => ts.isElementAccessExpression(n) && ts.isStringLiteral(n.argumentExpression),
  // `new Uint16Array(4)`, `Uint32Array.from(…)`, `new Uint8ClampedArray(…)`
  'syntax.uint': (n: ts.Node) => ts.isIdentifier(n) && UINT.has(n.text) && (ts.isNewExpression(n.parent) || ts.isPropertyAccessExpression(n.parent)),
} as const;
export type SyntaxForm = keyof typeof SYNTAX_FORMS;
export const SYNTAX_FORM_NAMES = Object.keys(SYNTAX_FORMS) as SyntaxForm[];

/** the forms a module's source holds (each once) */
export function syntaxFormsOf(source: string): Set<SyntaxForm> {
  const sf = ts.createSourceFile('program.ts', source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const found = new Set<SyntaxForm>();
  const visit = (n: ts.Node): void => {
    for (const f of SYNTAX_FORM_NAMES) if (!found.has(f) && SYNTAX_FORMS[f](n)) found.add(f);
    n.forEachChild(visit);
  };
  visit(sf);
  return found;
}
