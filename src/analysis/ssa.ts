// SSA with φ-functions for one IR function or a region of one, built on demand (issue 19, coarsening; report §2.2, F-1/F-2).
//
// The IR is structured (src/ir/types.ts), so the SSA form keeps the structure: a tree of nodes in
// which every scalar variable definition gets a fresh name (`s.1`, `s.2`, …; parameters keep their
// own names) and every read is renamed to the definition it sees. φ's are of three kinds, each with
// its site:
// - branch φ's after an `if` (site `if<n>`, arguments [then, else], the condition on the `if` node:
//   argument 0 when it held). A branch that does not fall through (it breaks) adds no argument, so
//   there is no φ when only one branch reaches the merge;
// - loop-entry φ's at the head of a loop (site `L<n>`), one per variable the loop assigns that lives
//   beyond an iteration: [value before the loop, value at the back edge] (F4);
// - loop-exit φ's after the loop (same site), one per variable visible after the loop:
//   [value if the loop is skipped, value at each `break` in program order, value at the normal exit],
//   so an exit φ has arity 1 + the number of exits (report F-1: a `while` with a `break` gives 3).
//   `do … while` has no skip argument, `while (true)`/`for (;;)` neither skip nor normal exit.
// Each loop carries the symbol of its trip count (`#L<n>`), the number of iterations the primal runs.
// `prune` removes φ's nobody reads (the report's Fig. 6 counts nine for BGDHyperOpt).
//
// Not yet here (throws SsaUnsupported): `continue` (needs a latch merge), `return` other than the last
// statement of the function, `switch`, `throw`, labelled jumps to outer loops. Arrays and object fields
// are not versioned (array SSA): element and field writes are `store` nodes in place.
import type { Expr, Func, LValue, Stmt } from '../ir/types.js';
import { mapExpr } from '../ir/util.js';

export type PhiKind = 'branch' | 'entry' | 'exit';

export interface PhiNode {
  k: 'phi';
  name: string;
  /** the source variable */
  of: string;
  kind: PhiKind;
  site: string;
  args: string[];
  /** exit φ's: what each argument stands for ('skip', 'break<j>', 'normal') */
  exits?: string[];
}

export type SsaNode =
  | { k: 'def'; name: string; of: string; value: Expr | null }
  | PhiNode
  | { k: 'if'; site: string; cond: Expr; then: SsaNode[]; else: SsaNode[] }
  | {
      k: 'loop';
      site: string;
      form: 'for' | 'while' | 'do';
      /** the trip-count symbol */
      trip: string;
      entry: PhiNode[];
      /** tested at the head with the entry φ's (for, while) or at the latch (do) */
      cond: Expr | null;
      body: SsaNode[];
      update: SsaNode[];
      exit: PhiNode[];
      /** labels of the exits, in the order of the exit φ arguments */
      exits: string[];
      /** the IR statement of the loop (coarsening records its trip count and exit there) */
      src: Extract<Stmt, { k: 'for' | 'while' | 'do' }>;
    }
  /** leaves the innermost loop by its exit `index` (0-based among the breaks) */
  | { k: 'break'; site: string; index: number }
  | { k: 'store'; target: LValue; value: Expr }
  | { k: 'effect'; e: Expr }
  | { k: 'return'; value: Expr | null };

export interface SsaFunc {
  name: string;
  params: string[];
  body: SsaNode[];
  /** every definition and φ by SSA name */
  defs: Map<string, Extract<SsaNode, { k: 'def' | 'phi' }>>;
  /** for a region that falls through: the SSA name each variable visible before it has after it */
  liveOut?: Map<string, string>;
}

export class SsaUnsupported extends Error {}

type Env = Map<string, string>;

interface LoopCtx {
  site: string;
  label?: string;
  breaks: Env[];
}

export function buildSsa(f: Func): SsaFunc {
  return buildSsaOf(f.name, f.body, f.params.map((p) => p.name));
}

/**
 * SSA of a region: a statement list whose reads of `liveIn` see the values before it (they keep their
 * names). A region that falls through reports in `liveOut` the SSA name of each live-in variable
 * after it (a function body ends in its return and has none).
 */
