// Destructuring (issue 16, item 4): defaults in binding patterns, parameters given as patterns, and
// destructuring assignment (`[a, b] = [b, a]`, `[s[i], s[j]] = [s[j], s[i]]`, `({ x, y } = p)`).
//
// Everything lowers to ordinary declarations, reads and stores, so the reference model applies as it
// does to the statements written out: a row swap by destructuring becomes `const t = s[i]; s[i] = s[j];
// s[j] = t`, the swap form whose reference stores are mirrored onto the shadow.
import ts from 'typescript';
import type { Expr, LValue, Loc, Stmt, Ty } from '../ir/types.js';
import { BOOL, elemTy, fieldTy, tyOf } from '../ir/util.js';
import { isEffectNode, isStable } from './sequencing.js';

/** `v === undefined ? def : v`: a default applies exactly when the value read is `undefined` */
export function withDefault(value: Expr, def: Expr): Expr {
  // (an optional field, `{ u = 0.5 }: Partial<P>`, is present where the default does not apply: read narrowed)
  const vt = tyOf(value);
  const present: Expr = vt.k === 'opt' && (value.k === 'field' || value.k === 'var') ? { ...value, ty: vt.base, nn: true } : value;
  const pt = tyOf(present);
  const ty: Ty = pt.k === 'int' && tyOf(def).k === 'int' ? pt : pt.k === 'int' ? tyOf(def) : pt;
  return { k: 'cond', c: { k: 'bin', op: '===', a: value, b: { k: 'undef' }, ty: BOOL }, a: def, b: present, ty };
}

/**
 * A default is evaluated only when it applies: one that could do something (an assignment, a call) is
 * refused, since lowering it into the conditional's branch is all this allows. Returns true when refused.
 */
export function refuseActiveDefault(def: ts.Expression, err: (n: ts.Node, m: string, h?: string) => null): boolean {
  let bad: ts.Node | null = null;
  const visit = (n: ts.Node) => {
    if (bad) return;
    if (isEffectNode(n) || (ts.isCallExpression(n) && !isMathCall(n))) bad = n;
    else n.forEachChild(visit);
  };
  visit(def);
  if (!bad) return false;
  err(bad, 'a destructuring default that calls a function or assigns is not supported', 'compute the default into a variable first and write `= name`');
  return true;
}

function isMathCall(n: ts.CallExpression): boolean {
  const c = n.expression;
  return ts.isPropertyAccessExpression(c) && ts.isIdentifier(c.expression) && c.expression.text === 'Math';
}

/** A name for a parameter written as a pattern: its type's name (`opts` for `Opts`), or its names run together (`xy` for `[x, y]`). */
export function patternParamName(p: ts.ParameterDeclaration, index: number): string {
  const name = p.name as ts.BindingPattern;
  if (ts.isObjectBindingPattern(name) && p.type && ts.isTypeReferenceNode(p.type) && ts.isIdentifier(p.type.typeName)) {
    const t = p.type.typeName.text;
    return t[0].toLowerCase() + t.slice(1);
  }
  const ids = name.elements.map((el) => (ts.isBindingElement(el) && ts.isIdentifier(el.name) ? el.name.text : null));
  if (ts.isArrayBindingPattern(name) && ids.length <= 4 && ids.every((x) => x !== null)) return (ids as string[]).join('');
  return `arg${index}`;
}

/** What the lowering of a function lends destructuring assignment. */
export interface DestructuringHost {
  expr(e: ts.Expression): Expr | null;
  lvalue(e: ts.Expression, updates?: boolean): LValue | null;
  markTarget(n: ts.Node): void;
  err(node: ts.Node, msg: string, hint?: string): null;
  fresh(base: string): string;
  emit(s: Stmt): void;
  locOf(n: ts.Node): Loc;
  /** the IR name of the local variable an identifier names, if it names one */
  local(id: ts.Identifier): string | null;
}

type Pattern = ts.ArrayLiteralExpression | ts.ObjectLiteralExpression;

