// IR → formatted TypeScript (or JavaScript: the same text without type annotations).
// Deterministic: output depends only on the IR, never on paths, time or hash order.
import type { BinOp, Expr, Func, Loc, Stmt, Ty } from '../ir/types.js';
import { forEachExpr } from '../ir/util.js';

export interface PrintOptions {
  js?: boolean; // emit JavaScript: no type annotations
  indent?: string;
  /** local names of the runtime's exports where the input uses theirs (`Tape` → `Tape0`) */
  runtime?: Record<string, string>;
  /**
   * print plain number arrays of zeros as the runtime's `zeros(n)` (derivative code): V8 keeps those
   * packed, where `new Array(n).fill(0)` stays holey and every later read checks for a hole
   */
  packedZeros?: boolean;
}

const PREC: Record<BinOp, number> = {
  '||': 3, '&&': 4, '|': 5, '^': 6, '&': 7,
  '==': 8, '!=': 8, '===': 8, '!==': 8,
  '<': 9, '<=': 9, '>': 9, '>=': 9,
  '<<': 10, '>>': 10, '>>>': 10,
  '+': 11, '-': 11, '*': 12, '/': 12, '%': 12, '**': 13,
};
const UNARY = 14;
const POSTFIX = 17;

export function printTy(t: Ty, tape = 'Tape'): string {
  switch (t.k) {
    case 'num':
    case 'int':
      return 'number';
    case 'bool':
      return 'boolean';
    case 'str':
      return t.lits.length ? t.lits.map((l) => JSON.stringify(l)).join(' | ') : 'string';
    case 'void':
      return 'void';
    case 'tape':
      return tape;
    case 'arr': {
      if (t.typed) return t.ctor ?? 'Float64Array';
      const el = printTy(t.elem, tape);
      const inner = /[ |]/.test(el) ? `(${el})[]` : `${el}[]`;
      return t.ro ? `readonly ${inner}` : inner;
    }
    case 'tuple':
      return `${t.ro ? 'readonly ' : ''}[${t.elems.map((e) => printTy(e, tape)).join(', ')}]`;
    case 'obj':
      return t.name ?? `{ ${t.fields.map((f) => (f.optional ? `${f.name}?: ${printTy(f.ty.k === 'opt' ? f.ty.base : f.ty, tape)}` : `${f.name}: ${printTy(f.ty, tape)}`)).join('; ')} }`;
    case 'opt':
      return [printTy(t.base, tape), ...t.none].join(' | ');
  }
}

function numText(e: Extract<Expr, { k: 'num' }>): string {
  if (e.raw !== undefined) return e.raw;
  if (Number.isNaN(e.v)) return 'NaN';
  if (e.v === Infinity) return 'Infinity';
  if (e.v === -Infinity) return '-Infinity';
  if (Object.is(e.v, -0)) return '-0';
  return String(e.v);
}

/** a function's printed lines, kept by function object (see exportedFunc) */
interface PrintedFunc {
  opts: string;
  lines: string[];
  origins: (Loc | undefined)[];
  /** the lines joined, once asked for (text, wordsFrom) */
  text?: string;
  /** per word list searched (wordsFrom), the words the lines use */
  words: Map<string, Set<string>>;
}

function keptText(kept: PrintedFunc): string {
  return (kept.text ??= kept.lines.join('\n'));
}

const printedFuncs = new WeakMap<Func, PrintedFunc>();

export class Printer {
  /**
   * what is printed, in order: a line, or a kept function's lines (shared with every compile printing
   * that function: a recompile prints mostly reused derivatives, and copies none of their lines)
   */
  private out: (string | PrintedFunc)[] = [];
  /** the source position of the statement (or function) each line of `out` was printed from (a kept function's are its own) */
  private origins: (Loc | undefined)[] = [];
  private at: Loc | undefined;
  private depth = 0;
  private ind: string;
  private indents: string[] = [];
  /** the precedence of the expression exprP printed last */
  private prec = 0;
  /** the options as text, the key of kept functions' lines (made once per options) */
  private optsKey: string | undefined;

  constructor(private opts: PrintOptions = {}) {
    this.ind = opts.indent ?? '  ';
  }

  text(): string {
    const pieces: string[] = [];
    for (const x of this.out) if (typeof x === 'string' || x.lines.length) pieces.push(typeof x === 'string' ? x : keptText(x));
    // (one join, the final line break included: a module's text is megabytes, and a concatenation after
    // the join would be copied again by whoever reads it)
    pieces.push('');
    return pieces.join('\n');
  }

