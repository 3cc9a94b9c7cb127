// Classes in the runtime API's scope (`grad(loss, { scope: { Particle } })`). JavaScript prints a class
// without field or parameter types; the front end needs TypeScript with both. A class is declared in
// the module with its fields (each `this.f = …` the class assigns) and its parameters annotated: the
// constructor's from `new K(…)` and `super(…)`, a method's from its calls, a setter's from the values
// assigned through it, a field's from the values the class assigns to it (or pushes into it), and from
// the instances passed as arguments, whose fields hold values. infer.ts learns these types in the same
// rounds as the helpers'; whatever is guessed is checked again by the strict front end.
import ts from 'typescript';
import { TsadError } from '../frontend/diagnostics.js';
import { tyOfValue, typeText } from './shapes.js';

export interface ClassSource {
  /** the name in scope, under which the class is declared */
  name: string;
  /** the class a `extends` clause names, if any */
  base: string | null;
  node: ts.ClassExpression;
  sf: ts.SourceFile;
}

/** The class a scope entry holds (its printed source), or a located error if it cannot be read back. */
export function readClass(name: string, ctor: unknown): ClassSource {
  const text = Function.prototype.toString.call(ctor);
  const sf = ts.createSourceFile('c.ts', `(${text})`, ts.ScriptTarget.ES2022, true);
  const st = sf.statements[0];
  const node = sf.statements.length === 1 && st && ts.isExpressionStatement(st) && ts.isParenthesizedExpression(st.expression) ? st.expression.expression : null;
  if (!node || !ts.isClassExpression(node))
    throw new TsadError([{ file: `scope.${name}`, line: 1, col: 1, message: `scope entry '${name}' is a class whose source cannot be read back`, hint: 'pass a class written in JavaScript source (not a built-in or bound class)', severity: 'error' }]);
  const ext = node.heritageClauses?.find((h) => h.token === ts.SyntaxKind.ExtendsKeyword)?.types[0]?.expression;
  const base = ext && ts.isIdentifier(ext) ? ext.text : null;
  if (ext && !base)
    throw new TsadError([{ file: `scope.${name}`, line: 1, col: 1, message: `class '${name}' extends an expression tsad cannot follow`, hint: 'extend a class by its name, and pass that class in scope too', severity: 'error' }]);
  const replaced = replacedMember(ctor as { prototype?: object }, text);
  if (replaced)
    throw new TsadError([{ file: `scope.${name}`, line: 1, col: 1, message: `the ${replaced} of class '${name}' was replaced after the class was defined: tsad reads the class's source, which still has the old one`, hint: 'write the new method in the class itself (or in a subclass), and pass that class in scope', severity: 'error' }]);
  return { name, base, node, sf };
}

/** a method (or accessor) of `ctor` or its prototype whose source is not in the class's own text: assigned later */
function replacedMember(ctor: { prototype?: object }, text: string): string | null {
  const owners: [object | undefined, string][] = [[ctor, 'static member'], [ctor.prototype, 'method']];
  for (const [o, what] of owners) {
    if (!o) continue;
    for (const n of Object.getOwnPropertyNames(o)) {
      if (n === 'constructor' || n === 'prototype') continue;
      const d = Object.getOwnPropertyDescriptor(o, n)!;
      for (const f of [d.value, d.get, d.set]) if (typeof f === 'function' && !text.includes(Function.prototype.toString.call(f))) return `${what} '${n}'`;
    }
  }
  return null;
}

/** classes with each base before the classes extending it (a base declared later is a TypeScript error) */
export function basesFirst(classes: readonly ClassSource[]): ClassSource[] {
  const byName = new Map(classes.map((c) => [c.name, c]));
  const out: ClassSource[] = [];
  const placed = new Set<string>();
  const place = (c: ClassSource, depth: number): void => {
    if (placed.has(c.name) || depth > classes.length) return;
    const b = c.base && byName.get(c.base);
    if (b) place(b, depth + 1);
    placed.add(c.name);
    out.push(c);
  };
  for (const c of classes) place(c, 0);
  return out;
}

