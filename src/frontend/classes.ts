// Classes (issue 17, item 1): a class is lowered to what the rest of tsad already differentiates.
//
// - Its instances are objects: the IR object type named after the class holds its data fields (methods
//   and accessors are not data), so an instance's derivative is an object of its float fields, and
//   instances follow the reference model of arrays and objects (docs/semantics.md).
// - Each method is a function of the compilation taking the instance first (`Particle_step(self, dt)`);
//   a getter is `Particle_get_energy(self)`, a setter `Particle_set_x(self, v)`, a static method
//   `Particle_create(…)`, the constructor `Particle_new(…)`, which builds the object and returns it.
//   A method writing `this.x` is a function writing its object argument: nothing new for the adjoint.
// - Calls are resolved statically (the method the checker resolves), which is JavaScript's dispatch
//   exactly when no class deriving from the receiver's static type overrides the member: then every
//   call is direct (`super.m()` always is). A call whose method depends on the run-time class
//   (polymorphic dispatch) is refused where it is written.
// - `class B extends A`: an instance of B is an object of A's fields and B's; B's constructor runs up to
//   `super(…)`, which builds an A (`A_new(…)`) whose fields start B's object, then B's initializers
//   and the rest of its body. Inherited methods are A's functions, called with the B instance.
//
// What is not known exactly is refused where it is written: `#private` members (derivative code runs
// outside the class and cannot read them), static fields (module state), generic and abstract classes,
// polymorphic calls, a field the constructor may read before it is assigned.
import ts from 'typescript';
import type { BinOp, Expr, Field, Loc, Stmt, Ty } from '../ir/types.js';
import { INT, NUM, VOID, containsCall, tyOf } from '../ir/util.js';

export type MemberKind = 'ctor' | 'method' | 'get' | 'set' | 'static';

/** a function of the compilation lowered from a class member */
export interface ClassMember {
  cls: ts.ClassDeclaration;
  className: string;
  kind: MemberKind;
}

/** what a class contributes to the compilation's functions */
export interface ClassFunction {
  name: string;
  node: ts.ConstructorDeclaration | ts.MethodDeclaration | ts.AccessorDeclaration | ts.ClassDeclaration;
  member: ClassMember;
}

/** The name of the function a member becomes (the user's names kept, readable in generated code). */
export function memberFunctionName(className: string, kind: MemberKind, member: string): string {
  if (kind === 'ctor') return `${className}_new`;
  if (kind === 'get') return `${className}_get_${member}`;
  if (kind === 'set') return `${className}_set_${member}`;
  return `${className}_${member}`;
}

/**
 * The function a head written `Class.member` names (`--head Particle.step` is `Particle_step`, a getter
 * `Particle.energy` is `Particle_get_energy`, `Particle.constructor` is `Particle_new`); any other head as given.
 */
export function memberHeadName(head: string, declared: (name: string) => boolean): string {
  const m = /^([\w$]+)\.([\w$]+)$/.exec(head);
  if (!m) return head;
  const candidates = m[2] === 'constructor' ? [memberFunctionName(m[1], 'ctor', '')] : [memberFunctionName(m[1], 'method', m[2]), memberFunctionName(m[1], 'get', m[2])];
  return candidates.find(declared) ?? head;
}

const hasModifier = (n: ts.Node, k: ts.SyntaxKind) => !!ts.getModifiers(n as ts.HasModifiers)?.some((m) => m.kind === k);

/**
 * The functions of a class declaration, or the diagnostics that refuse it (each with what to write
 * instead). A class used only as a type contributes its constructor all the same: unused, it costs nothing.
 */
