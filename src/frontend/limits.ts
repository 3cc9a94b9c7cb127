// Inputs too deep to compile safely (recursive parsers, type checkers and IR passes would overflow the
// stack) are rejected up front with a located diagnostic instead of a crash or a hang.
import ts from 'typescript';
import type { DiagnosticBag } from './diagnostics.js';

export const MAX_DEPTH = 300;

/** Bracket nesting in the raw text, before TypeScript's recursive-descent parser sees it. */
export function checkBracketDepth(file: string, text: string, diags: DiagnosticBag): boolean {
  let depth = 0;
  let line = 1;
  let col = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      line++;
      col = 1;
      continue;
    }
    col++;
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      i--;
      continue;
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const skipped = text.slice(i, end < 0 ? text.length : end + 2);
      line += (skipped.match(/\n/g) ?? []).length;
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') {
      depth++;
      if (depth > MAX_DEPTH) {
        diags.error({ file, line, col: col - 1 }, `brackets nested more than ${MAX_DEPTH} levels deep: too deep to compile safely`, 'split the expression into intermediate variables');
        return false;
      }
    } else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
  }
  return true;
}

/** top-level statements found within the depth limit: a recompile's parse reuses the unchanged ones (reparse.ts) */
const withinDepth = new WeakSet<ts.Node>();

/** Expression depth in the syntax tree (long operator chains), before type checking. */
export function checkTreeDepth(sf: ts.SourceFile, display: string, diags: DiagnosticBag): boolean {
  // (each top-level statement starts again at depth 0; the last first, where one stack over the file
  // would meet it first, so that the first too deep found is the same)
  const tops: ts.Node[] = [];
  sf.forEachChild((c) => {
    tops.push(c);
  });
  for (let i = tops.length - 1; i >= 0; i--) {
    if (withinDepth.has(tops[i])) continue;
    if (!checkStatementDepth(tops[i], sf, display, diags)) return false;
    withinDepth.add(tops[i]);
  }
  return true;
}

function checkStatementDepth(top: ts.Node, sf: ts.SourceFile, display: string, diags: DiagnosticBag): boolean {
  // (a stack, not recursion: the tree may be deeper than the call stack; nodes and depths side by side,
  // and one callback for all nodes, since this visits every node of the file)
  const nodes: ts.Node[] = [top];
  const depths: number[] = [0];
  let d = 0;
  let isExpr = false;
  let chain: ts.Node | null = null;
  const push = (c: ts.Node) => {
    nodes.push(c);
    depths.push(isExpr ? d + (c === chain ? 0.5 : 1) : ts.isBlock(c) ? 0 : d);
  };
  while (nodes.length) {
    const n = nodes.pop()!;
    d = depths.pop()!;
    if (d > MAX_DEPTH) {
      const { line, character } = sf.getLineAndCharacterOfPosition(n.getStart(sf));
      diags.error({ file: display, line: line + 1, col: character + 1 }, `expression nested more than ${MAX_DEPTH} levels deep (a very long chain of operators?): too deep to compile safely`, 'split it into several statements, e.g. accumulate a sum in a loop or in partial sums');
      return false;
    }
    isExpr = ts.isExpression(n) || ts.isParenthesizedExpression(n);
    // (a chain of binary operators, `a + b + c + …`, counts half a level per link: TypeScript checks
    // such chains without recursion, and tsad's passes take about twice as many links as nested calls)
    chain = ts.isBinaryExpression(n) && ts.isBinaryExpression(n.left) ? n.left : null;
    n.forEachChild(push);
  }
  return true;
}