export function buildSsaOf(name: string, stmts: Stmt[], liveIn: string[]): SsaFunc {
  const versions = new Map<string, number>();
  const defs = new Map<string, Extract<SsaNode, { k: 'def' | 'phi' }>>();
  let sites = 0;
  const fresh = (v: string): string => {
    const n = (versions.get(v) ?? 0) + 1;
    versions.set(v, n);
    return `${v}.${n}`;
  };
  const rename = (e: Expr, env: Env): Expr => mapExpr(e, (x) => (x.k === 'var' && env.has(x.name) ? { ...x, name: env.get(x.name)! } : x));
  const loops: LoopCtx[] = [];

  /** variables assigned anywhere in a statement list (nested included) */
  const assigned = (list: Stmt[], out: Set<string>): Set<string> => {
    for (const s of list) {
      if (s.k === 'assign' && s.target.k === 'var') out.add(s.target.name);
      if (s.k === 'if') {
        assigned(s.then, out);
        assigned(s.else, out);
      } else if (s.k === 'for') {
        assigned(s.init, out);
        assigned(s.update, out);
        assigned(s.body, out);
      } else if (s.k === 'while' || s.k === 'do' || s.k === 'block') assigned(s.body, out);
    }
    return out;
  };

  /** process a list in a scope of its own; returns the environment falling out of it, or null */
  const block = (list: Stmt[], env0: Env, out: SsaNode[], topLevel = false): Env | null => {
    let env: Env | null = new Map(env0);
    const declared: string[] = [];
    for (let i = 0; i < list.length; i++) {
      if (!env) break; // unreachable code after a break
      const s = list[i];
      env = stmt(s, env, out, declared, topLevel && i === list.length - 1);
    }
    if (!env) return null;
    // leaving the scope: its declarations are no longer visible (an outer binding of the name comes back)
    for (const name of declared) {
      if (env0.has(name)) env.set(name, env0.get(name)!);
      else env.delete(name);
    }
    return env;
  };

  const stmt = (s: Stmt, env: Env, out: SsaNode[], declared: string[], last: boolean): Env | null => {
    switch (s.k) {
      case 'decl': {
        const value = s.init ? rename(s.init, env) : null;
        const name = fresh(s.name);
        out.push({ k: 'def', name, of: s.name, value });
        defs.set(name, out[out.length - 1] as Extract<SsaNode, { k: 'def' }>);
        env.set(s.name, name);
        declared.push(s.name);
        return env;
      }
      case 'assign': {
        const value = rename(s.value, env);
        if (s.target.k !== 'var') {
          out.push({ k: 'store', target: rename(s.target, env) as LValue, value });
          return env;
        }
        const name = fresh(s.target.name);
        const node: SsaNode = { k: 'def', name, of: s.target.name, value };
        out.push(node);
        defs.set(name, node);
        env.set(s.target.name, name);
        return env;
      }
      case 'expr':
        out.push({ k: 'effect', e: rename(s.e, env) });
        return env;
      case 'block':
        if (s.label) throw new SsaUnsupported('labelled blocks');
        return block(s.body, env, out);
      case 'if': {
        const site = `if${sites++}`;
        const node: Extract<SsaNode, { k: 'if' }> = { k: 'if', site, cond: rename(s.c, env), then: [], else: [] };
        out.push(node);
        const a = block(s.then, env, node.then);
        const b = block(s.else, env, node.else);
        if (!a || !b) return a ?? b;
        const merged: Env = new Map(env);
        for (const [v, va] of a) {
          const vb = b.get(v);
          if (vb === undefined || !env.has(v)) continue;
          if (va === vb) {
            merged.set(v, va);
            continue;
          }
          const phi: PhiNode = { k: 'phi', name: fresh(v), of: v, kind: 'branch', site, args: [va, vb] };
          out.push(phi);
          defs.set(phi.name, phi);
          merged.set(v, phi.name);
        }
        return merged;
      }
      case 'for':
      case 'while':
      case 'do':
        return loop(s, env, out);
      case 'break': {
        const ctx = loops[loops.length - 1];
        if (!ctx) throw new SsaUnsupported('break outside a loop');
        if (s.label && s.label !== ctx.label) throw new SsaUnsupported('a labelled break out of an outer loop');
        out.push({ k: 'break', site: ctx.site, index: ctx.breaks.length });
        ctx.breaks.push(new Map(env));
        return null;
      }
      case 'continue':
        throw new SsaUnsupported('continue');
      case 'return':
        if (!last) throw new SsaUnsupported('return before the end of the function');
        out.push({ k: 'return', value: s.e ? rename(s.e, env) : null });
        return null;
      default:
        throw new SsaUnsupported(s.k);
    }
  };

  const loop = (s: Extract<Stmt, { k: 'for' | 'while' | 'do' }>, env0: Env, out: SsaNode[]): Env | null => {
    const site = `L${sites++}`;
    // for-init declarations live in the loop's scope
    let env: Env = new Map(env0);
    const initNodes: SsaNode[] = [];
    const scoped: string[] = [];
    if (s.k === 'for')
      for (const st of s.init) {
        const next = stmt(st, env, initNodes, scoped, false);
        if (!next) throw new SsaUnsupported('a jump in a for-loop initializer');
        env = next;
      }
    out.push(...initNodes);
    const pre = new Map(env);
    const carried = [...assigned(s.k === 'for' ? [...s.body, ...s.update] : s.body, new Set())].filter((v) => pre.has(v));
    const entry: PhiNode[] = carried.map((v) => {
      const phi: PhiNode = { k: 'phi', name: fresh(v), of: v, kind: 'entry', site, args: [pre.get(v)!] };
      defs.set(phi.name, phi);
      env.set(v, phi.name);
      return phi;
    });
    const condExpr = s.cond;
    const always = !condExpr || (condExpr.k === 'bool' && condExpr.v);
    const node: Extract<SsaNode, { k: 'loop' }> = { k: 'loop', site, form: s.k, trip: `#${site}`, entry, cond: null, body: [], update: [], exit: [], exits: [], src: s };
    out.push(node);
    if (s.k !== 'do' && condExpr && !always) node.cond = rename(condExpr, env);
    const ctx: LoopCtx = { site, label: s.label, breaks: [] };
    loops.push(ctx);
    let latch = block(s.body, env, node.body);
    if (latch && s.k === 'for') latch = block(s.update, latch, node.update);
    loops.pop();
    if (latch) for (const phi of entry) phi.args.push(latch.get(phi.of)!);
    if (s.k === 'do' && latch && condExpr && !always) node.cond = rename(condExpr, latch);
    const hasSkip = s.k !== 'do' && !always;
    const hasNormal = !always && latch !== null;
    node.exits = [...(hasSkip ? ['skip'] : []), ...ctx.breaks.map((_, j) => `break${j}`), ...(hasNormal ? ['normal'] : [])];
    if (node.exits.length === 0) throw new SsaUnsupported('a loop without an exit');
    const after: Env = new Map(env0);
    for (const phi of entry) {
      if (!env0.has(phi.of)) continue; // declared by the for-init: gone after the loop
      const args = [...(hasSkip ? [pre.get(phi.of)!] : []), ...ctx.breaks.map((b) => b.get(phi.of)!), ...(hasNormal ? [latch!.get(phi.of)!] : [])];
      const exit: PhiNode = { k: 'phi', name: fresh(phi.of), of: phi.of, kind: 'exit', site, args, exits: node.exits };
      defs.set(exit.name, exit);
      node.exit.push(exit);
      after.set(phi.of, exit.name);
    }
    return after;
  };

  const params = liveIn;
  const env0: Env = new Map(params.map((p) => [p, p]));
  const body: SsaNode[] = [];
  const end = block(stmts, env0, body, true);
  return end ? { name, params, body, defs, liveOut: end } : { name, params, body, defs };
}

