// `var` declarations: one binding per function, hoisted to the function's top (not block-scoped), which
// starts as `undefined`. The lowering keeps block-scoped IR variables, so each `var` binding is placed:
//  - in place, as a `let`, when that cannot be told apart: one declaration, with an initializer, and every
//    use inside the declaration's own block (or `for` statement) after it. Each pass through the block
//    assigns it before any use, so a fresh binding per pass holds the same values. Bundler output
//    (`for (var i = 0; …)`, `var t = a[k]` in a loop body) is nearly all of this kind, and stays as
//    cheap in the adjoint as the `let` it stands for;
//  - hoisted otherwise: one IR variable declared (unassigned) at the top of the function, every
//    declaration with an initializer an assignment to it. `var x;` assigns nothing, so a `var` in a loop
//    body keeps the previous iteration's value, and `var i` in two loops is one variable.
// A hoisted variable may be read before any assignment, where JavaScript gives `undefined`: the definite
// assignment check below (over the lowered function) refuses every such read.
import ts from 'typescript';
import type { Expr, Loc, Stmt, Ty } from '../ir/types.js';
import { forEachExpr, sameTy } from '../ir/util.js';

export interface VarBinding {
  symbol: ts.Symbol;
  /** every `var` declaration of the binding in the function, in source order */
  decls: ts.VariableDeclaration[];
  /** identifiers using the binding (reads and writes), outside its declarations' names */
  refs: ts.Identifier[];
  hoisted: boolean;
}

/** `var` (not `let`/`const`) */
export function isVarList(list: ts.VariableDeclarationList): boolean {
  return (list.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const | ts.NodeFlags.Using | ts.NodeFlags.AwaitUsing)) === 0;
}

/** Every `var` binding of a function body (nested functions are their own scopes and are refused elsewhere). */
export function collectVarBindings(body: ts.Node, checker: ts.TypeChecker): Map<ts.VariableDeclaration, VarBinding> {
  const bySymbol = new Map<ts.Symbol, VarBinding>();
  const walkDecls = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && n !== body.parent) return;
    if (ts.isVariableDeclarationList(n) && isVarList(n)) {
      for (const d of n.declarations) {
        const names: ts.Identifier[] = [];
        collectNames(d.name, names);
        for (const id of names) {
          const sym = checker.getSymbolAtLocation(id);
          if (!sym) continue;
          let b = bySymbol.get(sym);
          if (!b) bySymbol.set(sym, (b = { symbol: sym, decls: [], refs: [], hoisted: false }));
          if (!b.decls.includes(d)) b.decls.push(d);
        }
      }
    }
    n.forEachChild(walkDecls);
  };
  walkDecls(body);
  if (!bySymbol.size) return new Map();
  const walkRefs = (n: ts.Node): void => {
    if (ts.isIdentifier(n)) {
      if (isDeclName(n)) return;
      const sym = ts.isShorthandPropertyAssignment(n.parent) ? checker.getShorthandAssignmentValueSymbol(n.parent) : checker.getSymbolAtLocation(n);
      const b = sym && bySymbol.get(sym);
      if (b) b.refs.push(n);
      return;
    }
    n.forEachChild(walkRefs);
  };
  walkRefs(body);
  const out = new Map<ts.VariableDeclaration, VarBinding>();
  for (const b of bySymbol.values()) {
    b.hoisted = !inPlace(b);
    for (const d of b.decls) out.set(d, b);
  }
  // a destructuring declaration stays one statement: in place only if all its names can be
  for (const b of bySymbol.values())
    if (b.hoisted) for (const d of b.decls) if (!ts.isIdentifier(d.name)) for (const o of bySymbol.values()) if (o.decls.includes(d)) o.hoisted = true;
  return out;
}

function collectNames(name: ts.BindingName, out: ts.Identifier[]): void {
  if (ts.isIdentifier(name)) out.push(name);
  else for (const el of name.elements) if (!ts.isOmittedExpression(el)) collectNames(el.name, out);
}

/** the name of a declaration (a binding, not a use) */
function isDeclName(id: ts.Identifier): boolean {
  const p = id.parent;
  return (ts.isVariableDeclaration(p) || ts.isBindingElement(p) || ts.isParameter(p)) && p.name === id;
}