  /** drops the empty lines printed last */
  dropTrailingEmptyLines(): void {
    while (this.out.length && this.out[this.out.length - 1] === '') {
      this.out.pop();
      this.origins.pop();
    }
  }

  line(s: string): void {
    this.out.push(s === '' ? '' : this.indent() + s);
    this.origins.push(s === '' ? undefined : this.at);
  }

  /** the indentation of the current depth (made once per depth) */
  private indent(): string {
    const d = this.depth;
    const known = this.indents;
    while (known.length <= d) known.push(this.ind.repeat(known.length));
    return known[d];
  }

  /** where printing has got to (a position for wordsFrom and insertLine) */
  position(): number {
    return this.out.length;
  }

  /**
   * Which of `words` (identifiers) the text printed since `position` uses as whole words. A kept
   * function's lines are searched once per word list: a recompile's reused derivatives are not read again.
   */
  wordsFrom(position: number, words: readonly string[]): Set<string> {
    const key = words.join('|');
    const pattern = new RegExp(`\\b(?:${key})\\b`, 'g');
    const search = (text: string, into: Set<string>) => {
      for (const m of text.match(pattern) ?? []) into.add(m);
    };
    const found = new Set<string>();
    for (let i = position; i < this.out.length; i++) {
      const x = this.out[i];
      if (typeof x === 'string') {
        search(x, found);
        continue;
      }
      let used = x.words.get(key);
      if (!used) {
        used = new Set();
        search(keptText(x), used);
        x.words.set(key, used);
      }
      for (const w of used) found.add(w);
    }
    return found;
  }

  /** a top-level line put in at `position`, once what it depends on is printed (the runtime import) */
  insertLine(position: number, s: string): void {
    this.out.splice(position, 0, s);
    this.origins.splice(position, 0, undefined);
  }

  /**
   * The source position each line of text() came from: that of the statement printed there, or of the
   * nearest enclosing one (a generated statement without a position of its own sits in the primal
   * statement it differentiates), the function's for its header; undefined for lines of no statement.
   */
  lineOrigins(): (Loc | undefined)[] {
    const all: (Loc | undefined)[] = [];
    this.out.forEach((x, i) => {
      if (typeof x === 'string') all.push(this.origins[i]);
      else for (const o of x.origins) all.push(o);
    });
    return all;
  }

  raw(s: string): void {
    for (const l of s.split('\n')) this.line(l);
  }

  ty(t: Ty): string {
    return this.opts.js ? '' : `: ${printTy(t, this.rt('Tape'))}`;
  }

  // ---------- expressions ----------
  expr(e: Expr, ctx = 0): string {
    const s = this.exprP(e);
    return this.prec < ctx ? `(${s})` : s;
  }

  /** `text` as an expression of precedence `prec` */
  private ret(text: string, prec: number): string {
    this.prec = prec;
    return text;
  }