/** one target of a pattern: where the value goes, which value, its default */
interface Slot {
  target: ts.Expression;
  /** null where the value has no such field (an array's other than `length`) */
  read: (src: Expr) => Expr | null;
  def: ts.Expression | undefined;
}

export class DestructuringAssignment {
  constructor(private host: DestructuringHost) {}

  /** `pattern = rhs` as a statement: its statements are emitted in order; false if refused */
  lower(e: ts.BinaryExpression): boolean {
    const pattern = skip(e.left) as Pattern;
    const rhs = skip(e.right);
    const slots = this.slots(pattern);
    if (!slots) return false;
    if (ts.isArrayLiteralExpression(pattern) && ts.isArrayLiteralExpression(rhs) && !rhs.elements.some(ts.isSpreadElement)) return this.fromLiteral(slots, rhs);
    // any other right side is read lazily, element by element between the stores, as the iterator does
    let src = this.host.expr(e.right);
    if (!src) return false;
    // the iterator holds the array it started on: a variable the pattern rebinds is read from a temporary
    const srcName = src.k === 'var' ? src.name : null;
    if (!srcName || slots.some((s) => { const t = skip(s.target); return ts.isIdentifier(t) && this.host.local(t) === srcName; })) src = this.temp(src, 'tmp', e.right);
    for (const s of slots) if (!this.store(s, this.readSlot(s, src))) return false;
    return true;
  }

  private readSlot(s: Slot, src: Expr): Expr | null {
    return s.read(src) ?? this.host.err(s.target, notAField(tyOf(src)), 'read `.length`, or index the array');
  }

  /**
   * `[t0, t1] = [v0, v1]`: every value is read before the first store. A value is kept in a temporary
   * only if a store before its own could change it (the swap `[a, b] = [b, a]` keeps `a` alone), or if
   * it calls something (its order among the values must hold).
   */
  private fromLiteral(slots: Slot[], rhs: ts.ArrayLiteralExpression): boolean {
    const values: Expr[] = [];
    for (const v of rhs.elements) {
      const x = this.host.expr(v);
      if (!x) return false;
      values.push(x);
    }
    const targetsAct = slots.some((s) => containsEffect(s.target) || (s.def && containsEffect(s.def)));
    const written = { vars: new Set<string>(), memory: false };
    const kept = values.map((v, k) => {
      const slot = slots[k];
      const needs = k >= slots.length || targetsAct || !isStable(v, written) || hasCall(v);
      // what the store of this slot writes, for the values after it
      if (slot) {
        const t = skip(slot.target);
        if (ts.isIdentifier(t)) written.vars.add(this.host.local(t) ?? t.text);
        else written.memory = true;
      }
      return needs;
    });
    const ready = values.map((v, k) => (kept[k] && !isConstant(v) ? this.temp(v, tempName(v), rhs.elements[k]) : v));
    for (let k = 0; k < slots.length; k++) {
      const v: Expr = k < ready.length ? ready[k] : { k: 'undef' };
      if (!this.store(slots[k], v)) return false;
    }
    return true;
  }

