// The front end after an edit inside one function's body (issue 21: a recompile after a one-function
// edit). The last whole lowering of a one-file module is kept; when the next text differs from it only
// inside the body of one top-level function, only that function is type-checked and lowered, and the
// other functions are taken from the kept module, their locations moved by the lines the edit added.
//
// This is sound only where nothing outside the edited function depends on its body, so it is taken
// only when (else the whole file is checked and lowered, as for a first compile):
//  - the function is a plain `function` declaration with an annotated return type (an inferred one
//    changes its callers' types) that takes no functions (a helper taking functions is copied and
//    lowered per call site, src/frontend/closures.ts: its callers' results hold its body);
//  - its body, before and after, declares no type (whose name other functions' types could show) and
//    assigns no module-level variable (TypeScript narrows a `var`/`let` in other functions by whether
//    it is assigned anywhere), and lowering it asks for no helper's specialised copy (their names and
//    order in the module depend on which function asked first);
//  - the region check of the function (TypeScript's nodes-only check) finds no error, and the function
//    lowers, or fails, as before;
//  - the named types its lowering registers first are those it registered before, in the same order
//    (the module's types are printed in the order lowering first met them);
//  - the text after the edit on the edit's last line belongs to the function (later statements move
//    by whole lines, so their columns stay).
import ts from 'typescript';
import { inferInts } from '../analysis/ints.js';
import type { FailedFunc, Func, Loc, Module } from '../ir/types.js';
import { takesFunctions } from '../frontend/closures.js';
import { codeFrame, DiagnosticBag } from '../frontend/diagnostics.js';
import { createProgram, hostPaths, lowerProgram, type LoweringTrace } from '../frontend/lower.js';
import { outline, wordCounts, type OutlinedBody } from './outline.js';
import { hasErrorsIn } from '../frontend/type-errors.js';
import { timed } from '../ir/timing.js';
import { normalizeFunc } from '../transform/normalize.js';

/** a top-level function declaration as the kept lowering saw it */
interface Shape extends OutlinedBody {
  /** its index among the file's statements */
  index: number;
  /** a plain declaration with an annotated return type, taking no functions */
  reusable: boolean;
}

interface Kept {
  /** the file's name as given, and its text */
  name: string;
  text: string;
  statements: number;
  shapes: Map<string, Shape>;
  /** the words of the text outside the reusable functions' bodies, counted (outline.ts) */
  outside: Map<string, number>;
  /** the lowered, normalised module (never changed: a compile takes a copy) */
  mod: Module;
  trace: LoweringTrace;
}

let kept: Kept | null = null;
/** the function the last front end lowered alone, or null when it lowered the whole file (tests, benchmarks) */
let lastEdited: string | null = null;

export function loweredAloneLast(): string | null {
  return lastEdited;
}

/** Forgets the kept lowering (benchmarks timing a cold compile, tests comparing with one). */
export function forgetLowered(): void {
  kept = null;
}

/** Keeps a whole lowering of `files` (normalised, never to be changed) for the next compile's reuse. */
export function keepLowered(program: ts.Program, files: Map<string, string>, mod: Module, trace: LoweringTrace): void {
  kept = null;
  if (files.size !== 1) return;
  const [name, text] = [...files][0];
  const sf = program.getSourceFile(hostPaths([name]).get(name)!);
  if (!sf || sf.text !== text) return;
  const checker = program.getTypeChecker();
  const shapes = new Map<string, Shape>();
  sf.statements.forEach((st, index) => {
    if (!ts.isFunctionDeclaration(st) || !st.name || !st.body) return;
    const reusable = !!st.type && !st.asteriskToken && !ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.AsyncKeyword || m.kind === ts.SyntaxKind.DeclareKeyword) && !takesFunctions(st.parameters, checker);
    // (an overloaded or redeclared name: not reusable under either declaration)
    shapes.set(st.name.text, shapes.has(st.name.text) ? { ...shapes.get(st.name.text)!, reusable: false } : { index, bodyStart: st.body.getStart(sf) + 1, bodyEnd: st.body.end - 1, reusable });
  });
  kept = { name, text, statements: sf.statements.length, shapes, outside: wordsOutside(text, shapes), mod, trace };
}