export function collectClass(
  st: ts.ClassDeclaration,
  err: (node: ts.Node, msg: string, hint: string) => void,
): ClassFunction[] {
  if (!st.name) {
    err(st, 'a class needs a name', 'write `class Name { … }`');
    return [];
  }
  const className = st.name.text;
  let ok = true;
  const refuse = (node: ts.Node, msg: string, hint: string) => {
    ok = false;
    err(node, msg, hint);
  };
  if (st.typeParameters?.length) refuse(st.typeParameters[0], `generic classes ('${className}<…>') are not supported`, 'write the class for the concrete types it holds (numbers, arrays, objects)');
  for (const h of st.heritageClauses ?? [])
    if (h.token === ts.SyntaxKind.ExtendsKeyword && (!ts.isIdentifier(h.types[0].expression) || h.types[0].typeArguments))
      refuse(h, `'${className}' extends an expression, not a class by name`, 'extend a class of the compilation by its name: `class B extends A`');
  if (hasModifier(st, ts.SyntaxKind.AbstractKeyword)) refuse(st, `abstract classes are not supported`, 'write a concrete class, or functions over an interface');
  const fns: ClassFunction[] = [];
  let ctor: ts.ConstructorDeclaration | null = null;
  const names = new Set<string>();
  for (const m of st.members) {
    if (m.name && ts.isPrivateIdentifier(m.name)) {
      refuse(m, `'#private' members ('${m.name.text}') are not supported: derivative code runs outside the class and cannot reach them`, `use TypeScript's \`private ${m.name.text.slice(1)}\` instead`);
      continue;
    }
    if (m.name && !ts.isIdentifier(m.name)) {
      refuse(m.name, 'computed or quoted member names are not supported', 'name the member with an identifier');
      continue;
    }
    const memberName = m.name ? (m.name as ts.Identifier).text : '';
    const isStatic = hasModifier(m, ts.SyntaxKind.StaticKeyword);
    if (hasModifier(m, ts.SyntaxKind.AbstractKeyword)) continue; // in an abstract class, refused above
    if (ts.isPropertyDeclaration(m)) {
      if (isStatic) refuse(m, `static fields ('static ${memberName}') are not supported: they are module state`, `a module-level \`const\` (or a static method returning the value)`);
      else if (m.initializer && (ts.isArrowFunction(m.initializer) || ts.isFunctionExpression(m.initializer)))
        refuse(m, `a function held in a field ('${memberName} = (…) => …') is not supported`, `write it as a method: \`${memberName}(…) { … }\` (called the same way, \`obj.${memberName}(…)\`)`);
      continue;
    }
    if (ts.isConstructorDeclaration(m)) {
      if (!m.body) {
        refuse(m, 'constructor overloads are not supported', 'write one constructor, with optional parameters or defaults');
        continue;
      }
      ctor = m;
      continue;
    }
    if (ts.isMethodDeclaration(m) || ts.isGetAccessorDeclaration(m) || ts.isSetAccessorDeclaration(m)) {
      if (!m.body) {
        refuse(m, `method overloads ('${memberName}') are not supported`, 'write one method, with optional parameters or defaults');
        continue;
      }
      if (ts.isMethodDeclaration(m) && (m.asteriskToken || hasModifier(m, ts.SyntaxKind.AsyncKeyword))) {
        refuse(m, 'generator and async methods are not differentiable', 'write a plain synchronous method');
        continue;
      }
      const kind: MemberKind = ts.isGetAccessorDeclaration(m) ? 'get' : ts.isSetAccessorDeclaration(m) ? 'set' : isStatic ? 'static' : 'method';
      if (isStatic && kind !== 'static') {
        refuse(m, 'static accessors are not supported', 'write a static method, or a module-level `const`');
        continue;
      }
      const name = memberFunctionName(className, kind, memberName);
      if (names.has(name)) continue; // TypeScript reports the duplicate
      names.add(name);
      fns.push({ name, node: m, member: { cls: st, className, kind } });
      continue;
    }
    if (ts.isSemicolonClassElement(m)) continue;
    refuse(m, `${ts.isClassStaticBlockDeclaration(m) ? 'static blocks' : ts.isIndexSignatureDeclaration(m) ? 'index signatures' : 'this class member'} are not supported`, 'a class may hold fields, a constructor, methods, getters, setters and static methods');
  }
  if (!ok) return [];
  fns.unshift({ name: memberFunctionName(className, 'ctor', ''), node: ctor ?? st, member: { cls: st, className, kind: 'ctor' } });
  return fns;
}

/** Is `t` the instance type of a class (not its constructor, `typeof C`)? */
export function isClassInstance(t: ts.Type): boolean {
  return !!(t.flags & ts.TypeFlags.Object) && !!(t.symbol?.flags & ts.SymbolFlags.Class) && !!((t as ts.ObjectType).objectFlags & ts.ObjectFlags.Class);
}

/** A class's data fields (its properties, not its methods or accessors), in declaration order. */
export function classFields(checker: ts.TypeChecker, t: ts.Type, at: ts.Node, convert: (t: ts.Type, at: ts.Node) => Ty | null, nestedNullable: (t: Ty) => boolean): Field[] | null {
  const fields: Field[] = [];
  for (const p of checker.getPropertiesOfType(t)) {
    if (!(p.flags & ts.SymbolFlags.Property)) continue;
    if (p.name.startsWith('__#')) return null; // a #private field: refused where the class is declared
    const pt = convert(checker.getTypeOfSymbolAtLocation(p, at), at);
    if (!pt || (pt.k === 'opt' && nestedNullable(pt))) return null;
    fields.push(pt.k === 'opt' && p.flags & ts.SymbolFlags.Optional ? { name: p.name, ty: pt, optional: true } : { name: p.name, ty: pt });
  }
  return fields;
}