  /** `e` printed; its precedence in this.prec (no pair made per node) */
  private exprP(e: Expr): string {
    switch (e.k) {
      case 'num': {
        const s = numText(e);
        return this.ret(s, s.startsWith('-') ? UNARY : 20);
      }
      case 'bool':
        return this.ret(String(e.v), 20);
      case 'str':
        return this.ret(JSON.stringify(e.v), 20);
      case 'undef':
        return this.ret('undefined', 20);
      case 'var':
        return this.ret(e.nn && !this.opts.js ? `${e.name}!` : e.name, e.nn ? POSTFIX : 20);
      case 'global':
        return this.ret(e.name, 20);
      case 'raw':
        return this.ret(e.text, 20);
      case 'bin': {
        const p = PREC[e.op];
        // ** is right-associative and its left operand may not be a unary expression
        const left = e.op === '**' ? this.expr(e.a, UNARY + 1) : this.expr(e.a, p);
        const right = e.op === '**' ? this.expr(e.b, p) : this.expr(e.b, p + 1);
        return this.ret(`${left} ${e.op} ${right}`, p);
      }
      case 'un': {
        // `!!0.25` (a truthiness test of a literal, after inlining): TypeScript rejects it as always truthy
        if (e.op === '!' && e.a.k === 'un' && e.a.op === '!' && e.a.a.k === 'num') return this.ret(String(!!e.a.a.v), POSTFIX);
        const a = this.expr(e.a, UNARY);
        // avoid `--x` / `- -x` ambiguity
        const sep = (e.op === '-' && a.startsWith('-')) || (e.op === '+' && a.startsWith('+')) ? ' ' : '';
        return this.ret(`${e.op}${sep}${a}`, UNARY);
      }
      case 'cond': {
        // the truth of a literal is decided (an adjoint's zero guard, `!!ȳ || … ? … : 0 * ȳ`, whose
        // adjoint a later pass found to be a constant): it says nothing
        const c = e.c;
        const lit = (x: Expr) => x.k === 'un' && x.op === '!' && x.a.k === 'un' && x.a.op === '!' && x.a.a.k === 'num' && x.a.a.raw === undefined ? !!x.a.a.v : null;
        if (lit(c) !== null) return this.exprP(lit(c) ? e.a : e.b);
        if (c.k === 'bin' && c.op === '||' && lit(c.a) === true) return this.exprP(e.a);
        return this.ret(`${this.expr(e.c, 3)} ? ${this.expr(e.a, 2)} : ${this.expr(e.b, 2)}`, 2);
      }
      case 'call':
        return this.ret(`${e.fn}(${e.args.map((a) => this.expr(a, 2)).join(', ')})`, POSTFIX);
      case 'intr':
        // the type tests of nullable values (src/frontend/nullable.ts) are operators, not calls
        if (e.fn === 'typeof') return this.ret(`typeof ${this.expr(e.args[0], UNARY)}`, UNARY);
        if (e.fn === 'in') return this.ret(`${this.expr(e.args[0], 10)} in ${this.expr(e.args[1], 10)}`, 9);
        return this.ret(this.intrinsic(e), POSTFIX);
      case 'idx':
        return this.ret(`${this.expr(e.obj, POSTFIX)}[${this.expr(e.index)}]`, POSTFIX);
      case 'field':
        return this.ret(`${this.expr(e.obj, POSTFIX)}.${e.name}${e.nn && !this.opts.js ? '!' : ''}`, POSTFIX);
      case 'len':
        return this.ret(`${this.expr(e.obj, POSTFIX)}.length`, POSTFIX);
      case 'arrlit':
        return this.ret(`[${e.elems.map((a) => this.expr(a, 2)).join(', ')}]`, 20);
      case 'objlit':
        return this.ret(e.fields.length ? `{ ${e.fields.map((f) => (f.value.k === 'var' && f.value.name === f.name ? f.name : `${f.name}: ${this.expr(f.value, 2)}`)).join(', ')} }` : '{}', 20);
      case 'alloc':
        return this.ret(this.alloc(e), POSTFIX);
      case 'sub':
        return this.ret(`${this.expr(e.obj, POSTFIX)}.subarray(${this.expr(e.start, 2)}${e.end ? ', ' + this.expr(e.end, 2) : ''})`, POSTFIX);
    }
  }

  private alloc(e: Extract<Expr, { k: 'alloc' }>): string {
    const t = e.ty.k === 'arr' ? e.ty : null;
    const len = this.expr(e.len, 2);
    const ctor = t?.ctor ?? 'Float64Array';
    if (t?.typed) return e.fill && !(e.fill.k === 'num' && e.fill.v === 0) ? `new ${ctor}(${len}).fill(${this.expr(e.fill, 2)})` : `new ${ctor}(${len})`;
    const el = t ? printTy(t.elem, this.rt('Tape')) : 'number';
    const gen = this.opts.js ? '' : `<${el}>`;
    if (this.opts.packedZeros && t?.elem.k === 'num' && e.fill?.k === 'num' && e.fill.v === 0 && !Object.is(e.fill.v, -0)) return `${this.rt('zeros')}(${len})`;
    if (e.fill) return `new Array${gen}(${len}).fill(${this.expr(e.fill, 2)})`;
    return `new Array${gen}(${len})`;
  }