/** the words of `text` outside the reusable functions' bodies, counted */
function wordsOutside(text: string, shapes: ReadonlyMap<string, Shape>): Map<string, number> {
  const counts = new Map<string, number>();
  let from = 0;
  for (const s of [...shapes.values()].filter((x) => x.reusable).sort((a, b) => a.bodyStart - b.bodyStart)) {
    wordCounts(text.slice(from, s.bodyStart), counts);
    from = s.bodyEnd;
  }
  wordCounts(text.slice(from), counts);
  return counts;
}

/**
 * The lowered, normalised module of `files` built from the kept one by lowering only the function whose
 * body the edit is in; null where that is not known to give what lowering the whole file gives. The
 * function is checked and lowered in an outline of the file (outline.ts), or where nothing can be
 * blanked, in `wholeProgram()`.
 */
export function lowerEdited(files: Map<string, string>, wholeProgram: () => ts.Program): Module | null {
  lastEdited = null;
  const k = kept;
  if (!k || files.size !== 1 || !files.has(k.name)) return null;
  const text = files.get(k.name)!;
  const change = changeBetween(k.text, text);
  if (!change) return null;
  const [fname, shape] = [...k.shapes].find(([, s]) => s.bodyStart <= change.start && change.oldEnd <= s.bodyEnd) ?? [];
  if (!fname || !shape?.reusable) return null;
  // later statements move by whole lines only when the edit's last line ends inside the function
  if (!k.text.slice(change.oldEnd, shape.bodyEnd + 1).includes('\n') && shape.index < k.statements - 1) return null;
  const delta = text.length - k.text.length;
  const outlined = timed('parse', () => outline({ before: k.text, after: text, bodies: k.shapes, edited: fname, outside: k.outside }));
  const program = outlined ? timed('parse', () => createProgram(new Map([[k.name, outlined.text]]))) : wholeProgram();
  const sf = program.getSourceFile(hostPaths([k.name]).get(k.name)!);
  if (!sf) return null;
  // the new text parses to the same statements, the edited function's body ending at the same brace
  // (and in an outline, each blanked function's where it was, moved by the edit)
  const st = sf.statements[shape.index];
  if (sf.statements.length !== k.statements || !st || !ts.isFunctionDeclaration(st) || st.name?.text !== fname || !st.body) return null;
  if (st.body.getStart(sf) + 1 !== shape.bodyStart || st.body.end - 1 !== shape.bodyEnd + delta) return null;
  for (const n of outlined?.blanked ?? []) {
    const b = k.shapes.get(n)!;
    const shift = b.bodyStart > shape.bodyStart ? delta : 0;
    const bst = sf.statements[b.index];
    if (!ts.isFunctionDeclaration(bst) || bst.name?.text !== n || !bst.body || bst.body.getStart(sf) + 1 !== b.bodyStart + shift || bst.body.end - 1 !== b.bodyEnd + shift) return null;
  }
  const oldFunc = k.mod.funcs.get(fname);
  const oldFailed = k.mod.failed.get(fname);
  const oldTrace = k.trace.funcs.get(fname);
  if ((!oldFunc && !oldFailed) || !oldTrace || oldTrace.specialised) return null;
  const moduleVars = moduleVariables(sf);
  if (declaresTypes(st.body) || assignsAny(st.body, moduleVars)) return null;
  // (the old body's shape: its text is the kept one, parsed apart from the program)
  const oldBody = ts.createSourceFile('old.ts', k.text.slice(shape.bodyStart - 1, shape.bodyEnd + 1), ts.ScriptTarget.Latest, true);
  if (declaresTypes(oldBody) || assignsAny(oldBody, moduleVars)) return null;
  if (timed('check', () => hasErrorsIn(program, sf, [st]))) return null;

  const diags = new DiagnosticBag(files);
  const trace: LoweringTrace = { globalTypes: [], funcs: new Map() };
  const part = lowerProgram(program, new Set(files.keys()), diags, files, { only: fname, trace });
  const now = trace.funcs.get(fname);
  if (diags.hasErrors || !now || now.specialised) return null;
  if (!sameFirstTypes(k.trace, fname, now.types)) return null;
  const func = part.funcs.get(fname);
  const failed = part.failed.get(fname);
  if (!!func !== !!oldFunc || !!failed !== !!oldFailed) return null;
  if (sameNames(k.trace.globalTypes, trace.globalTypes) === false) return null;

  // the kept module, the edited function replaced and the others' locations moved
  const from = lineOf(k.text, change.oldEnd);
  const lines = countLines(text, change.start, change.newEnd) - countLines(k.text, change.start, change.oldEnd);
  const move = (l: Loc): Loc => (l.line > from ? { ...l, line: l.line + lines } : l);
  const funcs = new Map<string, Func>();
  for (const [n, f] of k.mod.funcs) funcs.set(n, n === fname ? normalized(func!) : lines ? moveLocs(f, move) : f);
  // (a failed function's diagnostics show the lines around them: those near the edit are shown again)
  const near = lineOf(k.text, change.start) - 1;
  const failedNow = new Map<string, FailedFunc>();
  for (const [n, e] of k.mod.failed) failedNow.set(n, n === fname ? failed! : movedFailure(e, move, near, files));
  for (const n of part.failed.keys()) if (!failedNow.has(n)) return null; // (collected before lowering: the same as before)
  const mod: Module = { funcs, globals: part.globals, order: k.mod.order, types: k.mod.types, failed: failedNow };
  keepEdited(k, sf, fname, text, mod);
  lastEdited = fname;
  return mod;
}

