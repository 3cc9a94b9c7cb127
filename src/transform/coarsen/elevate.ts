// Symbolic elevation (issue 19, coarsening; report §2.7 steps 1–3): the closed form of the values of
// an SSA function (src/analysis/ssa.ts) as terms, by forward substitution along the SSA definitions,
// branch φ's kept as φ terms tagged with their site, and loops closed by the φ-calculus:
//
// - each loop-entry φ is a stand-in symbol while the body is elevated, so the value of every
//   loop-carried variable at the back edge is a recurrence over the stand-ins;
// - the recurrences are closed one at a time (src/transform/coarsen/phi.ts: C6–C9, C5 for a small
//   constant trip count), a variable whose recurrence reads only its own stand-in first; its closed
//   form at the iteration index then replaces its stand-in in the others (so `i` closes to the index
//   and `d += f(x[i])` becomes a C7 recurrence);
// - the trip count is the loop's symbol (`#L<n>`, recorded by the primal), or for a counted loop
//   without breaks (`for (i = 0; i < n; i++)`, n invariant) `max(0, ceil(n))`, which is what lets an
//   inner loop be closed inside an outer one;
// - each exit φ gets its arguments' values in the last iteration (F4: stand-ins at trip − 1, the
//   normal exit's back-edge value as the closed form after `trip` updates) and is removed by F5 where
//   that holds; otherwise it stays, to be decided by the exit the primal took.
//
// Not yet here (throws ElevateUnsupported): φ's that stay inside a loop (one recorded decision per
// site: per-iteration records are missing), coupled recurrences, loops without a closed form (unless
// unrolled), loops nested in loops whose trip count is not counted, array writes (array SSA), effects.
// The def-use chains, region tree and SOI choice (report §2.9) are the next steps.
import type { PhiNode, SsaFunc, SsaNode } from '../../analysis/ssa.js';
import { fromIR } from './convert.js';
import { closeRecurrence, exitPhiF5, type Closed } from './phi.js';
import { simplify, type Assumptions } from './simplify.js';
import * as T from './terms.js';
import type { Term } from './terms.js';

export class ElevateUnsupported extends Error {}

export interface Elevated {
  /** the closed form of every SSA name defined outside loops (and of loop exit φ's) */
  terms: Map<string, Term>;
  /** the returned value, if the function returns one */
  result: Term | null;
  /** per loop site: its trip count and the corollary that closed each carried variable */
  loops: Map<string, { trip: Term; rules: Record<string, Closed['rule']> }>;
}

export interface ElevateOptions {
  assume?: Assumptions;
  /** C5: unroll loops with a constant trip count up to this */
  unroll?: number;
  /** SSA definitions kept as symbols of their own name (the active inputs of a segment of interest) */
  cut?: (ssaName: string) => boolean;
}