  /** the targets of a pattern, in order */
  private slots(p: Pattern): Slot[] | null {
    const out: Slot[] = [];
    if (ts.isArrayLiteralExpression(p)) {
      for (let k = 0; k < p.elements.length; k++) {
        const el = p.elements[k];
        if (ts.isOmittedExpression(el)) continue;
        if (ts.isSpreadElement(el)) return this.host.err(el, 'rest elements in destructuring assignment are not supported', 'index the array explicitly');
        const idx = { k: 'num' as const, v: k };
        const read = (src: Expr): Expr => ({ k: 'idx', obj: src, index: idx, ty: elemTy(tyOf(src), idx) });
        if (ts.isBinaryExpression(el) && el.operatorToken.kind === ts.SyntaxKind.EqualsToken) out.push({ target: el.left, read, def: el.right });
        else out.push({ target: el, read, def: undefined });
      }
      if (!out.length) return this.host.err(p, 'an empty destructuring pattern assigns nothing', 'drop the statement');
      return out;
    }
    for (const prop of p.properties) {
      if (ts.isShorthandPropertyAssignment(prop)) {
        const name = prop.name.text;
        out.push({ target: prop.name, read: (src) => field(src, name), def: prop.objectAssignmentInitializer });
      } else if (ts.isPropertyAssignment(prop) && (ts.isIdentifier(prop.name) || ts.isStringLiteral(prop.name))) {
        const name = prop.name.text;
        const init = prop.initializer;
        if (ts.isBinaryExpression(init) && init.operatorToken.kind === ts.SyntaxKind.EqualsToken) out.push({ target: init.left, read: (src) => field(src, name), def: init.right });
        else out.push({ target: init, read: (src) => field(src, name), def: undefined });
      } else return this.host.err(prop, 'only `name`, `name: target` and defaults are supported in a destructuring assignment', 'assign each field separately');
    }
    if (!out.length) return this.host.err(p, 'an empty destructuring pattern assigns nothing', 'drop the statement');
    return out;
  }

  /** stores one value into one target (a nested pattern destructures it in turn) */
  private store(s: Slot, value0: Expr | null): boolean {
    if (!value0) return false;
    let value = value0;
    if (s.def) {
      if (refuseActiveDefault(s.def, (n, m, h) => this.host.err(n, m, h))) return false;
      const d = this.host.expr(s.def);
      if (!d) return false;
      value = withDefault(value, d);
    }
    const t = skip(s.target);
    if (ts.isArrayLiteralExpression(t) || ts.isObjectLiteralExpression(t)) {
      const inner = this.slots(t);
      if (!inner) return false;
      const src = value.k === 'var' ? value : this.temp(value, 'tmp', t);
      for (const x of inner) if (!this.store(x, this.readSlot(x, src))) return false;
      return true;
    }
    this.host.markTarget(s.target);
    this.host.markTarget(t);
    const target = this.host.lvalue(t);
    if (!target) return false;
    this.host.emit({ k: 'assign', target, value, loc: this.host.locOf(t) });
    return true;
  }

  private temp(v: Expr, base: string, at: ts.Node): Expr {
    const name = this.host.fresh(base);
    const ty = tyOf(v);
    this.host.emit({ k: 'decl', name, ty, init: v, konst: true, loc: this.host.locOf(at) });
    return { k: 'var', name, ty };
  }
}

function field(src: Expr, name: string): Expr | null {
  return patternField(src, name);
}

/**
 * What a pattern's field `name` reads from `src`: an array's or tuple's `length` is its length (an
 * integer, passive), which a field node would take for a number of its own; an array has no other
 * field holding data (null: refused).
 */
export function patternField(src: Expr, name: string): Expr | null {
  const t = tyOf(src);
  if (t.k === 'arr' || t.k === 'tuple') return name === 'length' ? { k: 'len', obj: src } : null;
  return { k: 'field', obj: src, name, ty: fieldTy(t, name) };
}

/** the refusal of a pattern reading a field an array does not have as data */
export function notAField(t: Ty): string {
  return `destructuring ${t.k === 'tuple' ? 'a tuple' : 'an array'} by field reads only \`length\` (its other properties are methods)`;
}

/** a temporary holding an old value is named after what it holds (`a` → `aOld`, `s[i]` → `tmp`) */
function tempName(v: Expr): string {
  return v.k === 'var' ? `${v.name}Old` : 'tmp';
}

function isConstant(e: Expr): boolean {
  return e.k === 'num' || e.k === 'bool' || e.k === 'str' || e.k === 'undef' || e.k === 'global';
}

function hasCall(e: Expr): boolean {
  return !isStable(e, { vars: new Set(), memory: false });
}

function containsEffect(n: ts.Node): boolean {
  let found = false;
  const visit = (x: ts.Node) => {
    if (found) return;
    if (isEffectNode(x)) found = true;
    else x.forEachChild(visit);
  };
  visit(n);
  return found;
}

function skip(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return e;
}