/** the key under which a member's parameter types are learnt: `K.constructor`, `K.m`, `K.set x` */
export function memberKey(cls: string, m: ts.ClassElement): string | null {
  if (ts.isConstructorDeclaration(m)) return `${cls}.constructor`;
  const key = m.name && (ts.isIdentifier(m.name) || ts.isPrivateIdentifier(m.name) || ts.isStringLiteral(m.name)) ? m.name.text : null;
  if (key === null) return null;
  if (ts.isSetAccessorDeclaration(m)) return `${cls}.set ${key}`;
  return ts.isMethodDeclaration(m) ? `${cls}.${key}` : null;
}

/** the fields a class assigns through `this` without declaring them, in the order first assigned */
export function undeclaredFields(c: ClassSource): string[] {
  const declared = new Set(c.node.members.flatMap((m) => (ts.isPropertyDeclaration(m) && m.name && (ts.isIdentifier(m.name) || ts.isPrivateIdentifier(m.name)) ? [m.name.text] : [])));
  const accessors = new Set(c.node.members.flatMap((m) => ((ts.isGetAccessor(m) || ts.isSetAccessor(m)) && ts.isIdentifier(m.name) ? [m.name.text] : [])));
  const out: string[] = [];
  for (const a of thisAssignments(c.node)) {
    const f = a.name;
    if (!declared.has(f) && !accessors.has(f) && !out.includes(f)) out.push(f);
  }
  return out;
}

/** `this.f = v` (and `this.f ??= v`) in the class's members, outside nested non-arrow functions */
export function thisAssignments(node: ts.ClassLikeDeclaration): { name: string; value: ts.Expression }[] {
  const out: { name: string; value: ts.Expression }[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) || ts.isClassLike(n)) && n !== node) return;
    if (ts.isBinaryExpression(n) && (n.operatorToken.kind === ts.SyntaxKind.EqualsToken || n.operatorToken.kind === ts.SyntaxKind.QuestionQuestionEqualsToken)) {
      const l = n.left;
      if (ts.isPropertyAccessExpression(l) && l.expression.kind === ts.SyntaxKind.ThisKeyword) out.push({ name: l.name.text, value: n.right });
    }
    n.forEachChild(visit);
  };
  node.members.forEach(visit);
  return out;
}

/** `this.f.push(v)` in the class's members: what an array field built empty holds */
export function thisPushes(node: ts.ClassLikeDeclaration, field: string): ts.Expression[] {
  const out: ts.Expression[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isFunctionExpression(n) || ts.isFunctionDeclaration(n) || ts.isClassLike(n)) && n !== node) return;
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 'push' && n.arguments.length >= 1) {
      const arr = n.expression.expression;
      if (ts.isPropertyAccessExpression(arr) && arr.name.text === field && arr.expression.kind === ts.SyntaxKind.ThisKeyword) out.push(...n.arguments.filter((a) => !ts.isSpreadElement(a)));
    }
    n.forEachChild(visit);
  };
  node.members.forEach(visit);
  return out;
}

