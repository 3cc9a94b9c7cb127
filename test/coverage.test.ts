// Coverage of the corpus: every IR node kind and every derivative rule is exercised by at least one
// corpus function, and every corpus function is differentiated in every mode (test/corpus.test.ts).
import { describe, expect, it } from 'vitest';
import { frontEnd } from '../src/api/compile.js';
import type { Expr, Stmt } from '../src/ir/types.js';
import { forEachExpr, forEachStmt, stmtExprs } from '../src/ir/util.js';
import { RULES } from '../src/rules/table.js';
import { corpus } from './corpus/index.js';
import { caseSources } from './support/corpus.js';

const STMT_KINDS: Stmt['k'][] = ['decl', 'assign', 'expr', 'if', 'for', 'while', 'do', 'switch', 'block', 'break', 'continue', 'return', 'throw'];
const EXPR_KINDS: Expr['k'][] = ['num', 'bool', 'str', 'var', 'global', 'bin', 'un', 'cond', 'call', 'intr', 'idx', 'field', 'len', 'arrlit', 'objlit', 'alloc', 'sub', 'raw'];

function collect() {
  const stmts = new Set<string>();
  const exprs = new Set<string>();
  const rules = new Set<string>();
  const seen = new Set<string>();
  for (const c of corpus) {
    const mod = frontEnd(caseSources(c.file));
    // what the head reaches is what gets differentiated
    const todo = [c.head];
    while (todo.length) {
      const n = todo.pop()!;
      if (seen.has(`${c.file}:${n}`)) continue;
      seen.add(`${c.file}:${n}`);
      const f = mod.funcs.get(n);
      if (!f) continue;
      forEachStmt(f.body, (s) => {
        stmts.add(s.k);
        if (s.k === 'block' && !s.label) stmts.delete('block');
        for (const e of stmtExprs(s))
          forEachExpr(e, (x) => {
            exprs.add(x.k);
            if (x.k === 'bin') rules.add(x.op);
            if (x.k === 'un') rules.add(x.op === '-' ? 'neg' : x.op === '+' ? 'pos' : x.op);
            if (x.k === 'intr') rules.add(x.fn.replace(/Of$/, ''));
            if (x.k === 'call') todo.push(x.fn);
          });
      });
    }
  }
  return { stmts, exprs, rules };
}

describe('corpus coverage', () => {
  const { stmts, exprs, rules } = collect();
  it('exercises every statement kind of the IR', () => {
    expect(STMT_KINDS.filter((k) => !stmts.has(k))).toEqual([]);
  });
  it('exercises every expression kind of the IR', () => {
    expect(EXPR_KINDS.filter((k) => !exprs.has(k))).toEqual([]);
  });
  it('exercises every entry of the rule table', () => {
    expect(Object.keys(RULES).filter((k) => !rules.has(k))).toEqual([]);
  });
});