function normalized(f: Func): Func {
  return timed('normalize', () => {
    inferInts(f);
    return normalizeFunc(f);
  });
}

/** the kept lowering moved to the edited text (its shapes read again: the positions after the edit moved) */
function keepEdited(k: Kept, sf: ts.SourceFile, edited: string, text: string, mod: Module): void {
  const shapes = new Map<string, Shape>();
  sf.statements.forEach((st, index) => {
    if (!ts.isFunctionDeclaration(st) || !st.name || !st.body) return;
    const was = k.shapes.get(st.name.text);
    // (the edited body's words and blank are those of its old text)
    if (was) shapes.set(st.name.text, { ...was, bodyStart: st.body.getStart(sf) + 1, bodyEnd: st.body.end - 1, ...(st.name.text === edited ? { words: undefined, blank: undefined } : {}) });
  });
  kept = { ...k, text, shapes, mod };
}

/**
 * The named types the edited function registers first, where the module constants and the functions
 * before it have registered theirs: the same list as before (the list `now` was made with only the
 * constants' types registered, so the earlier functions' are dropped from it).
 */
function sameFirstTypes(before: LoweringTrace, fname: string, now: string[]): boolean {
  const earlier = new Set(before.globalTypes);
  for (const [n, t] of before.funcs) {
    if (n === fname) break;
    for (const x of t.types) earlier.add(x);
  }
  return sameNames(now.filter((x) => !earlier.has(x)), before.funcs.get(fname)!.types);
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** the names of the module-level `var`/`let` declarations */
function moduleVariables(sf: ts.SourceFile): Set<string> {
  const out = new Set<string>();
  for (const st of sf.statements) {
    if (!ts.isVariableStatement(st) || st.declarationList.flags & ts.NodeFlags.Const) continue;
    for (const d of st.declarationList.declarations) bindingNames(d.name, out);
  }
  return out;
}

function bindingNames(n: ts.BindingName, out: Set<string>): void {
  if (ts.isIdentifier(n)) out.add(n.text);
  else for (const e of n.elements) if (!ts.isOmittedExpression(e)) bindingNames(e.name, out);
}

/** does any assignment, increment or for-in/of target under `root` name one of `names`? (a local shadowing it counts too: the answer errs towards yes) */
function assignsAny(root: ts.Node, names: ReadonlySet<string>): boolean {
  if (!names.size) return false;
  const targets = (n: ts.Node): boolean => (ts.isIdentifier(n) ? names.has(n.text) : !!n.forEachChild(targets));
  const visit = (n: ts.Node): boolean => {
    if (ts.isBinaryExpression(n) && n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && n.operatorToken.kind <= ts.SyntaxKind.LastAssignment && targets(n.left)) return true;
    if ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) && (n.operator === ts.SyntaxKind.PlusPlusToken || n.operator === ts.SyntaxKind.MinusMinusToken) && targets(n.operand)) return true;
    if ((ts.isForInStatement(n) || ts.isForOfStatement(n)) && !ts.isVariableDeclarationList(n.initializer) && targets(n.initializer)) return true;
    return !!n.forEachChild(visit);
  };
  return visit(root);
}

