// Idle tapes: tapes no code ever records on.
//
// Adjoint code differentiated again (a nested derivative: tsad's output as tsad's input) holds its
// tapes in variables. An adjoint whose sweeps record nothing (`potential_fwd(tape, p, pb, w)` of a
// straight-line function) still takes a tape in `potential_b` and passes it to both sweeps. Given an
// adjoint of its own, that tape would get a shadow tape, both taken per inner call and held from the
// outer forward sweep to the outer backward sweep: more tapes than the pool keeps, a new one per call.
// A tape that is idle has nothing to differentiate: it is passed as it is, with no shadow.
//
// A tape parameter is idle when its function only passes it on to idle parameters; a local tape is
// idle when it is only taken (`Tape.acquire()`), released and passed to idle parameters. Every tape
// starts idle, and any other use (a push or pop on it, a call to a function not in the module, a copy
// into another variable) makes it busy, until nothing changes.
import type { Expr, Module, Stmt } from '../ir/types.js';
import { perFunction } from '../ir/per-function.js';
import { forEachExpr, forEachStmt, stmtExprs } from '../ir/util.js';

/** a function's tape parameters and locals (kept per function object: every ProgramInfo asks of every function) */
const tapeVariables = perFunction((f) => {
  const tapes = new Set<string>();
  for (const p of f.params) if (p.ty.k === 'tape') tapes.add(p.name);
  forEachStmt(f.body, (s) => {
    if (s.k === 'decl' && s.ty.k === 'tape') tapes.add(s.name);
  });
  return tapes;
});

/** The idle tape variables (parameters and locals) of each function of the module, by function name. */
export function idleTapes(mod: Module): Map<string, Set<string>> {
  const idle = new Map<string, Set<string>>();
  for (const [name, f] of mod.funcs) idle.set(name, new Set(tapeVariables(f)));
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, f] of mod.funcs) {
      const mine = idle.get(name)!;
      if (mine.size === 0) continue;
      const busy = busyTapes(f.body, mine, (fn, j) => {
        const callee = mod.funcs.get(fn);
        return !!callee && j < callee.params.length && (idle.get(fn)?.has(callee.params[j].name) ?? false);
      });
      for (const v of busy) {
        mine.delete(v);
        changed = true;
      }
    }
  }
  return idle;
}

/**
 * The tapes of `candidates` that `body` uses other than by taking, releasing, or passing at a position
 * `idleAt` calls idle. Each occurrence of a candidate is counted, and the allowed ones are taken away.
 */
function busyTapes(body: Stmt[], candidates: ReadonlySet<string>, idleAt: (fn: string, j: number) => boolean): Set<string> {
  const seen = new Map<string, number>();
  const allowed = new Map<string, number>();
  const add = (m: Map<string, number>, n: string) => m.set(n, (m.get(n) ?? 0) + 1);
  const isAcquire = (e: Expr | null | undefined) => !!e && e.k === 'intr' && e.fn === 'Tape.acquire';
  forEachStmt(body, (s) => {
    // `t = Tape.acquire()`: the target is an occurrence, and an allowed one
    if (s.k === 'assign' && s.target.k === 'var' && candidates.has(s.target.name) && isAcquire(s.value) && !s.op) add(allowed, s.target.name);
    if (s.k === 'decl' && candidates.has(s.name) && s.init && !isAcquire(s.init)) add(seen, s.name);
    for (const e of stmtExprs(s))
      forEachExpr(e, (x) => {
        if (x.k === 'var' && candidates.has(x.name)) add(seen, x.name);
        if (x.k === 'intr' && x.fn === 'Tape.release') for (const a of x.args) if (a.k === 'var' && candidates.has(a.name)) add(allowed, a.name);
        if (x.k === 'call') x.args.forEach((a, j) => a.k === 'var' && candidates.has(a.name) && idleAt(x.fn, j) && add(allowed, a.name));
      });
  });
  const out = new Set<string>();
  for (const [n, k] of seen) if (k !== (allowed.get(n) ?? 0)) out.add(n);
  return out;
}
