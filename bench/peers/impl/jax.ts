// Peer "jax-js": @jax-js/jax on its Wasm device, float64, jit(valueAndGrad(f)) (kmeans: jit of
// jvp(valueAndGrad(cost)) with an all-ones tangent, i.e. forward over reverse, giving G and H·1 in one
// compiled function). Same vectorised formulations as the TensorFlow.js peers. jax-js counts
// references: every use of an array but the last takes `.ref` (see its README). Inputs live in arrays
// created once; a timed call runs the compiled function and reads the results back with dataSync()
// (which realises and consumes them).
//
// Node 20 has no Float16Array, which jax-js references when building arrays from typed arrays; a
// stand-in class (never constructed: only float64 data is used) is installed before use.
import { numpy as np, init, jit, jvp, valueAndGrad, defaultDevice, type Array as JArray } from '@jax-js/jax';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { GmmArgs } from '../../../evals/gmm/io.js';
import { logMultiGamma } from '../../../evals/gmm/objective.js';
import type { KmeansArgs } from '../../../evals/kmeans/io.js';
import type { LlsqArgs } from '../../../evals/llsq/io.js';
import type { LseArgs } from '../../../evals/lse/io.js';
import type { Problem } from '../problems.js';
import type { PeerImpl, PeerInstance } from '../protocol.js';

const g = globalThis as Record<string, unknown>;
if (typeof g['Float16Array'] === 'undefined') {
  g['Float16Array'] = class Float16ArrayUnavailable {
    constructor() {
      throw new Error('Float16Array is not available in this Node version');
    }
  };
}

const f64 = { dtype: np.float64 };

function arr(v: number[] | number[][], shape: number[]): JArray {
  const flat = Array.isArray(v[0]) ? (v as number[][]).flat() : (v as number[]);
  return np.array(Float64Array.from(flat), { shape, dtype: np.float64 });
}

/** A compiled value-and-gradient function over `xs`; results flattened into problems.ts layout. */
function instance(
  vg: (...xs: JArray[]) => [JArray, JArray[]],
  pf: (...xs: JArray[]) => JArray,
  xs: JArray[],
  size: number,
  notes: string[] = [],
): PeerInstance {
  const out = new Float64Array(size);
  let value = NaN;
  const grad = (): number => {
    const [v, gs] = vg(...xs.map((x) => x.ref));
    value = v.dataSync()[0];
    let o = 0;
    for (const gi of gs) {
      const d = gi.dataSync();
      out.set(d, o);
      o += d.length;
    }
    return value + out[0];
  };
  const primal = (): number => pf(...xs.map((x) => x.ref)).dataSync()[0];
  return {
    grad,
    primal,
    check: () => {
      grad();
      return { value, grad: out };
    },
    notes,
    dispose: () => xs.forEach((x) => x.dispose()),
  };
}

function lse(a: LseArgs): PeerInstance {
  const f = (x: JArray): JArray => {
    const m = np.max(x.ref);
    return np.log(np.sum(np.exp(x.sub(m.ref)))).add(m);
  };
  const vg = jit(valueAndGrad(f));
  const x = arr(a.x, [a.x.length]);
  return instance((x) => {
    const [v, gx] = vg(x);
    return [v, [gx]];
  }, jit(f), [x], a.x.length);
}

function llsqPeer(a: LlsqArgs): PeerInstance {
  const n = a.n, m = a.x.length;
  const tv = Array.from({ length: n }, (_, i) => -1 + (i * 2) / (n - 1));
  const t = arr(tv, [n]);
  const s = arr(tv.map(Math.sign), [n]);
  const objective = (T: JArray, x: JArray): JArray => {
    const r = s.ref.sub(np.matmul(T, x.reshape([m, 1])).reshape([n]));
    return np.sum(np.square(r)).mul(0.5);
  };
  const f = (x: JArray): JArray => objective(np.vander(t.ref, { n: m, increasing: true }), x); // T[i][j] = t_i^j
  const vg = jit(valueAndGrad(f));
  const inst = instance((x) => {
    const [v, gx] = vg(x);
    return [v, [gx]];
  }, jit(f), [arr(a.x, [m])], m);
  // the power matrix depends on n only: precomputed once and passed as a second, undifferentiated
  // argument (a closed-over constant of this size made jit'd calls take seconds), the "grad-const" row
  const T0 = np.vander(t.ref, { n: m, increasing: true });
  const vgc = jit(valueAndGrad((x: JArray, T: JArray) => objective(T, x)));
  const hoisted = instance((x, T) => {
    const [v, gx] = vgc(x, T);
    return [v, [gx]];
  }, jit(f), [arr(a.x, [m]), T0], m);
  return { ...inst, gradConst: hoisted.grad };
}