/** The scope a `let` at this declaration would have: its block, or the `for` statement it heads. */
function letScope(d: ts.VariableDeclaration): ts.Node | null {
  const list = d.parent;
  if (ts.isForStatement(list.parent) || ts.isForOfStatement(list.parent) || ts.isForInStatement(list.parent)) return list.parent;
  const st = list.parent;
  if (!ts.isVariableStatement(st)) return null;
  return ts.isBlock(st.parent) ? st.parent : null;
}

/** One declaration with an initializer, used only after it inside its block: a `let` is the same binding. */
function inPlace(b: VarBinding): boolean {
  if (b.decls.length !== 1) return false;
  const d = b.decls[0];
  const scope = letScope(d);
  if (!scope) return false;
  const isForOf = ts.isForOfStatement(scope) || ts.isForInStatement(scope);
  if (!d.initializer && !isForOf) return false;
  return b.refs.every((r) => r.pos >= d.end && r.end <= scope.end);
}

/**
 * Definite assignment over a lowered function: each read of a hoisted variable must follow an assignment
 * on every path from the function's entry. (TypeScript's own analysis, more precise on exhaustive
 * switches, covers `let`: its error 2454 is reported for those, see type-errors.ts.) `report` gets each read that may see `undefined` (once per
 * variable: one problem, one error).
 */
export function checkDefiniteAssignment(body: Stmt[], hoisted: Set<string>, report: (name: string, loc: Loc | undefined) => void): void {
  if (!hoisted.size) return;
  const reported = new Set<string>();
  type State = Set<string> | null; // assigned names; null: unreachable
  const meet = (a: State, b: State): State => (a === null ? b : b === null ? a : new Set([...a].filter((n) => b.has(n))));
  const reads = (e: Expr, st: State) => {
    if (st === null) return;
    forEachExpr(e, (x) => {
      if (x.k === 'var' && hoisted.has(x.name) && !st.has(x.name) && !reported.has(x.name)) {
        reported.add(x.name);
        report(x.name, x.loc);
      }
    });
  };
  interface Target { label?: string; kind: 'loop' | 'switch' | 'block'; breaks: State; conts: State }
  const targets: Target[] = [];
  const jumpTarget = (label: string | undefined, isContinue: boolean): Target | undefined => {
    for (let i = targets.length - 1; i >= 0; i--) {
      const t = targets[i];
      if (label ? t.label === label : isContinue ? t.kind === 'loop' : t.kind !== 'block') return t;
    }
    return undefined;
  };
  const seq = (list: Stmt[], st: State): State => {
    for (const s of list) st = stmt(s, st);
    return st;
  };
  const loop = (label: string | undefined, run: (t: Target) => State): { end: State; t: Target } => {
    const t: Target = { label, kind: 'loop', breaks: null, conts: null };
    targets.push(t);
    const end = run(t);
    targets.pop();
    return { end, t };
  };
  const isTrue = (c: Expr | null) => c === null || (c.k === 'bool' && c.v);
  const stmt = (s: Stmt, st: State): State => {
    switch (s.k) {
      case 'decl':
        if (s.init) reads(s.init, st);
        return st;
      case 'assign': {
        reads(s.value, st);
        if (s.target.k !== 'var') reads(s.target, st); // a[i] = …: reads a and i
        if (st !== null && s.target.k === 'var' && hoisted.has(s.target.name)) st = new Set(st).add(s.target.name);
        return st;
      }
      case 'expr':
        reads(s.e, st);
        return st;
      case 'return':
        if (s.e) reads(s.e, st);
        return null;
      case 'throw':
        reads(s.e, st);
        return null;
      case 'break':
      case 'continue': {
        const t = jumpTarget(s.label, s.k === 'continue');
        if (t) {
          if (s.k === 'break') t.breaks = meet(t.breaks, st);
          else t.conts = meet(t.conts, st);
        }
        return null;
      }
      case 'if':
        reads(s.c, st);
        return meet(seq(s.then, st), seq(s.else, st));
      case 'block': {
        const t: Target = { label: s.label, kind: 'block', breaks: null, conts: null };
        targets.push(t);
        const end = seq(s.body, st);
        targets.pop();
        return meet(end, t.breaks);
      }
      case 'while': {
        reads(s.cond, st);
        const { t } = loop(s.label, () => seq(s.body, st));
        // assignments only add names, so the loop head's state is the entry state
        return meet(isTrue(s.cond) ? null : st, t.breaks);
      }
      case 'do': {
        const { end, t } = loop(s.label, (t) => {
          const e = seq(s.body, st);
          const atCond = meet(e, t.conts);
          reads(s.cond, atCond);
          return atCond;
        });
        return meet(isTrue(s.cond) ? null : end, t.breaks);
      }
      case 'for': {
        const head = seq(s.init, st);
        if (s.cond) reads(s.cond, head);
        let next: State = null;
        const { t } = loop(s.label, (t) => {
          const e = seq(s.body, head);
          next = seq(s.update, meet(e, t.conts));
          return e;
        });
        // (a loop whose first test holds, `for (var i = 0; i < 3; i++)`, leaves only after a pass: what
        // every pass assigns is assigned after it)
        const leaves = isTrue(s.cond) ? null : entersOnce(s.init, s.cond) ? next : head;
        return meet(leaves, t.breaks);
      }
      case 'switch': {
        reads(s.disc, st);
        for (const c of s.cases) for (const e of c.tests ?? []) reads(e, st);
        const t: Target = { label: s.label, kind: 'switch', breaks: null, conts: null };
        targets.push(t);
        let fall: State = null;
        for (const c of s.cases) fall = seq(c.body, meet(fall, st));
        targets.pop();
        const hasDefault = s.cases.some((c) => c.tests === null);
        return meet(meet(fall, t.breaks), hasDefault ? null : st);
      }
    }
  };
  seq(body, new Set());
}