/** every SSA name read by a node (its own children excluded) */
function reads(n: SsaNode, out: Set<string>): void {
  const expr = (e: Expr | null) => {
    if (e)
      mapExpr(e, (x) => {
        if (x.k === 'var') out.add(x.name);
        return x;
      });
  };
  switch (n.k) {
    case 'def':
      expr(n.value);
      break;
    case 'phi':
      for (const a of n.args) out.add(a);
      break;
    case 'if':
      expr(n.cond);
      break;
    case 'loop':
      expr(n.cond);
      for (const p of [...n.entry, ...n.exit]) reads(p, out);
      break;
    case 'store':
      expr(n.target);
      expr(n.value);
      break;
    case 'effect':
      expr(n.e);
      break;
    case 'return':
      expr(n.value);
      break;
  }
}

/** all nodes of the tree, in program order (loops: entry φ's, body, update, exit φ's) */
export function allNodes(list: SsaNode[], out: SsaNode[] = []): SsaNode[] {
  for (const n of list) {
    out.push(n);
    if (n.k === 'if') {
      allNodes(n.then, out);
      allNodes(n.else, out);
    } else if (n.k === 'loop') {
      out.push(...n.entry);
      allNodes(n.body, out);
      allNodes(n.update, out);
      out.push(...n.exit);
    }
  }
  return out;
}

/** Remove the φ's whose results nobody reads (repeatedly: a φ read only by dead φ's is dead). */
export function prune(ssa: SsaFunc): SsaFunc {
  for (;;) {
    const used = new Set<string>();
    const nodes = allNodes(ssa.body);
    for (const n of nodes) reads(n, used);
    const dead = new Set(nodes.filter((n): n is PhiNode => n.k === 'phi' && !used.has(n.name)).map((n) => n.name));
    if (!dead.size) return ssa;
    const keep = (list: SsaNode[]): SsaNode[] =>
      list.filter((n) => !(n.k === 'phi' && dead.has(n.name))).map((n) => {
        if (n.k === 'if') return { ...n, then: keep(n.then), else: keep(n.else) };
        if (n.k === 'loop') return { ...n, entry: n.entry.filter((p) => !dead.has(p.name)), body: keep(n.body), update: keep(n.update), exit: n.exit.filter((p) => !dead.has(p.name)) };
        return n;
      });
    ssa = { ...ssa, body: keep(ssa.body), defs: new Map([...ssa.defs].filter(([k]) => !dead.has(k))) };
  }
}

export function phis(ssa: SsaFunc): PhiNode[] {
  return allNodes(ssa.body).filter((n): n is PhiNode => n.k === 'phi');
}