function gmm(a: GmmArgs): PeerInstance {
  const K = a.alpha.length, N = a.x.length, D = a.x[0].length, nl = (D * (D - 1)) / 2;
  // L_k = l_k times a constant 0/1 scatter matrix (np.take's gradient, a scatter, does not jit in jax-js 0.1.25)
  const scatter = new Float64Array(Math.max(nl, 1) * D * D);
  for (let c = 0, t = 0; c < D; c++) for (let r = c + 1; r < D; r++) scatter[t++ * D * D + r * D + c] = 1;
  const S = np.array(scatter, { shape: [Math.max(nl, 1), D * D], dtype: np.float64 });
  const eye = np.eye(D, D, f64);
  const x = arr(a.x, [1, N, D]);
  const nu = D + a.m + 1;
  const constant = -0.5 * N * D * Math.log(2 * Math.PI) + K * (nu * D * (Math.log(a.gamma) - 0.5 * Math.log(2)) - logMultiGamma(0.5 * nu, D));
  const g2 = a.gamma * a.gamma, mm = a.m;
  const f = (alpha: JArray, mu: JArray, q: JArray, l: JArray): JArray => {
    const expq = np.exp(q.ref); // [K, D]
    const Q = np.matmul(l.ref, S.ref).reshape([K, D, D]).add(expq.ref.reshape([K, D, 1]).mul(eye.ref)); // [K, D, D]
    const diff = x.ref.sub(mu.reshape([K, 1, D])); // [K, N, D]
    const z = np.matmul(diff, np.matrixTranspose(Q)); // [K, N, D]
    const sq = np.sum(np.square(z), 2); // [K, N]
    const sumq = np.sum(q, 1); // [K]
    const beta = alpha.ref.add(sumq.ref).reshape([K, 1]).sub(sq.mul(0.5)); // [K, N]
    const bmax = np.max(beta.ref, 0, { keepdims: true }); // [1, N]
    const slse = np.sum(bmax.ref.reshape([N]).add(np.log(np.sum(np.exp(beta.sub(bmax)), 0))));
    const amax = np.max(alpha.ref);
    const lseAlpha = amax.ref.add(np.log(np.sum(np.exp(alpha.sub(amax)))));
    const frob = np.sum(np.square(expq)).add(np.sum(np.square(l)));
    const prior = frob.mul(-0.5 * g2).add(np.sum(sumq).mul(mm));
    return slse.sub(lseAlpha.mul(N)).add(prior).add(constant);
  };
  const vg = jit(valueAndGrad(f, { argnums: [0, 1, 2, 3] }));
  const params = [arr(a.alpha, [K]), arr(a.mu, [K, D]), arr(a.q, [K, D]), nl > 0 ? arr(a.l, [K, nl]) : np.zeros([K, 0], f64)];
  return instance(
    (al, mu, q, l) => {
      const [v, gs] = vg(al, mu, q, l);
      return [v, gs as unknown as JArray[]];
    },
    jit(f),
    params,
    K * (1 + 2 * D + nl),
  );
}

function kmeans(a: KmeansArgs): PeerInstance {
  const K = a.centroids.length, N = a.points.length, D = a.points[0].length;
  const P = arr(a.points, [N, 1, D]);
  const cost = (c: JArray): JArray => np.sum(np.min(np.sum(np.square(P.ref.sub(c.reshape([1, K, D]))), 2), 1));
  // forward over reverse: jvp of (value, gradient) along the all-ones tangent gives (value, G) and (·, H·1)
  const dirFn = jit((c: JArray): JArray[] => {
    const ones = np.onesLike(c.ref);
    const [[v, gr], [dv, h]] = jvp(valueAndGrad(cost), [c], [ones]) as unknown as [[JArray, JArray], [JArray, JArray]];
    dv.dispose();
    return [v, gr.div(h)];
  });
  const C = arr(a.centroids, [K, D]);
  return instance(
    (c) => {
      const [v, d] = dirFn(c);
      return [v, [d]];
    },
    jit(cost),
    [C],
    K * D,
    ['G and H·1 from one jit(jvp(valueAndGrad(cost))) (forward over reverse)'],
  );
}

export const peer: PeerImpl = {
  async init() {
    const devices = await init('wasm');
    if (!devices.includes('wasm')) throw new Error(`jax-js: no wasm device (${devices.join(', ')})`);
    defaultDevice('wasm');
    const req = createRequire(import.meta.url);
    let version = '?';
    try {
      const main = req.resolve('@jax-js/jax');
      const pj = JSON.parse(readFileSync(main.replace(/dist[\\/].*$/, 'package.json'), 'utf8')) as { version: string };
      version = pj.version;
    } catch {
      /* version unknown */
    }
    return { library: `@jax-js/jax ${version}`, backend: defaultDevice(), dtype: 'float64' };
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
