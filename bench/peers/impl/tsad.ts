// Peer "tsad": tsad's generated adjoint code, bound exactly as evals/<eval>/derivatives.ts binds it
// (same derive() keys and options, so the same generated code), called on adjoint buffers allocated
// once and zeroed inside each timed call. The primal is the objective compiled by tsc.
import type { GmmArgs } from '../../../evals/gmm/io.js';
import { gmmObjective } from '../../../evals/gmm/objective.js';
import { kmeansForwardOverReverse } from '../../../evals/kmeans/derivatives.js';
import type { KmeansArgs } from '../../../evals/kmeans/io.js';
import { kmeansCost } from '../../../evals/kmeans/objective.js';
import type { LlsqArgs } from '../../../evals/llsq/io.js';
import { llsq } from '../../../evals/llsq/objective.js';
import type { LseArgs } from '../../../evals/lse/io.js';
import { logsumexp } from '../../../evals/lse/objective.js';
import { derive, evalSource, zerosRows } from '../../../evals/tsad.js';
import { flatten, type Problem } from '../problems.js';
import type { PeerImpl, PeerInstance } from '../protocol.js';

type Rows = number[][];

function zeroRows(a: Rows): void {
  for (const r of a) for (let j = 0; j < r.length; j++) r[j] = 0;
}

function zero(a: number[]): void {
  for (let j = 0; j < a.length; j++) a[j] = 0;
}

function lse(a: LseArgs): PeerInstance {
  const fb = derive('lse/logsumexp/reverse', () => ({ 'lse.ts': evalSource('lse') }), { head: 'logsumexp', wrt: ['x'], modes: ['reverse'] })
    .fn<(x: number[], xb: number[], resultb: number) => void>('logsumexp_b', ['x', 'xb', 'resultb']);
  const xb = new Array<number>(a.x.length).fill(0);
  return {
    grad() {
      zero(xb);
      fb(a.x, xb, 1);
      return xb[0];
    },
    primal: () => logsumexp(a.x),
    check: () => ({ value: logsumexp(a.x), grad: xb }),
  };
}

function llsqPeer(a: LlsqArgs): PeerInstance {
  const fb = derive('llsq/llsq/reverse', () => ({ 'llsq.ts': evalSource('llsq') }), { head: 'llsq', wrt: ['x'], modes: ['reverse'] })
    .fn<(x: number[], xb: number[], n: number, resultb: number) => void>('llsq_b', ['x', 'xb', 'n', 'resultb']);
  const xb = new Array<number>(a.x.length).fill(0);
  return {
    grad() {
      zero(xb);
      fb(a.x, xb, a.n, 1);
      return xb[0];
    },
    primal: () => llsq(a.x, a.n),
    check: () => ({ value: llsq(a.x, a.n), grad: xb }),
  };
}

type GmmB = (
  alpha: number[], alphab: number[], mu: Rows, mub: Rows, q: Rows, qb: Rows, l: Rows, lb: Rows,
  x: Rows, m: number, gamma: number, resultb: number,
) => void;

function gmm(a: GmmArgs): PeerInstance {
  const fb = derive('gmm/gmmObjective/reverse', () => ({ 'gmm.ts': evalSource('gmm') }), {
    head: 'gmmObjective',
    wrt: ['alpha', 'mu', 'q', 'l'],
    modes: ['reverse'],
  }).fn<GmmB>('gmmObjective_b', ['alpha', 'alphab', 'mu', 'mub', 'q', 'qb', 'l', 'lb', 'x', 'm', 'gamma', 'resultb']);
  const ab = new Array<number>(a.alpha.length).fill(0), mub = zerosRows(a.mu), qb = zerosRows(a.q), lb = zerosRows(a.l);
  const primal = () => gmmObjective(a.alpha, a.mu, a.q, a.l, a.x, a.m, a.gamma);
  return {
    grad() {
      zero(ab);
      zeroRows(mub);
      zeroRows(qb);
      zeroRows(lb);
      fb(a.alpha, ab, a.mu, mub, a.q, qb, a.l, lb, a.x, a.m, a.gamma, 1);
      return ab[0];
    },
    primal,
    check: () => ({ value: primal(), grad: flatten([ab, mub, qb, lb]) }),
  };
}


function kmeans(a: KmeansArgs): PeerInstance {
  // forward over reverse, as evals/kmeans/derivatives.ts: the tangent of tsad's adjoint gives G and H·1
  const fbd = kmeansForwardOverReverse();
  const ones = a.centroids.map((r) => new Array<number>(r.length).fill(1));
  const h = zerosRows(a.centroids), g = zerosRows(a.centroids), dir = zerosRows(a.centroids);
  return {
    grad() {
      zeroRows(g); // the adjoint accumulates; its tangent h is zeroed by the generated code
      fbd(a.centroids, ones, g, h, a.points, 1);
      for (let j = 0; j < dir.length; j++) {
        const dj = dir[j], gj = g[j], hj = h[j];
        for (let u = 0; u < dj.length; u++) dj[u] = gj[u] / hj[u];
      }
      return dir[0][0];
    },
    primal: () => kmeansCost(a.centroids, a.points),
    check: () => ({ value: kmeansCost(a.centroids, a.points), grad: flatten(dir) }),
  };
}

export const peer: PeerImpl = {
  async init() {
    return { library: 'tsad (this repository)', dtype: 'float64', code: 'generated adjoint (_b) loaded in-process; primal compiled by tsc' };
  },
  setup(p: Problem): PeerInstance {
    const a = p.args as unknown;
    switch (p.spec.eval) {
      case 'lse':
        return lse(a as LseArgs);
      case 'llsq':
        return llsqPeer(a as LlsqArgs);
      case 'gmm':
        return gmm(a as GmmArgs);
      case 'kmeans':
        return kmeans(a as KmeansArgs);
    }
  },
};
