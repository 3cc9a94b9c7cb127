// The primal's run, recorded (issue 19; report §2.10, G-1/G-2): a closed form may leave to the run the
// trip count of a loop whose iterations the data decide (`while … break`) and the exit it took (its exit
// φ kept: skipped, a break, the normal exit). The rules then run the function's own statements again,
// each such loop counting its iterations and noting its exit, and read the records where the closed
// form has the trip-count symbol and the exit φ. The statements are the source's, verbatim: the
// decisions are the primal's own, bit for bit (a loop re-derived from the simplified closed form could
// round a test the other way and differentiate another path). The last recorded loop is replayed from its
// closed form instead (replay.ts: O(M + K) where the run costs O(M·K)) where every decision can be
// certified to be the source's; a decision too close to call runs the loop here, as written.
//
// Only loops at the top level of the function are recorded (one record per loop: a loop nested in
// another runs once per outer iteration, its trip count with it).
import type { Expr, Func, Stmt } from '../../ir/types.js';
import { BOOL, deepCopy, forEachStmt, INT, mapBodies, mapStmts } from '../../ir/util.js';
import type { ToIROptions } from './convert.js';
import { replayLoop, ReplayUnsupported, type ReplayInfo } from './replay.js';

export type LoopStmt = Extract<Stmt, { k: 'for' | 'while' | 'do' }>;

/** a function whose run the rules cannot record (the reason) */
export class RecordsUnsupported extends Error {}

export interface RecordedLoop {
  /** the loop's SSA site (`L<n>`): its trip-count symbol is `#L<n>`, its exit φ's have the site */
  site: string;
  /** the exits in the order of the exit φ arguments: 'skip', 'break<j>' (in program order), 'normal' */
  exits: readonly string[];
  /** the loop statement of the function */
  src: LoopStmt;
}

const int = (v: number): Expr => (v < 0 ? { k: 'un', op: '-', a: { k: 'num', v: -v }, ty: INT } : { k: 'num', v });
const iv = (name: string): Extract<Expr, { k: 'var' }> => ({ k: 'var', name, ty: INT });

/**
 * f's statements (its final `return` left out) with each recorded loop counting its iterations into
 * `trip…` and its exit into `exit…` (the index of the exit φ argument it takes), and the options that
 * lower the closed form's trip-count symbols and exit φ's to reads of them.
 */
