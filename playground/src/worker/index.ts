// The compiler's Web Worker: compiles, checks and samples the plot off the page's thread, so typing
// never waits for it. Requests are handled one at a time, in order; the page drops stale replies.
import type { Reply, Request } from '../protocol.js';
import { check } from './check.js';
import { DiagnosticsError, generate } from './generate.js';
import { headsOf } from './heads.js';
import { samplePlot } from './plot.js';
import { installStdlib } from './stdlib.js';

/** the worker's global scope, typed for what is used here (the page's tsconfig has the DOM library) */
const scope = self as unknown as { onmessage: ((e: MessageEvent<Request>) => void) | null; postMessage(reply: Reply): void };

installStdlib();

function handle(req: Request): Reply {
  const { id, source } = req;
  try {
    if (req.kind === 'compile') {
      const t0 = performance.now();
      const heads = headsOf(source);
      const head = heads.names.includes(req.head) ? req.head : heads.preferred;
      if (!head) return { id, kind: 'compiled', heads: [], head: '', code: null, wrt: [], ms: 0, diagnostics: [{ line: 1, col: 1, message: 'no function to differentiate', hint: 'write a function, e.g. export function f(x: number[]): number { … }' }] };
      const g = generate(source, head);
      return { id, kind: 'compiled', heads: heads.names, head, ...g, ms: performance.now() - t0 };
    }
    if (req.kind === 'check') return { id, kind: 'checked', summary: check(source, req.head, req.input) };
    return { id, kind: 'plotted', plot: samplePlot(source, req.head, req.input, req.direction, req.seed) };
  } catch (e) {
    if (e instanceof DiagnosticsError) return { id, kind: 'failed', message: 'the code has errors (see Diagnostics)', diagnostics: e.diagnostics };
    // the user's function may throw (an explicit `throw`, a RangeError): say what it threw
    return { id, kind: 'failed', message: e instanceof Error ? e.message : String(e) };
  }
}

scope.onmessage = (e) => scope.postMessage(handle(e.data));