/** What the lowering of classes needs of the function lowering (src/frontend/lower.ts). */
export interface ClassHost {
  checker: ts.TypeChecker;
  expr(e: ts.Expression): Expr | null;
  err(node: ts.Node, msg: string, hint?: string): null;
  fresh(base: string): string;
  emit(s: Stmt): void;
  /** the statements lowered expressions left pending (their effects), in order */
  takePre(): Stmt[];
  locOf(n: ts.Node): Loc;
  typeAt(node: ts.Node): Ty | null;
  /** the function of the compilation a declaration was collected as */
  functionOf(decl: ts.Node): string | null;
  /** a call of function `fn` with the call's arguments (defaults filled in), `self` first when given */
  userCall(e: ts.CallExpression | ts.NewExpression, fn: string, self?: Expr): Expr | null;
  /** lowers one statement of the body being lowered */
  stmt(s: ts.Statement, out: Stmt[]): void;
  /** lowers a parameter's name to its variable */
  paramVar(p: ts.ParameterDeclaration): Expr | null;
  /** the classes of the compilation */
  classes(): readonly ts.ClassDeclaration[];
}

/** the class a class declaration extends, if it is one of the compilation */
export function baseClass(checker: ts.TypeChecker, cls: ts.ClassDeclaration): ts.ClassDeclaration | null {
  const h = cls.heritageClauses?.find((c) => c.token === ts.SyntaxKind.ExtendsKeyword);
  if (!h) return null;
  let sym = checker.getSymbolAtLocation(h.types[0].expression);
  if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  return sym?.declarations?.find(ts.isClassDeclaration) ?? null;
}

/** a class of the compilation deriving from `cls` (at any depth) that declares `member` itself, if any */
function overriddenBelow(h: ClassHost, cls: ts.ClassDeclaration, member: string): ts.ClassDeclaration | null {
  for (const c of h.classes()) {
    if (c === cls || !c.members.some((m) => m.name && ts.isIdentifier(m.name) && m.name.text === member && !ts.isPropertyDeclaration(m))) continue;
    for (let b = baseClass(h.checker, c); b; b = baseClass(h.checker, b)) if (b === cls) return c;
  }
  return null;
}

/**
 * Refuses a call of `member` on a receiver whose static class has a subclass overriding it: which
 * method runs depends on the run-time class (`this` in a method of the base class included).
 */
function refusePolymorphic(h: ClassHost, receiver: ts.Expression, member: string, at: ts.Node): boolean {
  if (receiver.kind === ts.SyntaxKind.SuperKeyword) return false;
  const t = h.checker.getTypeAtLocation(receiver);
  const cls = (t.isClassOrInterface() ? t : h.checker.getApparentType(t)).symbol?.declarations?.find(ts.isClassDeclaration);
  const sub = cls && overriddenBelow(h, cls, member);
  if (!sub) return false;
  // (a `const` made by `new C(…)` where it is declared is a C, whatever subclasses C has)
  if (exactClass(h, receiver) === cls) return false;
  h.err(at, `'${member}' is overridden in '${sub.name?.text}', a subclass of '${cls.name?.text}': which one runs depends on the run-time class of '${receiver.getText()}' (polymorphic dispatch is not supported)`, `call it on a \`const\` made where it is declared, \`const b = new ${cls.name?.text}(…)\` (its class is then known), or give the methods different names`);
  return true;
}

/** the class of the instance a `const` holds when it is declared with `new C(…)`, else null */
function exactClass(h: ClassHost, receiver: ts.Expression): ts.ClassDeclaration | null {
  while (ts.isParenthesizedExpression(receiver)) receiver = receiver.expression;
  if (!ts.isIdentifier(receiver)) return null;
  const decl = h.checker.getSymbolAtLocation(receiver)?.valueDeclaration;
  if (!decl || !ts.isVariableDeclaration(decl) || !decl.initializer || !(ts.getCombinedNodeFlags(decl) & ts.NodeFlags.Const)) return null;
  let init = decl.initializer;
  while (ts.isParenthesizedExpression(init)) init = init.expression;
  if (!ts.isNewExpression(init)) return null;
  let sym = h.checker.getSymbolAtLocation(init.expression);
  if (sym && sym.flags & ts.SymbolFlags.Alias) sym = h.checker.getAliasedSymbol(sym);
  return sym?.declarations?.find(ts.isClassDeclaration) ?? null;
}

/**
 * The declarations of the class member a node's symbol names (a method, an accessor, a field), if
 * declared in a class of the compilation (the runtime's `Tape` is a class too, with its own lowering).
 */
function memberDecl(h: ClassHost, name: ts.Node): ts.Declaration[] {
  const sym = h.checker.getSymbolAtLocation(name);
  return (sym?.declarations ?? []).filter((d) => ts.isClassDeclaration(d.parent) && h.functionOf(d.parent) !== null);
}

/**
 * `p.step(dt)`, `Particle.create(x)`: a call of a method resolved statically (see the file comment).
 * undefined when the callee is not a class member.
 */