export function recordingRun(f: Func, loops: readonly RecordedLoop[], fresh: (hint: string) => string, replay?: ReplayInfo, replayNote?: (why: string) => void): { stmts: Stmt[]; options: ToIROptions; replayed: boolean } {
  const trip = new Map<string, string>();
  const exit = new Map<string, string>();
  const bySrc = new Map<Stmt, RecordedLoop>(loops.map((l) => [l.src, l]));
  const stmts: Stmt[] = [];
  for (const l of loops) {
    trip.set(l.site, fresh('trip'));
    exit.set(l.site, fresh('exit'));
    stmts.push({ k: 'decl', name: trip.get(l.site)!, ty: INT, init: int(0), konst: false });
    stmts.push({ k: 'decl', name: exit.get(l.site)!, ty: INT, init: int(-1), konst: false });
  }
  /** a list inside `owner`'s body (null: outside recorded loops, or inside a loop of its own); `breaks` counts owner's breaks met */
  const mapList = (list: Stmt[], owner: RecordedLoop | null, breaks: { j: number }): Stmt[] =>
    list.flatMap((s): Stmt[] => {
      const l = bySrc.get(s);
      if (l) {
        const k = trip.get(l.site)!, x = exit.get(l.site)!;
        const count: Stmt = { k: 'assign', target: iv(k), value: { k: 'bin', op: '+', a: iv(k), b: int(1), ty: INT }, op: '+', inc: true };
        const body = [count, ...mapList((s as LoopStmt).body, l, { j: 0 })];
        // not left by a break: skipped (no iteration) or the normal exit
        const skip = l.exits.indexOf('skip'), normal = l.exits.indexOf('normal');
        const other: Expr | null = skip >= 0 && normal >= 0 ? { k: 'cond', c: { k: 'bin', op: '===', a: iv(k), b: int(0), ty: { k: 'bool' } }, a: int(skip), b: int(normal), ty: INT } : skip >= 0 ? int(skip) : normal >= 0 ? int(normal) : null;
        const after: Stmt[] = other ? [{ k: 'if', c: { k: 'bin', op: '<', a: iv(x), b: int(0), ty: { k: 'bool' } }, then: [{ k: 'assign', target: iv(x), value: other }], else: [] }] : [];
        return [{ ...(s as LoopStmt), body }, ...after];
      }
      if (s.k === 'break' && !s.label && owner) {
        const j = breaks.j++;
        return [{ k: 'assign', target: iv(exit.get(owner.site)!), value: int(owner.exits.indexOf(`break${j}`)) }, s];
      }
      // (the breaks inside another loop are that loop's)
      const inner = s.k === 'for' || s.k === 'while' || s.k === 'do' ? null : owner;
      return [mapBodies(s, (b) => mapList(b, inner, inner === owner ? breaks : { j: 0 }))];
    });
  // (the statements after the last recorded loop decide nothing recorded: left out)
  const last = Math.max(...loops.map((l) => f.body.indexOf(l.src)));
  if (last < 0) throw new Error('records: a recorded loop is not at the top level of the function');
  // the run works on copies of the parameters it assigns: the rule reads the arguments after it
  const params = new Set(f.params.map((p) => p.name));
  const renamed = new Map<string, string>();
  forEachStmt(f.body.slice(0, last + 1), (st) => {
    if (st.k === 'decl' && params.has(st.name)) throw new RecordsUnsupported(`a declaration shadows the parameter '${st.name}'`);
    if (st.k === 'assign' && st.target.k === 'var' && params.has(st.target.name) && !renamed.has(st.target.name)) renamed.set(st.target.name, fresh(`${st.target.name}Run`));
  });
  const run = mapList(f.body.slice(0, last), null, { j: 0 });
  const lastLoop = loops.find((l) => l.src === f.body[last])!;
  const recordedLast = mapList([f.body[last]], null, { j: 0 });
  // the last loop replayed from its closed form where the replay can certify its decisions (replay.ts);
  // where it cannot (or the run assigns a parameter: closed forms read the arguments), the loop itself
  let replayed: Stmt[] | null = null;
  if (replay && renamed.size === 0) {
    const fallback = fresh('replayFailed');
    try {
      const irName = (n: string) => {
        const d = replay.ssa.defs.get(n);
        return d ? d.of : n;
      };
      const stmts = replayLoop(replay, lastLoop, { fresh, irName, trip: trip.get(lastLoop.site)!, exit: exit.get(lastLoop.site)!, fallback });
      const reset: Stmt[] = [
        { k: 'assign', target: iv(trip.get(lastLoop.site)!), value: int(0) },
        { k: 'assign', target: iv(exit.get(lastLoop.site)!), value: int(-1) },
      ];
      replayed = [{ k: 'decl', name: fallback, ty: BOOL, init: { k: 'bool', v: false }, konst: false }, ...stmts, { k: 'if', c: { k: 'var', name: fallback, ty: BOOL }, then: [...reset, ...recordedLast], else: [] }];
    } catch (e) {
      if (!(e instanceof ReplayUnsupported)) throw e;
      replayNote?.(e.message);
    }
  }
  run.push(...(replayed ?? recordedLast));
  for (const [p, r] of renamed) stmts.push({ k: 'decl', name: r, ty: f.params.find((q) => q.name === p)!.ty, init: { k: 'var', name: p, ty: f.params.find((q) => q.name === p)!.ty }, konst: false });
  // (a copy: the rule's statements share no node with the function's)
  stmts.push(...mapStmts(deepCopy(run), (e) => (e.k === 'var' && renamed.has(e.name) ? { ...e, name: renamed.get(e.name)! } : e)));
  const options: ToIROptions = {
    name: (s) => {
      if (s.role !== 'trip') return s.name;
      const k = trip.get(s.name.slice(1));
      if (!k) throw new Error(`records: no recorded trip count for ${s.name}`);
      return k;
    },
    decision: (site) => {
      const x = exit.get(site);
      if (!x) throw new Error(`records: no recorded exit for ${site}`);
      return iv(x);
    },
  };
  return { stmts, options, replayed: replayed !== null };
}