/** whether a `for` loop's first test holds whatever the state: its counter starts at a literal and is
 * compared with a literal (`for (var i = 0; i < 3; i++)`) */
function entersOnce(init: Stmt[], cond: Expr | null): boolean {
  if (!cond || cond.k !== 'bin' || cond.a.k !== 'var' || cond.b.k !== 'num') return false;
  const counter = cond.a.name;
  const start = init.find((x) => (x.k === 'decl' && x.name === counter) || (x.k === 'assign' && x.target.k === 'var' && x.target.name === counter && !x.op));
  const v0 = start?.k === 'decl' ? start.init : start?.k === 'assign' ? start.value : null;
  if (!v0 || v0.k !== 'num') return false;
  const [a, b] = [v0.v, cond.b.v];
  switch (cond.op) {
    case '<': return a < b;
    case '<=': return a <= b;
    case '>': return a > b;
    case '>=': return a >= b;
    case '!==': case '!=': return a !== b;
    default: return false;
  }
}

/**
 * The type of a hoisted binding: its declared type, or, for `var x;` with no annotation (TypeScript
 * types it by flow), the one type of every value assigned to it. null when there is none or several.
 */
export function hoistedType(b: VarBinding, checker: ts.TypeChecker, convert: (t: ts.Type, at: ts.Node) => Ty | null): Ty | null {
  const d0 = b.decls[0];
  const declared = checker.getTypeOfSymbolAtLocation(b.symbol, d0.name);
  if (!(declared.flags & ts.TypeFlags.Any) || b.decls.some((d) => d.type)) return convert(declared, d0.name);
  const values: ts.Expression[] = b.decls.flatMap((d) => (d.initializer ? [d.initializer] : []));
  for (const r of b.refs) {
    const p = r.parent;
    // `x = e` and `x op= e` (`x += 1` on an unassigned x is NaN, a number: the read is refused anyway)
    if (ts.isBinaryExpression(p) && p.left === r && p.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && p.operatorToken.kind <= ts.SyntaxKind.LastAssignment) values.push(p.right);
  }
  let ty: Ty | null = null;
  for (const v of values) {
    const t = convert(checker.getBaseTypeOfLiteralType(checker.getTypeAtLocation(v)), v);
    if (!t || (ty && !sameTy(ty, t))) return null;
    ty = t;
  }
  return ty;
}

/**
 * A module-level `var` never assigned in the compilation (no `=`, compound assignment or `++`/`--` on
 * its name anywhere, and it is not exported, so no other module can): it holds its initial value
 * throughout, as a `const` would.
 */