/** does `root` declare a type, interface, class or enum? */
function declaresTypes(root: ts.Node): boolean {
  const visit = (n: ts.Node): boolean =>
    ts.isTypeAliasDeclaration(n) || ts.isInterfaceDeclaration(n) || ts.isClassLike(n) || ts.isEnumDeclaration(n) || !!n.forEachChild(visit);
  return visit(root);
}

/** a function's IR with every location `move` moves replaced; parts with none moved are shared */
function moveLocs<T>(value: T, move: (l: Loc) => Loc, seen = new Map<unknown, unknown>()): T {
  if (typeof value !== 'object' || value === null) return value;
  const done = seen.get(value);
  if (done !== undefined) return done as T;
  let out: unknown = value;
  if (Array.isArray(value)) {
    const items = value.map((x) => moveLocs(x, move, seen));
    if (items.some((x, i) => x !== value[i])) out = items;
  } else if (Object.getPrototypeOf(value) === Object.prototype) {
    const entries = Object.entries(value as Record<string, unknown>);
    let changed = false;
    const next: Record<string, unknown> = {};
    for (const [key, x] of entries) {
      const y = key === 'loc' && x ? move(x as Loc) : moveLocs(x, move, seen);
      if (y !== x) changed = true;
      next[key] = y;
    }
    if (changed) out = next;
  }
  seen.set(value, out);
  return out as T;
}

/** a failed function's diagnostics at their moved lines, with their code frames read again near the edit */
function movedFailure(e: FailedFunc, move: (l: Loc) => Loc, near: number, files: Map<string, string>): FailedFunc {
  let changed = false;
  const diagnostics = e.diagnostics.map((d) => {
    const l = move(d);
    if (l.line === d.line && d.line < near) return d;
    changed = true;
    const src = files.get(d.file);
    return { ...d, line: l.line, frame: src === undefined ? d.frame : codeFrame(src, l.line, d.col) };
  });
  return changed ? { ...e, diagnostics } : e;
}

/** 1-based line of position `pos` */
function lineOf(text: string, pos: number): number {
  return countLines(text, 0, pos) + 1;
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

const CHUNK = 1024;

/** the one span of `before` that `after` replaces, or null when they are equal */
function changeBetween(before: string, after: string): { start: number; oldEnd: number; newEnd: number } | null {
  if (before === after) return null;
  const min = Math.min(before.length, after.length);
  // (equal stretches are skipped a chunk at a time: comparing slices compares memory, a module is large)
  let start = 0;
  while (start + CHUNK <= min && before.slice(start, start + CHUNK) === after.slice(start, start + CHUNK)) start += CHUNK;
  while (start < min && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let end = 0;
  while (end + CHUNK <= min - start && before.slice(before.length - end - CHUNK, before.length - end) === after.slice(after.length - end - CHUNK, after.length - end)) end += CHUNK;
  while (end < min - start && before.charCodeAt(before.length - 1 - end) === after.charCodeAt(after.length - 1 - end)) end++;
  return { start, oldEnd: before.length - end, newEnd: after.length - end };
}