  private intrinsic(e: Extract<Expr, { k: 'intr' }>): string {
    const args = e.args.map((a) => this.expr(a, 2));
    const m = e.fn.startsWith('Math.') ? /^Math\.(min|max|hypot)Of$/.exec(e.fn) : null;
    if (m) return `Math.${m[1]}(...${args[0]})`;
    const tape = e.fn.startsWith('tape.') ? /^tape\.(\w+)$/.exec(e.fn) : null;
    if (tape) return `${args[0]}.${tape[1]}(${args.slice(1).join(', ')})`;
    if (e.fn === 'push') return `${this.expr(e.args[0], POSTFIX)}.push(${args[1]})`;
    if (e.fn === 'truncate') return `${this.expr(e.args[0], POSTFIX)}.length = ${args[1]}`;
    if (e.fn === 'pop') return `${this.expr(e.args[0], POSTFIX)}.pop()${this.opts.js || e.ty.k === 'void' ? '' : '!'}`;
    if (e.fn === 'indexOf' || e.fn === 'includes') return `${this.expr(e.args[0], POSTFIX)}.${e.fn}(${args[1]})`;
    if (e.fn === 'sortOrder') {
      // the indices of the array in the order a stable sort puts its elements (the comparator's)
      const a = this.expr(e.args[0], POSTFIX);
      const [p, q] = /^(u|v)$/.test(a) ? ['s', 't'] : ['u', 'v'];
      const desc = e.args[1].k === 'num' && e.args[1].v < 0;
      return `Int32Array.from(${a}.keys()).sort((${p}, ${q}) => ${desc ? `${a}[${q}] - ${a}[${p}]` : `${a}[${p}] - ${a}[${q}]`})`;
    }
    if (e.fn === 'copy') {
      const t = e.ty;
      if (t.k === 'arr' && t.typed) return `${t.ctor ?? 'Float64Array'}.from(${args[0]})`;
      return `${this.expr(e.args[0], POSTFIX)}.slice()`;
    }
    const dot = e.fn.indexOf('.');
    const fn = dot < 0 ? this.rt(e.fn) : this.rt(e.fn.slice(0, dot)) + e.fn.slice(dot);
    return `${fn}(${args.join(', ')})`;
  }

  private rt(name: string): string {
    return this.opts.runtime?.[name] ?? name;
  }

  // ---------- statements ----------
  stmts(body: Stmt[]): void {
    for (const s of body) this.stmt(s);
  }

  private block(head: string, body: Stmt[], tail = '}'): void {
    this.line(head ? `${head} {` : '{');
    this.depth++;
    this.stmts(body);
    this.depth--;
    this.line(tail);
  }

  simpleStmt(s: Stmt): string {
    switch (s.k) {
      case 'decl': {
        const kw = s.konst ? 'const' : 'let';
        if (!s.init) return `${kw} ${s.name}${this.opts.js ? '' : '!'}${this.ty(s.ty)}`;
        const annotate = needsAnnotation(s.ty, s.init) || !!s.widened;
        return `${kw} ${s.name}${annotate ? this.ty(s.ty) : ''} = ${this.expr(s.init, 2)}`;
      }
      case 'assign': {
        const t = this.expr(s.target);
        if (s.op && s.value.k === 'bin' && s.value.op === s.op) {
          if (s.inc && s.value.b.k === 'num' && s.value.b.v === 1 && (s.op === '+' || s.op === '-')) return `${t}${s.op}${s.op}`;
          return `${t} ${s.op}= ${this.expr(s.value.b, 2)}`;
        }
        return `${t} = ${this.expr(s.value, 2)}`;
      }
      case 'expr':
        return this.expr(s.e);
      default:
        throw new Error(`not a simple statement: ${s.k}`);
    }
  }

  stmt(s: Stmt): void {
    const outer = this.at;
    this.at = s.loc ?? outer;
    try {
      this.stmtAt(s);
    } finally {
      this.at = outer;
    }
  }

  private stmtAt(s: Stmt): void {
    if (s.comments) for (const c of s.comments) this.raw(c);
    const label = 'label' in s && s.label ? `${s.label}: ` : '';
    switch (s.k) {
      case 'decl':
      case 'assign':
      case 'expr':
        this.line(this.simpleStmt(s) + ';');
        return;
      case 'if': {
        this.line(`if (${this.expr(s.c)}) {`);
        this.depth++;
        this.stmts(s.then);
        this.depth--;
        let els = s.else;
        while (els.length === 1 && els[0].k === 'if' && !els[0].comments) {
          const e = els[0] as Extract<Stmt, { k: 'if' }>;
          this.line(`} else if (${this.expr(e.c)}) {`);
          this.depth++;
          this.stmts(e.then);
          this.depth--;
          els = e.else;
        }
        if (els.length) {
          this.line('} else {');
          this.depth++;
          this.stmts(els);
          this.depth--;
        }
        this.line('}');
        return;
      }
      case 'for': {
        const init = s.init.map((x) => this.simpleStmt(x));
        // `let i = 0, n = 3` needs one keyword
        const initText = init.length > 1 && init.every((x) => x.startsWith('let ')) ? 'let ' + init.map((x) => x.slice(4)).join(', ') : init.join(', ');
        const upd = s.update.map((x) => this.simpleStmt(x)).join(', ');
        this.block(`${label}for (${initText}; ${s.cond ? this.expr(s.cond) : ''}; ${upd})`, s.body);
        return;
      }
      case 'while':
        this.block(`${label}while (${this.expr(s.cond)})`, s.body);
        return;
      case 'do':
        this.block(`${label}do`, s.body, `} while (${this.expr(s.cond)});`);
        return;
      case 'block':
        this.block(`${label}`.trimEnd() || '', s.body);
        return;
      case 'switch': {
        this.line(`${label}switch (${this.expr(s.disc)}) {`);
        this.depth++;
        for (const c of s.cases) {
          if (c.tests) for (const t of c.tests) this.line(`case ${this.expr(t)}:`);
          else this.line('default:');
          if (c.body.length) {
            this.depth++;
            this.stmts(c.body);
            this.depth--;
          }
        }
        this.depth--;
        this.line('}');
        return;
      }
      case 'break':
        this.line(s.label ? `break ${s.label};` : 'break;');
        return;
      case 'continue':
        this.line(s.label ? `continue ${s.label};` : 'continue;');
        return;
      case 'return':
        this.line(s.e ? `return ${this.expr(s.e)};` : 'return;');
        return;
      case 'throw':
        this.line(`throw ${this.expr(s.e)};`);
        return;
    }
  }

