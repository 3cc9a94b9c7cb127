// The messages between the page and the compiler's Web Worker. Every request carries an id; the reply
// to it carries the same id, so the page can drop replies to requests it has since superseded.

/** what the page asks for: each request names the source and the head function it is about */
export type Request = { id: number; source: string; head: string } & (
  | { kind: 'compile' }
  | { kind: 'check'; input: string }
  | { kind: 'plot'; input: string; direction: string; seed: number }
);

/** a diagnostic as the page shows it: 1-based line and column in the editor's text */
export interface Located {
  line: number;
  col: number;
  message: string;
  hint?: string;
}

/** the generated code of each mode, as `tsad --mode <mode>` prints it */
export interface Generated {
  tangent: string;
  vector: string;
  adjoint: string;
}

/** What a check found, in words and numbers (what `tsad --check --stats` prints). */
export interface CheckSummary {
  verdict: 'passed' | 'FAILED' | 'INCONCLUSIVE';
  /** `name = value` for every argument of the point checked */
  point: string;
  rows: [string, string][];
  messages: string[];
}

export interface PlotData {
  t: number[];
  f: number[];
  /** d/dt f(x + t·v), from the generated tangent code */
  df: number[];
  /** the point x, `name = value` per argument, and the direction v, per independent */
  point: string;
  direction: string;
}

export type Reply = { id: number } & (
  | { kind: 'compiled'; heads: string[]; head: string; diagnostics: Located[]; code: Generated | null; wrt: string[]; ms: number }
  | { kind: 'checked'; summary: CheckSummary }
  | { kind: 'plotted'; plot: PlotData }
  /** a request that could not run: bad JSON, a function that throws, an internal error */
  | { kind: 'failed'; message: string; diagnostics?: Located[] }
);
