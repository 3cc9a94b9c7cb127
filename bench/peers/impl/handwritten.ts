// Peer "hand-written": the hand-written float64 gradients of evals/<eval>/handwritten.ts (the
// baseline tsad is measured against), output buffers allocated once.
import { gmmObjectiveGradient, makeGmmWorkspace } from '../../../evals/gmm/handwritten.js';
import type { GmmArgs } from '../../../evals/gmm/io.js';
import { kmeansDir, makeKmeansWorkspace } from '../../../evals/kmeans/handwritten.js';
import type { KmeansArgs } from '../../../evals/kmeans/io.js';
import { llsqGradient } from '../../../evals/llsq/handwritten.js';
import type { LlsqArgs } from '../../../evals/llsq/io.js';
import { logsumexpGradient } from '../../../evals/lse/handwritten.js';
import type { LseArgs } from '../../../evals/lse/io.js';
import { flatten, type Problem } from '../problems.js';
import type { PeerImpl, PeerInstance } from '../protocol.js';

function instance(p: Problem): PeerInstance {
  let value = NaN;
  switch (p.spec.eval) {
    case 'lse': {
      const a = p.args as LseArgs;
      const g = new Float64Array(a.x.length);
      return { grad: () => (value = logsumexpGradient(a.x, g)), check: () => ({ value, grad: g }) };
    }
    case 'llsq': {
      const a = p.args as LlsqArgs;
      const g = new Float64Array(a.x.length);
      return { grad: () => (value = llsqGradient(a.x, a.n, g)), check: () => ({ value, grad: g }) };
    }
    case 'gmm': {
      const a = p.args as GmmArgs;
      const ws = makeGmmWorkspace(a.x[0].length, a.alpha.length);
      return {
        grad: () => (value = gmmObjectiveGradient(a.alpha, a.mu, a.q, a.l, a.x, a.m, a.gamma, ws)),
        check: () => ({ value, grad: flatten([ws.grad.alpha, ws.grad.mu, ws.grad.q, ws.grad.l]) }),
      };
    }
    case 'kmeans': {
      const a = p.args as KmeansArgs;
      const ws = makeKmeansWorkspace(a.centroids.length, a.points[0].length);
      return { grad: () => (value = kmeansDir(a.centroids, a.points, ws)), check: () => ({ value, grad: ws.dir }) };
    }
  }
}

export const peer: PeerImpl = {
  async init() {
    return { library: 'evals/<eval>/handwritten.ts', dtype: 'float64', code: 'hand-written gradient, compiled by tsc' };
  },
  setup: (p) => instance(p),
};