export function elevate(ssa: SsaFunc, opts: ElevateOptions = {}): Elevated {
  const terms = new Map<string, Term>();
  const loops: Elevated['loops'] = new Map();
  const s = (t: Term) => simplify(t, opts.assume);
  const term = (name: string): Term => terms.get(name) ?? T.sym(name);
  const conv = (e: Parameters<typeof fromIR>[0]) => s(fromIR(e, { resolve: (n) => terms.get(n) }));
  let depth = 0;
  let result: Term | null = null;

  const walk = (list: SsaNode[]): void => {
    for (const n of list) {
      switch (n.k) {
        case 'def':
          if (opts.cut?.(n.name)) terms.set(n.name, T.sym(n.name));
          else if (!n.value) throw new ElevateUnsupported(`${n.of} is read before it has a value`);
          else terms.set(n.name, conv(n.value));
          break;
        case 'phi': {
          const t = s(T.phi(n.kind, n.site, n.args.map(term)));
          // one recorded decision per site: a φ that stays inside a loop would need one per iteration
          if (depth > 0 && t.k === 'phi' && t.site === n.site) throw new ElevateUnsupported(`a branch φ inside loop (${n.site}): its decision varies with the iteration`);
          terms.set(n.name, t);
          break;
        }
        case 'if':
          walk(n.then);
          walk(n.else);
          break;
        case 'loop':
          loop(n);
          break;
        case 'break':
          break;
        case 'return':
          result = n.value ? conv(n.value) : null;
          break;
        case 'store':
          throw new ElevateUnsupported('an array or field write (no array SSA yet)');
        case 'effect':
          throw new ElevateUnsupported('an expression statement');
      }
    }
  };

  const hasBreak = (list: SsaNode[]): boolean => list.some((n) => n.k === 'break' || (n.k === 'if' && (hasBreak(n.then) || hasBreak(n.else))));

  const loop = (n: Extract<SsaNode, { k: 'loop' }>): void => {
    const index = T.sym(`${n.site}.i`, 'index');
    const prevs = new Map<PhiNode, Extract<Term, { k: 'sym' }>>();
    for (const p of n.entry) {
      const v = T.sym(p.name);
      prevs.set(p, v);
      terms.set(p.name, v);
    }
    depth++;
    walk(n.body);
    walk(n.update);
    depth--;
    // the recurrences, closed one by one
    const pending = new Map<PhiNode, Term>();
    const after = new Map<PhiNode, (m: Term) => Term>();
    const rules: Record<string, Closed['rule']> = {};
    for (const p of n.entry) {
      if (p.args.length === 1) after.set(p, () => term(p.args[0])); // the body never reaches the back edge
      else pending.set(p, term(p.args[1]));
    }
    const atIteration = (t: Term, j: Term): Term => {
      let out = t;
      for (const [p, f] of after) out = T.subst(out, prevs.get(p)!, f(j));
      return s(T.subst(out, index, j));
    };
    while (pending.size) {
      let progress = false;
      for (const [p, next0] of pending) {
        const next = atIteration(next0, index);
        const others = [...pending.keys()].filter((q) => q !== p && T.dependsOn(next, prevs.get(q)!));
        if (others.length) continue;
        const closed = closeRecurrence({ prev: prevs.get(p)!, next, init: term(p.args[0]), index }, opts);
        if (!closed) throw new ElevateUnsupported(`no closed form for ${p.of} in loop ${n.site}`);
        rules[p.of] = closed.rule;
        after.set(p, closed.after);
        pending.delete(p);
        progress = true;
      }
      if (!progress) throw new ElevateUnsupported(`coupled recurrences in loop ${n.site}: ${[...pending.keys()].map((p) => p.of).join(', ')}`);
    }
    // the trip count: counted loops without breaks, else the recorded symbol
    let trip: Term = T.tripCount(n.site);
    const counted = n.form !== 'do' && n.cond && !hasBreak(n.body) ? countedTrip(n, prevs, after) : null;
    if (counted) trip = s(counted);
    else if (depth > 0) throw new ElevateUnsupported(`loop ${n.site} inside a loop with a trip count only the run knows`);
    loops.set(n.site, { trip, rules });
    const last = s(T.add(trip, T.num(-1)));
    for (const x of n.exit) {
      const entry = n.entry.find((p) => p.of === x.of);
      if (!entry) throw new ElevateUnsupported(`the exit φ of ${x.of} in loop ${n.site} has no entry φ (the loop never reads it)`);
      const args = x.args.map((a, j) => {
        const label = n.exits[j];
        if (label === 'skip') return term(a);
        if (label === 'normal' && entry.args[1] === a) return after.get(entry)!(trip);
        return atIteration(term(a), last);
      });
      const phi = s(T.phi('exit', n.site, args));
      const closedExit = n.exits[0] === 'skip' ? exitPhiF5(phi, trip, opts.assume) : phi;
      if (depth > 0 && closedExit.k === 'phi' && closedExit.site === n.site) throw new ElevateUnsupported(`the exit φ of ${x.of} stays, inside an outer loop: its exit varies with the iteration`);
      terms.set(x.name, closedExit);
    }
  };

  /** `for (v = a; v < b; v++)`-like: v closes to a + index, b free of the loop's stand-ins ⇒ max(0, ceil(b − a)) */
  const countedTrip = (n: Extract<SsaNode, { k: 'loop' }>, prevs: Map<PhiNode, Term>, after: Map<PhiNode, (m: Term) => Term>): Term | null => {
    const c = n.cond!;
    if (c.k !== 'bin' || (c.op !== '<' && c.op !== '<=')) return null;
    // the counter v in the test `v + δ < b` (or ≤), δ and b free of the loop's stand-ins
    const lhs = conv(c.a);
    const free = (t: Term) => ![...prevs.values()].some((v) => T.dependsOn(t, v));
    const p = n.entry.find((q) => after.has(q) && T.dependsOn(lhs, prevs.get(q)!) && free(s(T.sub(lhs, prevs.get(q)!))));
    if (!p) return null;
    const delta = s(T.sub(lhs, prevs.get(p)!));
    const m = T.sym('#m', 'trip');
    const a = term(p.args[0]);
    if (s(after.get(p)!(m)) !== s(T.add(a, m))) return null; // not a unit step
    const bound = conv(c.b);
    if (!free(bound)) return null;
    const span = T.sub(bound, T.add(a, delta));
    // v + δ < b runs while a + δ + m < b: ⌈b − a − δ⌉ times; ≤: ⌊b − a − δ⌋ + 1 times (never fewer than 0)
    return T.fn('Math.max', T.num(0), c.op === '<' ? T.fn('Math.ceil', span) : T.add(T.fn('Math.floor', span), T.num(1)));
  };

  walk(ssa.body);
  return { terms, result, loops };
}
