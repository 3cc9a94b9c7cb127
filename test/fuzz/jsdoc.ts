// A generated TypeScript program rewritten as the JavaScript people type with JSDoc comments (what
// `tsad f.js` reads and checks as tsc --checkJs does): every annotation becomes a comment, the program
// is otherwise the same text, so its derivatives must be the TypeScript version's in every mode.
//
//   interface P { u: number; z?: number }      /** @typedef {object} P  @property {number} u  @property {number} [z] */
//   interface S extends P { k: number }        /** @typedef {P & { k: number }} S */
//   function f(x: number, k = 2): number       /** @param {number} x  @param {number} [k]  @returns {number} */ function f(x, k = 2)
//   const t: number[] = []                     /** @type {number[]} */ const t = []
//   e as T, <T>e, e!                           /** @type {T} */ (e)   (e!'s T: the checker's type of e!)
//   e satisfies T                              /** @satisfies {T} */ (e)
//   constructor(public pos: number)            a field `pos` and `this.pos = pos;` first in the body
//   private readonly buf: Float64Array;        /** @private @readonly @type {Float64Array} */ buf;
//
// A form with no JSDoc spelling (a namespace, an enum, overloads, type parameters, a class field
// declared optional or definite) gives null: the program is not rewritten.
import ts from 'typescript';
import { createProgram } from '../../src/frontend/lower.js';

interface Edit {
  pos: number;
  end: number;
  text: string;
  /** creation order: of two insertions at one place, the earlier (an enclosing node's) comes first */
  seq: number;
}

const FILE = 'program.ts';