export function methodCall(h: ClassHost, e: ts.CallExpression): Expr | null | undefined {
  const callee = e.expression;
  if (!ts.isPropertyAccessExpression(callee)) return undefined;
  const decls = memberDecl(h, callee.name);
  if (!decls.length) return undefined;
  const decl = h.checker.getResolvedSignature(e)?.declaration;
  const fn = decl && h.functionOf(decl);
  if (!decl || !fn || !ts.isMethodDeclaration(decl)) return h.err(callee, `'${callee.name.text}' is not a method tsad can call here`, 'call a method of a class of the compilation');
  if (hasModifier(decl, ts.SyntaxKind.StaticKeyword)) {
    // `this.s()` in a static method calls the static method of the class it was called on
    if (callee.expression.kind === ts.SyntaxKind.ThisKeyword && refusePolymorphic(h, callee.expression, callee.name.text, callee)) return null;
    return tagged(h.userCall(e, fn), 'class.method');
  }
  if (callee.questionDotToken) return h.err(callee, 'optional chaining is not supported', 'test the value first');
  if (refusePolymorphic(h, callee.expression, callee.name.text, callee)) return null;
  const self = h.expr(callee.expression);
  return self && tagged(h.userCall(e, fn, self), 'class.method');
}

/** the accessor functions of a property access `o.x` whose member is a getter/setter (or null) */
function accessors(h: ClassHost, e: ts.PropertyAccessExpression): { get: string | null; set: string | null } | null {
  const decls = memberDecl(h, e.name);
  if (!decls.some((d) => ts.isGetAccessorDeclaration(d) || ts.isSetAccessorDeclaration(d))) return null;
  const get = decls.find(ts.isGetAccessorDeclaration);
  const set = decls.find(ts.isSetAccessorDeclaration);
  return { get: get ? h.functionOf(get) : null, set: set ? h.functionOf(set) : null };
}

/**
 * `o.x` where `x` is a getter: a call `C_get_x(o)`; a method read without a call is refused (functions
 * are not values). undefined when `x` is a field or not a class member.
 */
export function accessorRead(h: ClassHost, e: ts.PropertyAccessExpression): Expr | null | undefined {
  const decls = memberDecl(h, e.name);
  if (decls.some(ts.isMethodDeclaration)) return h.err(e, `the method '${e.name.text}' used as a value: methods can only be called`, `call it: \`${e.getText()}(…)\``);
  const acc = accessors(h, e);
  if (!acc) return undefined;
  if (!acc.get) return h.err(e, `'${e.name.text}' has a setter and no getter: reading it gives undefined`, 'add a getter, or read the field the setter writes');
  if (refusePolymorphic(h, e.expression, e.name.text, e)) return null;
  const obj = h.expr(e.expression);
  const ty = h.typeAt(e);
  if (!obj || !ty) return obj && h.err(e, `the getter '${e.name.text}' returns a type tsad cannot differentiate through`, 'return a number, an array or an object of numbers');
  return { k: 'call', fn: acc.get, args: [obj], ty, origin: 'class.method' };
}

/**
 * `o.x = v` as a statement, `x` a setter: `C_set_x(o, v)`. undefined when `x` is not an accessor.
 * A compound assignment or an assignment inside an expression through a setter is refused.
 */
export function accessorWrite(h: ClassHost, target: ts.Expression, value: ts.Expression | null, at: ts.Node): Stmt | null | undefined {
  if (!ts.isPropertyAccessExpression(target)) return undefined;
  const acc = accessors(h, target);
  if (!acc) return undefined;
  if (!acc.set) return h.err(at, `'${target.name.text}' has a getter and no setter: it cannot be assigned`, 'add a setter, or assign the field the getter reads');
  if (!value) return h.err(at, `a compound assignment or an assignment inside an expression through the setter '${target.name.text}' is not supported`, `write it as a statement of its own: \`${target.getText()} = …;\``);
  if (refusePolymorphic(h, target.expression, target.name.text, at)) return null;
  const obj = h.expr(target.expression);
  const v = obj && h.expr(value);
  if (!obj || !v) return null;
  return { k: 'expr', e: { k: 'call', fn: acc.set, args: [obj, v], ty: VOID, origin: 'class.method' }, loc: h.locOf(at) };
}

/**
 * `o.x += v`, `o.x++` as statements, `x` an accessor with a getter and a setter: `C_set_x(o, C_get_x(o) + v)`
 * (o read twice: it must be a variable or a field of one). undefined when `x` is not an accessor.
 */