/** is field `f` assigned by a statement of the constructor's own body (not in a branch or loop)? */
function assignedInConstructor(c: ClassSource, f: string): boolean {
  const ctor = c.node.members.find(ts.isConstructorDeclaration);
  return !!ctor?.body?.statements.some((s) => {
    if (!ts.isExpressionStatement(s) || !ts.isBinaryExpression(s.expression) || s.expression.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return false;
    const l = s.expression.left;
    return ts.isPropertyAccessExpression(l) && l.expression.kind === ts.SyntaxKind.ThisKeyword && l.name.text === f;
  });
}

export interface ClassTypes {
  /** field types by `K.f` */
  fields: Map<string, string>;
  /** per member (memberKey), how many arguments every call passes: the parameters after those are optional */
  passed: Map<string, number>;
}

/**
 * The class as a TypeScript declaration: its undeclared fields declared with their types (`f!: T` where
 * the constructor does not assign it at its top), its members' untyped parameters annotated from
 * `params` (keys of memberKey), the rest of its text as written.
 */
export function annotateClass(c: ClassSource, params: ReadonlyMap<string, readonly (string | null)[]>, types: ClassTypes): string {
  const { node, sf } = c;
  const text = sf.text;
  const edits: { at: number; text: string }[] = [];
  for (const m of node.members) {
    const key = memberKey(c.name, m);
    const list = key && params.get(key);
    if (!list || !ts.isFunctionLike(m)) continue;
    const given = types.passed.get(key!) ?? Infinity;
    m.parameters.forEach((p, i) => {
      const left = i >= given && !p.initializer && !p.questionToken && !p.dotDotDotToken;
      if (!p.type && list[i] && ts.isIdentifier(p.name)) edits.push({ at: p.name.end, text: `${left ? '?' : ''}: ${p.dotDotDotToken ? `(${list[i]})[]` : list[i]}` });
    });
  }
  // a declared field built empty (`items = []`) takes the type its pushes give
  for (const m of node.members) {
    if (!ts.isPropertyDeclaration(m) || m.type || !m.initializer || !m.name || !ts.isIdentifier(m.name)) continue;
    const t = types.fields.get(`${c.name}.${m.name.text}`);
    if (t) edits.push({ at: m.name.end, text: `: ${t}` });
  }
  const open = text.indexOf('{', node.heritageClauses?.at(-1)?.end ?? node.name?.end ?? node.getStart(sf) + 'class'.length);
  const decls = undeclaredFields(c).map((f) => {
    const t = types.fields.get(`${c.name}.${f}`) ?? 'any';
    return `\n  ${f}${assignedInConstructor(c, f) ? '' : '!'}: ${t};`;
  });
  edits.push({ at: open + 1, text: decls.join('') });
  let out = text;
  for (const e of edits.sort((a, b) => b.at - a.at)) out = out.slice(0, e.at) + e.text + out.slice(e.at);
  // `(class Name extends B {…})` → `class <scope name> extends B {…}`
  const body = out.slice(out.indexOf('{', open), out.lastIndexOf(')'));
  const heritage = node.heritageClauses ? ' ' + node.heritageClauses.map((h) => h.getText(sf)).join(' ') : '';
  return `class ${c.name}${heritage} ${body.trim()}`;
}

/**
 * The TypeScript type of a value that holds instances of scope classes (the instance itself, an array
 * or a field of them), by class name; null if it holds none (then the plain-value typing applies).
 */
export function instanceType(v: unknown, classes: ReadonlyMap<unknown, string>): string | null {
  if (Array.isArray(v)) {
    const ts0 = v.length ? instanceType(v[0], classes) : null;
    if (!ts0) return null;
    return v.every((x) => instanceType(x, classes) === ts0) ? (/^[\w$]+$/.test(ts0) ? `${ts0}[]` : `(${ts0})[]`) : null;
  }
  if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v)) return null;
  const cls = classes.get(Object.getPrototypeOf(v)?.constructor);
  if (cls) return cls;
  const fields = Object.keys(v).map((k) => [k, (v as Record<string, unknown>)[k]] as const);
  if (!fields.some(([, x]) => instanceType(x, classes))) return null;
  const parts = fields.map(([k, x]) => {
    const t = valueTypeText(x, classes);
    return t ? `${k}: ${t}` : null;
  });
  return parts.every(Boolean) ? `{ ${parts.join('; ')} }` : null;
}

/** The TypeScript type of a value, by class name where it holds instances of scope classes (null: no usable shape). */
export function valueTypeText(v: unknown, classes: ReadonlyMap<unknown, string>): string | null {
  const plain = tyOfValue(v);
  return instanceType(v, classes) ?? (plain ? typeText(plain) : null);
}

/** Field types of each scope class from the instances among the arguments (values say what they hold). */
export function fieldTypesOfInstances(values: readonly unknown[], classes: ReadonlyMap<unknown, string>): Map<string, string> {
  const out = new Map<string, string>();
  const seen = new Set<unknown>();
  const visit = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || ArrayBuffer.isView(v) || seen.has(v)) return;
    seen.add(v);
    if (Array.isArray(v)) return v.forEach(visit);
    const cls = classes.get(Object.getPrototypeOf(v)?.constructor);
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (cls && !out.has(`${cls}.${k}`)) {
        const t = valueTypeText(x, classes);
        if (t) out.set(`${cls}.${k}`, t);
      }
      visit(x);
    }
  };
  values.forEach(visit);
  return out;
}