export function isNeverAssigned(d: ts.VariableDeclaration, files: readonly ts.SourceFile[], checker: ts.TypeChecker): boolean {
  if (!ts.isIdentifier(d.name) || !d.initializer) return false;
  const st = d.parent.parent;
  if (ts.isVariableStatement(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return false;
  const sym = checker.getSymbolAtLocation(d.name);
  if (!sym || (sym.declarations?.length ?? 0) !== 1) return false;
  const name = d.name.text;
  let written = false;
  const visit = (n: ts.Node): void => {
    if (written) return;
    if (ts.isIdentifier(n)) {
      if (n.text === name && n !== d.name && isWriteTarget(n) && checker.getSymbolAtLocation(n) === sym) written = true;
      return;
    }
    if (ts.isExportSpecifier(n) && (n.propertyName ?? n.name).getText() === name) written = true; // exported by name
    n.forEachChild(visit);
  };
  for (const f of files) visit(f);
  return !written;
}

/**
 * `let x: T | undefined;` (or `let x!: …`) followed, in the same block, by one `x = e;` statement that
 * is the variable's only write, every other use coming after it: that statement, where the variable
 * takes its one value (a constant from there on, as tsad's own generated code declares its locals).
 * Null when the declaration is of another kind.
 */
export function assignedOnceLater(d: ts.VariableDeclaration, checker: ts.TypeChecker): ts.ExpressionStatement | null {
  const list = d.parent, st = list.parent;
  if (!ts.isIdentifier(d.name) || d.initializer || !ts.isVariableDeclarationList(list) || list.declarations.length !== 1 || !ts.isVariableStatement(st)) return null;
  if (!(list.flags & ts.NodeFlags.Let) || ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) return null;
  const block = st.parent;
  if (!ts.isBlock(block)) return null;
  const sym = checker.getSymbolAtLocation(d.name);
  if (!sym || (sym.declarations?.length ?? 0) !== 1) return null;
  const name = d.name.text;
  const uses: ts.Identifier[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isIdentifier(n)) {
      if (n.text === name && n !== d.name && checker.getSymbolAtLocation(n) === sym) uses.push(n);
      return;
    }
    n.forEachChild(visit);
  };
  visit(block);
  const writes = uses.filter(isWriteTarget);
  if (writes.length !== 1) return null;
  const w = writes[0];
  const assign = w.parent;
  if (!ts.isBinaryExpression(assign) || assign.left !== w || assign.operatorToken.kind !== ts.SyntaxKind.EqualsToken) return null;
  const stmt = assign.parent;
  if (!ts.isExpressionStatement(stmt) || stmt.parent !== block || stmt.pos < st.end) return null;
  // the value itself and everything before it must not read the variable
  return uses.every((u) => u === w || u.pos >= stmt.end) ? stmt : null;
}

/**
 * Whether the variable a name refers to is assigned anywhere in `body` (closures in it included). A
 * name bound by a parameter pattern (`{ a, b }: Opts`) never assigned in its function is a constant; the
 * array a `for…of` names, assigned in the loop's body, is taken first (the loop walks the old one).
 */
export function isAssignedIn(name: ts.Identifier, body: ts.Node | undefined, checker: ts.TypeChecker): boolean {
  const sym = checker.getSymbolAtLocation(name);
  if (!sym || !body) return !!body;
  let written = false;
  const visit = (n: ts.Node): void => {
    if (written) return;
    if (ts.isIdentifier(n)) {
      if (n.text === name.text && isWriteTarget(n) && checker.getSymbolAtLocation(n) === sym) written = true;
      return;
    }
    n.forEachChild(visit);
  };
  visit(body);
  return written;
}

function isWriteTarget(id: ts.Identifier): boolean {
  let n: ts.Node = id;
  while (ts.isParenthesizedExpression(n.parent)) n = n.parent;
  const p = n.parent;
  if (ts.isBinaryExpression(p) && p.left === n) return p.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && p.operatorToken.kind <= ts.SyntaxKind.LastAssignment;
  if ((ts.isPrefixUnaryExpression(p) || ts.isPostfixUnaryExpression(p)) && (p.operator === ts.SyntaxKind.PlusPlusToken || p.operator === ts.SyntaxKind.MinusMinusToken)) return true;
  // destructuring assignment targets, for-in/of heads
  return ts.isArrayLiteralExpression(p) || ts.isShorthandPropertyAssignment(p) || ts.isPropertyAssignment(p) && p.initializer === n && ts.isObjectLiteralExpression(p.parent) && ts.isBinaryExpression(p.parent.parent) || ts.isForInStatement(p) || ts.isForOfStatement(p);
}