export function accessorUpdate(h: ClassHost, target: ts.Expression, op: BinOp, rhs: ts.Expression | null, at: ts.Node): Stmt | null | undefined {
  if (!ts.isPropertyAccessExpression(target)) return undefined;
  const acc = accessors(h, target);
  if (!acc) return undefined;
  if (!acc.set || !acc.get) return h.err(at, `'${target.name.text}' needs a getter and a setter to be updated in place`, acc.set ? 'add a getter' : 'add a setter, or update the field the getter reads');
  if (refusePolymorphic(h, target.expression, target.name.text, at)) return null;
  const obj = h.expr(target.expression);
  if (!obj) return null;
  if (!isPlainObjectRead(obj)) return h.err(target.expression, `an update through the setter '${target.name.text}' needs the object as a variable`, `name it first: \`const o = ${target.expression.getText()};\``);
  const ty = h.typeAt(target);
  if (!ty || (ty.k !== 'num' && ty.k !== 'int')) return h.err(at, `an update through the accessor '${target.name.text}' is supported on numbers only`, `write \`${target.getText()} = …;\``);
  let read: Expr = { k: 'call', fn: acc.get, args: [obj], ty, origin: 'class.method' };
  // (the getter runs before the right-hand side, as in JavaScript: first, when that side calls or assigns)
  if (rhs && hasCallOrAssignment(rhs)) {
    const n = h.fresh(target.name.text);
    h.emit({ k: 'decl', name: n, ty, init: read, konst: true, loc: h.locOf(at) });
    read = { k: 'var', name: n, ty };
  }
  const v: Expr | null = rhs ? h.expr(rhs) : { k: 'num', v: 1 };
  if (!v) return null;
  const value: Expr = { k: 'bin', op, a: read, b: v, ty: op === '|' ? INT : NUM };
  return { k: 'expr', e: { k: 'call', fn: acc.set, args: [obj, value], ty: VOID, origin: 'class.method' }, loc: h.locOf(at) };
}

function hasCallOrAssignment(n: ts.Node): boolean {
  if (ts.isCallExpression(n) || ts.isNewExpression(n) || (ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment)) return true;
  if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken)) return true;
  return !!ts.forEachChild(n, (c) => hasCallOrAssignment(c) || undefined);
}

function isPlainObjectRead(e: Expr): boolean {
  return e.k === 'var' || (e.k === 'field' && isPlainObjectRead(e.obj));
}

/** `new C(…)`: the call `C_new(…)`. undefined when `C` is not a class of the compilation. */
export function newInstance(h: ClassHost, e: ts.NewExpression): Expr | null | undefined {
  const sym = h.checker.getSymbolAtLocation(e.expression);
  const target = sym && sym.flags & ts.SymbolFlags.Alias ? h.checker.getAliasedSymbol(sym) : sym;
  const cls = target?.declarations?.find(ts.isClassDeclaration);
  if (!cls) return undefined;
  const fn = h.functionOf(cls);
  if (!fn) return h.err(e, `the class '${e.expression.getText()}' is not part of the compilation`, 'declare it in, or import it from, a file of the compilation');
  return tagged(h.userCall(e, fn), 'class.new');
}

/** the call a class form lowered to, marked with that form (for coverage accounting) */
function tagged(x: Expr | null, origin: 'class.new' | 'class.method'): Expr | null {
  if (x?.k === 'call') x.origin = origin;
  return x;
}

/** Does the node read `this` (arrow functions included, which are refused anyway)? */
export function mentionsThis(n: ts.Node): boolean {
  if (n.kind === ts.SyntaxKind.ThisKeyword || n.kind === ts.SyntaxKind.SuperKeyword) return true;
  if (ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n) || ts.isClassLike(n)) return false;
  return !!ts.forEachChild(n, mentionsThis);
}