  /** print what follows as derivative code (see PrintOptions.packedZeros) */
  derivativeCode(): void {
    this.opts = { ...this.opts, packedZeros: true };
    this.optsKey = undefined;
  }

  func(f: Func): void {
    const outer = this.at;
    this.at = f.loc;
    try {
      this.funcAt(f);
    } finally {
      this.at = outer;
    }
  }

  /**
   * `f` printed exported, at the top level. The lines are kept per function object and print options:
   * derivatives reused from an earlier compile (src/transform/reuse.ts) are the same objects, printed once.
   */
  exportedFunc(f: Func): void {
    if (this.depth !== 0 || this.at !== undefined) return this.func({ ...f, exported: true });
    const opts = (this.optsKey ??= JSON.stringify(this.opts));
    let kept = printedFuncs.get(f);
    if (kept?.opts !== opts) {
      const p = new Printer(this.opts);
      p.func({ ...f, exported: true });
      // (a printer of its own prints only lines: no kept function is nested in a function)
      kept = { opts, lines: p.out as string[], origins: p.origins, words: new Map() };
      printedFuncs.set(f, kept);
    }
    this.out.push(kept);
    this.origins.push(undefined);
  }

  private funcAt(f: Func): void {
    if (f.comments) for (const c of f.comments) this.raw(c);
    // `y?: T` stays optional where only optional or defaulted parameters follow it (as TypeScript requires);
    // elsewhere (before a derivative parameter) it is written `y: T | undefined` and passed explicitly
    const params = f.params.map((p, i) => {
      const optional = p.optional && p.ty.k === 'opt' && !this.opts.js && f.params.slice(i + 1).every((q) => q.optional || q.def);
      const ty = optional ? `?: ${printTy((p.ty as Extract<Ty, { k: 'opt' }>).base, this.rt('Tape'))}` : this.ty(p.ty);
      return `${p.name}${ty}${p.def ? ' = ' + this.expr(p.def, 2) : ''}`;
    }).join(', ');
    const ret = this.opts.js ? '' : `: ${printTy(f.ret, this.rt('Tape'))}`;
    this.block(`${f.exported ? 'export ' : ''}function ${f.name}(${params})${ret}`, f.body);
  }
}

function needsAnnotation(t: Ty, init: Expr): boolean {
  if (init.k === 'arrlit' || init.k === 'objlit') return true;
  // `c ? { u: a } : { u: b }` declared as an interface with optional fields: its literals lack them
  if (init.k === 'cond' && (t.k === 'obj' || t.k === 'arr' || t.k === 'tuple')) return true;
  if (t.k === 'str') return true;
  if (init.k === 'undef') return true;
  // `const branch = 'u' in p`: unannotated, TypeScript narrows `p` through it (to `never` where `u` is
  // required), and derivative code reads `p` on both sides of the branch
  if (t.k === 'bool' && hasTypeTest(init)) return true;
  if (init.k === 'intr' && init.fn === 'tape.popR') return true;
  return false;
}

function hasTypeTest(e: Expr): boolean {
  let found = false;
  forEachExpr(e, (x) => {
    if (x.k === 'intr' && (x.fn === 'in' || x.fn === 'typeof' || x.fn === 'Array.isArray')) found = true;
  });
  return found;
}

export function printFunc(f: Func, opts: PrintOptions = {}): string {
  const p = new Printer(opts);
  p.func(f);
  return p.text();
}