/** The JSDoc-typed JavaScript of a TypeScript module, or null where a form has no JSDoc spelling. */
export function jsdocOf(source: string): string | null {
  const program = createProgram(new Map([[FILE, source]]));
  const sf = program.getSourceFiles().find((f) => f.fileName.endsWith(FILE))!;
  const checker = program.getTypeChecker();
  const edits: Edit[] = [];
  const edit = (pos: number, end: number, text: string) => edits.push({ pos, end, text, seq: edits.length });
  const typeText = (t: ts.TypeNode) => t.getText(sf).replace(/\s*\n\s*/g, ' ');
  const indentAt = (pos: number) => /^[ \t]*/.exec(source.slice(source.lastIndexOf('\n', pos - 1) + 1))![0];
  /** removes `: T` after a name, with the `?` or `!` between them */
  const dropType = (name: ts.Node, type: ts.TypeNode) => edit(name.end, type.end, '');
  let unsupported = false;

  /** a comment block at `node`'s start, on lines of its own when the node starts its line */
  const comment = (node: ts.Node, tags: string[]) => {
    if (!tags.length) return;
    const at = node.getStart(sf);
    const ownLine = /^[ \t]*$/.test(source.slice(source.lastIndexOf('\n', at - 1) + 1, at));
    const ind = indentAt(at);
    edit(at, at, ownLine && tags.length > 1 ? `/**\n${tags.map((t) => `${ind} * ${t}\n`).join('')}${ind} */\n${ind}` : `/** ${tags.join(' ')} */ `);
  };

  /** where a function's comment goes: the variable statement it initializes, else the function itself */
  const commentHost = (fn: ts.SignatureDeclaration): ts.Node => {
    const p = fn.parent;
    if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isVariableDeclaration(p) && p.initializer === fn && !p.type && ts.isVariableDeclarationList(p.parent) && p.parent.declarations.length === 1 && ts.isVariableStatement(p.parent.parent))
      return p.parent.parent;
    return fn;
  };

  const visitFunction = (fn: ts.SignatureDeclaration) => {
    if (fn.typeParameters?.length) unsupported = true;
    const tags: string[] = [];
    const patterned = fn.parameters.some((p) => !ts.isIdentifier(p.name));
    const fields: string[] = [];
    for (const [k, p] of fn.parameters.entries()) {
      const name = ts.isIdentifier(p.name) ? p.name.text : `arg${k}`;
      // (a default makes a parameter optional already: brackets on it would make the parameters after it optional too)
      const optional = !!p.questionToken;
      if (p.type) tags.push(`@param {${typeText(p.type)}} ${optional ? `[${name}]` : name}`);
      else if (patterned) unsupported = true; // (tags of destructured parameters are matched by position)
      if (p.type) dropType(p.name, p.type);
      else if (p.questionToken) edit(p.questionToken.pos, p.questionToken.end, '');
      for (const m of p.modifiers ?? []) edit(m.getStart(sf), m.end + 1, '');
      // a parameter property: a field of its own, given its value first in the body
      if (p.modifiers?.length && ts.isIdentifier(p.name)) fields.push(name);
      if (p.modifiers?.length && p.type) {
        const own = fieldTags(p.modifiers, p.type);
        const ctor = fn as ts.ConstructorDeclaration;
        const ind = indentAt(ctor.getStart(sf));
        edit(ctor.getStart(sf), ctor.getStart(sf), `/** ${own.join(' ')} */\n${ind}${name};\n\n${ind}`);
      }
    }
    if (fn.type) {
      tags.push(`@returns {${typeText(fn.type)}}`);
      // (`(x): number => …`, `f(): number {`: the type after the closing parenthesis)
      edit(source.lastIndexOf(':', fn.type.pos), fn.type.end, '');
    }
    comment(commentHost(fn), tags);
    if (fields.length) {
      const body = (fn as ts.ConstructorDeclaration).body!;
      const ind = indentAt(fn.getStart(sf)) + '  ';
      const first = body.statements[0];
      const afterSuper = first && ts.isExpressionStatement(first) && ts.isCallExpression(first.expression) && first.expression.expression.kind === ts.SyntaxKind.SuperKeyword;
      const assigns = fields.map((f) => `\n${ind}this.${f} = ${f};`).join('');
      const at = afterSuper ? first.end : body.getStart(sf) + 1;
      edit(at, at, body.statements.length ? assigns : `${assigns}\n${indentAt(fn.getStart(sf))}`);
    }
  };

  /** the tags of a class field: its access and readonly modifiers, then its type */
  const fieldTags = (modifiers: ts.NodeArray<ts.ModifierLike>, type: ts.TypeNode | undefined): string[] => {
    const tags: string[] = [];
    for (const m of modifiers) {
      if (m.kind === ts.SyntaxKind.PrivateKeyword) tags.push('@private');
      else if (m.kind === ts.SyntaxKind.ProtectedKeyword) tags.push('@protected');
      else if (m.kind === ts.SyntaxKind.ReadonlyKeyword) tags.push('@readonly');
    }
    if (type) tags.push(`@type {${typeText(type)}}`);
    return tags;
  };

  /** `/** @type {T} *\/ (e)` in place of `e as T`, `<T>e`, `e!` */
  const cast = (outer: ts.Expression, inner: ts.Expression, type: string) => {
    edit(outer.getStart(sf), inner.getStart(sf), `/** @type {${type}} */ (`);
    edit(inner.end, outer.end, ')');
  };

  const visit = (n: ts.Node): void => {
    if (ts.isModuleDeclaration(n) || ts.isEnumDeclaration(n) || ts.isTypeParameterDeclaration(n) || (ts.isFunctionLike(n) && !(n as ts.FunctionLikeDeclaration).body && !ts.isTypeNode(n)) || ts.isDecorator(n)) {
      unsupported = true;
      return;
    }
    if (ts.isTypeNode(n) && !ts.isExpressionWithTypeArguments(n)) return;
    if (ts.isInterfaceDeclaration(n)) {
      if (n.members.some((m) => !ts.isPropertySignature(m) || !m.type)) unsupported = true;
      const ind = indentAt(n.getStart(sf));
      const props = n.members.filter(ts.isPropertySignature);
      const bases = n.heritageClauses?.flatMap((h) => h.types.map((t) => t.getText(sf))) ?? [];
      // (an interface extending others: the intersection of its bases and its own fields)
      if (bases.length) edit(n.getStart(sf), n.end, `/** @typedef {${[...bases, `{ ${props.map((m) => `${m.name.getText(sf)}${m.questionToken ? '?' : ''}: ${typeText(m.type!)}`).join('; ')} }`].join(' & ')}} ${n.name.text} */`);
      else edit(n.getStart(sf), n.end, `/**\n${ind} * @typedef {object} ${n.name.text}\n${props.map((m) => `${ind} * @property {${typeText(m.type!)}} ${m.questionToken ? `[${m.name.getText(sf)}]` : m.name.getText(sf)}\n`).join('')}${ind} */`);
      return;
    }
    if (ts.isTypeAliasDeclaration(n)) {
      edit(n.getStart(sf), n.end, `/** @typedef {${typeText(n.type)}} ${n.name.text} */`);
      return;
    }
    if (ts.isHeritageClause(n) && n.token === ts.SyntaxKind.ImplementsKeyword) {
      edit(n.pos, n.end, '');
      return;
    }
    if (ts.isClassDeclaration(n) && n.modifiers?.some((m) => m.kind === ts.SyntaxKind.AbstractKeyword)) unsupported = true;
    if (ts.isFunctionLike(n) && !ts.isTypeNode(n)) visitFunction(n);
    else if (ts.isPropertyDeclaration(n)) {
      const own = n.modifiers?.filter((m) => m.kind !== ts.SyntaxKind.StaticKeyword) ?? [];
      for (const m of own) edit(m.getStart(sf), m.end + 1, '');
      if (n.type) dropType(n.name, n.type);
      if (n.questionToken || n.exclamationToken) unsupported = true;
      const tags = fieldTags(n.modifiers ?? ts.factory.createNodeArray(), n.type);
      if (tags.length) {
        const at = n.getStart(sf);
        edit(at, at, `/** ${tags.join(' ')} */ `);
      }
    } else if (ts.isVariableDeclaration(n) && n.type) {
      const list = n.parent as ts.VariableDeclarationList;
      const single = list.declarations.length === 1 && ts.isVariableStatement(list.parent);
      dropType(n.name, n.type);
      if (single) comment(list.parent, [`@type {${typeText(n.type)}}`]);
      // (one of several declarations: its comment goes before its name)
      else edit(n.getStart(sf), n.getStart(sf), `/** @type {${typeText(n.type)}} */ `);
    } else if (ts.isAsExpression(n) || ts.isTypeAssertionExpression(n)) {
      cast(n, n.expression, ts.isConstTypeReference(n.type) ? 'const' : typeText(n.type));
    } else if (ts.isSatisfiesExpression(n)) {
      edit(n.getStart(sf), n.expression.getStart(sf), `/** @satisfies {${typeText(n.type)}} */ (`);
      edit(n.expression.end, n.end, ')');
    } else if (ts.isNonNullExpression(n)) {
      cast(n, n.expression, checker.typeToString(checker.getTypeAtLocation(n), undefined, ts.TypeFormatFlags.NoTruncation));
    } else if ((ts.isCallExpression(n) || ts.isNewExpression(n)) && n.typeArguments?.length) {
      const at = n.typeArguments.pos - 1;
      edit(at, n.typeArguments.end + 1, '');
      const t = checker.typeToString(checker.getTypeAtLocation(n), undefined, ts.TypeFormatFlags.NoTruncation);
      edit(n.getStart(sf), n.getStart(sf), `/** @type {${t}} */ (`);
      edit(n.end, n.end, ')');
    }
    n.forEachChild(visit);
  };
  sf.forEachChild(visit);
  if (unsupported) return null;
  // from the end, so that each edit's offsets still hold; at one place, a removal first, then insertions
  // (the later-made first, so that an enclosing node's comes out in front)
  edits.sort((a, b) => b.pos - a.pos || (b.end - b.pos) - (a.end - a.pos) || b.seq - a.seq);
  let out = source;
  for (const e of edits) out = out.slice(0, e.pos) + e.text + out.slice(e.end);
  return out;
}