/** `this.f = e` as a statement: the field assigned and the value, or null */
function fieldAssignment(s: ts.Statement): { field: string; value: ts.Expression } | null {
  if (!ts.isExpressionStatement(s)) return null;
  const e = s.expression;
  if (!ts.isBinaryExpression(e) || e.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return null;
  if (!ts.isPropertyAccessExpression(e.left) || e.left.expression.kind !== ts.SyntaxKind.ThisKeyword || !ts.isIdentifier(e.left.name)) return null;
  return { field: e.left.name.text, value: e.right };
}

/** `this` in `n` only as `this.g` for another data field g, read or assigned (a method, an accessor or `this` passed on could read `field`) */
function usesOtherFieldsOnly(n: ts.Node, field: string, fields: ReadonlySet<string>): boolean {
  if (n.kind === ts.SyntaxKind.SuperKeyword) return false;
  if (n.kind === ts.SyntaxKind.ThisKeyword) {
    const use = n.parent;
    return ts.isPropertyAccessExpression(use) && use.expression === n && ts.isIdentifier(use.name) && use.name.text !== field && fields.has(use.name.text) && !(ts.isCallExpression(use.parent) && use.parent.expression === use);
  }
  if (ts.isFunctionDeclaration(n) || ts.isFunctionExpression(n) || ts.isClassLike(n)) return true;
  return !ts.forEachChild(n, (c) => !usesOtherFieldsOnly(c, field, fields) || undefined);
}

/**
 * Can `this.field = value` run before `before` (the constructor's statements between)? The value must
 * not read `this` or call anything but `Math` functions and array constructors, the statements before
 * may use `this` only for other data fields (a method or `this.field` itself there would read undefined
 * in JavaScript: refused as it was), and no name the value reads may be written, indexed, passed to a
 * call or have a method called on it there (`x0.push(…)` would change `x0.length`).
 */
function movableAbove(before: readonly ts.Statement[], field: string, value: ts.Expression, fields: ReadonlySet<string>): boolean {
  if (mentionsThis(value) || !before.every((s) => usesOtherFieldsOnly(s, field, fields))) return false;
  const names = new Set<string>();
  let pure = true;
  const scan = (n: ts.Node): void => {
    if (ts.isIdentifier(n)) names.add(n.text);
    if (ts.isCallExpression(n)) {
      const callee = n.expression;
      const ok = ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && (callee.expression.text === 'Math' || ((callee.expression.text === 'Array' || callee.expression.text === 'Float64Array') && callee.name.text === 'from'));
      if (!ok) pure = false;
    }
    if (ts.isFunctionLike(n)) pure = false;
    n.forEachChild(scan);
  };
  scan(value);
  if (!pure) return false;
  let ok = true;
  const visit = (n: ts.Node): void => {
    if (!ok) return;
    if (ts.isPropertyAccessExpression(n) && n.expression.kind === ts.SyntaxKind.ThisKeyword && n.name.text === field) ok = false;
    if (ts.isIdentifier(n) && names.has(n.text)) {
      let at: ts.Node = n;
      while (ts.isParenthesizedExpression(at.parent)) at = at.parent;
      const p = at.parent;
      const written = (ts.isBinaryExpression(p) && p.left === at && p.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && p.operatorToken.kind <= ts.SyntaxKind.LastAssignment) || ((ts.isPrefixUnaryExpression(p) || ts.isPostfixUnaryExpression(p)) && (p.operator === ts.SyntaxKind.PlusPlusToken || p.operator === ts.SyntaxKind.MinusMinusToken));
      const methodCalled = ts.isPropertyAccessExpression(p) && p.expression === at && ts.isCallExpression(p.parent) && p.parent.expression === p;
      const passed = ts.isCallExpression(p) && p.arguments.includes(at as ts.Expression);
      const elementUsed = ts.isElementAccessExpression(p) && p.expression === at;
      // (a name declared there is not there yet above it)
      const declared = (ts.isVariableDeclaration(p) || ts.isBindingElement(p) || ts.isFunctionDeclaration(p) || ts.isParameter(p)) && p.name === at;
      if (written || methodCalled || passed || elementUsed || declared) ok = false;
    }
    n.forEachChild(visit);
  };
  for (const s of before) visit(s);
  return ok;
}

/**
 * Does the constructor body, from statement `from` on, assign `this.field` by a statement of its own
 * before anything could read it? Until then, `this` may only be used for other fields (`this.g`, read
 * or assigned): a method, an accessor or `this` passed on could read the field.
 */
function assignedBeforeRead(stmts: readonly ts.Statement[], from: number, field: string, fields: ReadonlySet<string>): boolean {
  const plainUse = (n: ts.Node) => usesOtherFieldsOnly(n, field, fields);
  for (let k = from; k < stmts.length; k++) {
    const fa = fieldAssignment(stmts[k]);
    if (fa?.field === field) return plainUse(fa.value);
    if (!plainUse(stmts[k])) return false;
  }
  return false;
}

/**
 * The body of `C_new`: the object is built once each of its fields has a value, then the rest of the
 * constructor runs with `this` as that object, which is returned.
 *
 * JavaScript runs field initializers first, then the constructor body, where a field not yet assigned
 * reads as undefined. So that the object literal holds exactly the values JavaScript's object would:
 * the leading statements of the body that do not use `this` run as they are, its leading `this.f = v`
 * give field f its value (taken into a constant where later statements could change what v reads),
 * and the first statement using `this` otherwise needs every field to have a value by then: a field
 * still without one is refused (reading it would see undefined).
 */
export function constructorBody(h: ClassHost, cls: ts.ClassDeclaration, ctor: ts.ConstructorDeclaration | null, ty: Extract<Ty, { k: 'obj' }>, selfName: string): Stmt[] | null {
  const out: Stmt[] = [];
  const values = new Map<string, Expr>();
  // Field initializers run first in JavaScript (they cannot see the constructor's parameters or
  // locals), then parameter properties (`constructor(public x: number)`) take their arguments. Values
  // wait for the object literal (`pending`) unless a statement runs before it that could change what
  // they read: then they are taken into constants first.
  // (`stable`: a field of the base object, which nothing else can reach)
  const pending: { field: string; value: Expr; node: ts.Node; stable?: boolean }[] = [];
  const fieldTy = (name: string) => ty.fields.find((f) => f.name === name)?.ty ?? tyOf({ k: 'undef' });
  const settle = (all: boolean) => {
    for (const p of pending.splice(0)) values.set(p.field, all && !p.stable ? constant(h, out, p.field, p.value, fieldTy(p.field), p.node) : p.value);
  };
  // a value whose lowering left statements (its effects) comes after the values before it are taken
  const effects = () => {
    const pre = h.takePre();
    if (pre.length) settle(true);
    out.push(...pre);
  };
  const stmts = ctor?.body?.statements ?? [];
  // a derived class: the statements before `super(…)`, then the base object, whose fields start ours
  const start = baseObject(h, cls, ctor, stmts, out);
  if (start === null) return null;
  // a base field declared again without a value: `undefined` after super(…) under useDefineForClassFields
  // (target ES2022 and later), the base's value otherwise; which one the caller's build has is not known here
  for (const m of cls.members)
    if (start.base && ts.isPropertyDeclaration(m) && !m.initializer && ts.isIdentifier(m.name) && !ts.getModifiers(m)?.some((x) => x.kind === ts.SyntaxKind.DeclareKeyword) && start.base.fields.some((f) => f.name === (m.name as ts.Identifier).text))
      return h.err(m, `field '${m.name.text}' of '${cls.name!.text}' declares a field of its base class again without a value: whether it keeps the base's value depends on the build (useDefineForClassFields)`, `drop the declaration, or write \`declare ${m.name.text}: …;\` to only narrow its type`);
  if (start.base) for (const f of start.base.fields) pending.push({ field: f.name, value: { k: 'field', obj: start.base.obj, name: f.name, ty: f.ty }, node: cls, stable: true });
  for (const m of cls.members) {
    if (!ts.isPropertyDeclaration(m) || !m.initializer || !ts.isIdentifier(m.name)) continue;
    if (mentionsThis(m.initializer)) return h.err(m.initializer, `the initializer of field '${m.name.text}' reads \`this\``, 'assign the field in the constructor, after the fields it reads');
    const v = h.expr(m.initializer);
    if (!v) return null;
    effects();
    pending.push({ field: m.name.text, value: v, node: m.initializer });
  }
  for (const p of ctor?.parameters ?? []) {
    if (!ts.isParameterPropertyDeclaration(p, p.parent) || !ts.isIdentifier(p.name)) continue;
    const v = h.paramVar(p);
    if (!v) return null;
    pending.push({ field: p.name.text, value: v, node: p });
  }
  const assigned = (f: string) => values.has(f) || pending.some((p) => p.field === f && !p.stable);
  let i = start.next;
  for (; i < stmts.length; i++) {
    const s = stmts[i];
    const fa = fieldAssignment(s);
    if (fa && ty.fields.some((f) => f.name === fa.field) && !assigned(fa.field) && !mentionsThis(fa.value)) {
      const v = h.expr(fa.value);
      if (!v) return null;
      effects();
      pending.push({ field: fa.field, value: v, node: fa.value });
      continue;
    }
    if (mentionsThis(s)) break;
    settle(true); // a statement before the object exists
    h.stmt(s, out);
  }
  // a field given a fresh value further down (`this.buf = new Float64Array(n)` after a loop filling
  // `this.xs`), by a statement nothing before it can tell from running first: its value is taken now
  const early = new Set<number>();
  const dataFields = new Set(ty.fields.map((f) => f.name));
  for (let j = i + 1; j < stmts.length; j++) {
    const fa = fieldAssignment(stmts[j]);
    if (!fa || !ty.fields.some((f) => f.name === fa.field) || assigned(fa.field) || !movableAbove(stmts.slice(i, j), fa.field, fa.value, dataFields)) continue;
    const v = h.expr(fa.value);
    if (!v) return null;
    effects();
    pending.push({ field: fa.field, value: v, node: fa.value });
    early.add(j);
  }
  settle(pending.some((p) => containsCall(p.value))); // calls keep their order (a call may write what a value reads)
  // a number or boolean field the body assigns later, before anything can read it (`this.b = this.a * 2`
  // after `this.a = x`), starts as 0 or false: a value no one sees
  const plainFields = new Set(ty.fields.map((f) => f.name));
  for (const f of ty.fields)
    if (!values.has(f.name) && !f.optional && (f.ty.k === 'num' || f.ty.k === 'int' || f.ty.k === 'bool') && assignedBeforeRead(stmts, i, f.name, plainFields))
      values.set(f.name, f.ty.k === 'bool' ? { k: 'bool', v: false } : { k: 'num', v: 0 });
  const missing = ty.fields.filter((f) => !values.has(f.name) && !f.optional);
  if (missing.length) {
    const at = stmts[i] ?? ctor ?? cls;
    const what = missing.map((f) => `'${f.name}'`).join(', ');
    const one = missing.length === 1;
    const where = stmts[i] ? `has no value yet where the constructor first uses the object` : `is not assigned by the constructor`;
    return h.err(at, `field${one ? '' : 's'} ${what} of '${cls.name!.text}' ${one ? where : where.replace(/^has/, 'have').replace(/^is/, 'are')} (JavaScript would read undefined)`, 'give each field an initializer, or assign it (`this.f = …`) at the top of the constructor, before anything else uses `this`');
  }
  const fields = ty.fields.filter((f) => values.has(f.name)).map((f) => ({ name: f.name, value: values.get(f.name)! }));
  out.push({ k: 'decl', name: selfName, ty, init: { k: 'objlit', fields, ty }, konst: true, loc: h.locOf(ctor ?? cls) });
  for (; i < stmts.length; i++) if (!early.has(i)) h.stmt(stmts[i], out);
  const self: Expr = { k: 'var', name: selfName, ty };
  returnSelf(out, self);
  out.push({ k: 'return', e: self, loc: h.locOf(ctor ?? cls) });
  return out;
}

/**
 * The parameters of a class's implicit constructor: those of the nearest explicit constructor of its
 * base classes (JavaScript's `constructor(...args) { super(...args); }`), none for a base class.
 */
export function inheritedParams(checker: ts.TypeChecker, cls: ts.ClassDeclaration): readonly ts.ParameterDeclaration[] {
  for (let b = baseClass(checker, cls); b; b = baseClass(checker, b)) {
    const c = b.members.find((m): m is ts.ConstructorDeclaration => ts.isConstructorDeclaration(m) && !!m.body);
    if (c) return c.parameters;
  }
  return [];
}

/** `super(…)` as a statement */
function isSuperCall(s: ts.Statement): s is ts.ExpressionStatement & { expression: ts.CallExpression } {
  return ts.isExpressionStatement(s) && ts.isCallExpression(s.expression) && s.expression.expression.kind === ts.SyntaxKind.SuperKeyword;
}

/**
 * For a derived class: lowers the constructor's statements before `super(…)` and the base object it
 * builds (`const base = A_new(…)`); `next` is the statement after the super call. For a base class:
 * nothing, from the first statement.
 */
function baseObject(h: ClassHost, cls: ts.ClassDeclaration, ctor: ts.ConstructorDeclaration | null, stmts: readonly ts.Statement[], out: Stmt[]): { next: number; base?: { obj: Expr; fields: Field[] } } | null {
  const base = baseClass(h.checker, cls);
  if (!base) return { next: 0 };
  const baseFn = h.functionOf(base);
  const bt = h.typeAt(base);
  if (!baseFn || !bt || bt.k !== 'obj') return h.err(cls.heritageClauses![0], `the base class of '${cls.name!.text}' cannot be lowered`, 'fix the base class first (see its error)');
  const k = stmts.findIndex(isSuperCall);
  let call: Expr | null;
  if (k < 0) {
    const nested = ctor && findSuper(ctor);
    if (nested) return h.err(nested, '`super(…)` inside a block or an expression is not supported', 'call `super(…)` as a statement of its own in the constructor body');
    // the implicit constructor passes its arguments on (its parameters are the base constructor's)
    const args: Expr[] = [];
    for (const p of inheritedParams(h.checker, cls)) {
      const v = h.paramVar(p);
      if (!v) return null;
      args.push(v);
    }
    call = { k: 'call', fn: baseFn, args, ty: bt, origin: 'class.new' };
  } else {
    for (let i = 0; i < k; i++) {
      if (mentionsThis(stmts[i])) return h.err(stmts[i], '`this` before `super(…)`', 'call `super(…)` first');
      h.stmt(stmts[i], out);
    }
    call = tagged(h.userCall((stmts[k] as ts.ExpressionStatement).expression as ts.CallExpression, baseFn), 'class.new');
    if (!call) return null;
    if (call.k === 'call') call.ty = bt; // (the checker types `super(…)` as void: it is the base object here)
    out.push(...h.takePre());
  }
  const name = h.fresh('base');
  out.push({ k: 'decl', name, ty: bt, init: call, konst: true, loc: h.locOf(k < 0 ? cls : stmts[k]) });
  return { next: k + 1, base: { obj: { k: 'var', name, ty: bt }, fields: bt.fields } };
}

/** a `super(…)` call anywhere in a constructor (not in nested classes) */
function findSuper(n: ts.Node): ts.Node | undefined {
  if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.SuperKeyword) return n;
  if (ts.isClassLike(n)) return undefined;
  return ts.forEachChild(n, findSuper);
}

/** a constant named after the field, holding its value until the object literal */
function constant(h: ClassHost, out: Stmt[], field: string, v: Expr, ty: Ty, at: ts.Node): Expr {
  if (v.k === 'num' || v.k === 'bool' || v.k === 'str') return v;
  const name = h.fresh(field);
  out.push({ k: 'decl', name, ty, init: v, konst: true, loc: h.locOf(at) });
  return { k: 'var', name, ty };
}

/** an early `return;` in a constructor returns the object */
function returnSelf(ss: Stmt[], self: Expr): void {
  for (const s of ss) {
    if (s.k === 'return' && !s.e) s.e = self;
    else if (s.k === 'if') {
      returnSelf(s.then, self);
      returnSelf(s.else, self);
    } else if (s.k === 'for' || s.k === 'while' || s.k === 'do' || s.k === 'block') returnSelf(s.body, self);
    else if (s.k === 'switch') for (const c of s.cases) returnSelf(c.body, self);
  }
}
