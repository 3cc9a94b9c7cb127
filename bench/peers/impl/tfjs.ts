// Peers "tfjs-cpu" and "tfjs-wasm": TensorFlow.js (tfjs-core + tfjs-backend-cpu / tfjs-backend-wasm),
// float32 (its only float type), gradients with tf.valueAndGrad / tf.grad. The objectives are written
// in vectorised form from primitives (max, exp, sum, log, matMul, gather, min); no built-in
// logSumExp. Inputs live in tensors created once; a timed call runs the function and reads the value
// and the derivative back into JS typed arrays (dataSync), with every intermediate disposed (tidy).
//
// tfjs-core's gradients are registered only by its ES-module build (dist/register_all_gradients.js,
// extensionless imports that Node cannot load), so the orchestrator bundles tfjs-core + gradients +
// both backends with esbuild into bench/generated/peers/tfjs.cjs, which this module requires.
import { createRequire } from 'node:module';
import type * as TF from '@tensorflow/tfjs-core';
import type { GmmArgs } from '../../../evals/gmm/io.js';
import { logMultiGamma } from '../../../evals/gmm/objective.js';
import type { KmeansArgs } from '../../../evals/kmeans/io.js';
import type { LlsqArgs } from '../../../evals/llsq/io.js';
import type { LseArgs } from '../../../evals/lse/io.js';
import type { Problem } from '../problems.js';
import type { PeerImpl, PeerInstance } from '../protocol.js';

type Tf = typeof TF & { setWasmPaths(prefix: string): void };
type Tensor = TF.Tensor;

let tf!: Tf;

function f32(rows: number[][]): Float32Array {
  const out = new Float32Array(rows.length * (rows[0]?.length ?? 0));
  let o = 0;
  for (const r of rows) for (const v of r) out[o++] = v;
  return out;
}

/**
 * valueAndGrad over several tensors: value, then the gradients concatenated (flat, problems.ts layout).
 * `around` (optional) sets up per-call constants before the function runs and returns their cleanup.
 */
function instanceFromVG(
  f: (...xs: Tensor[]) => TF.Scalar,
  xs: Tensor[],
  notes: string[] = [],
  around?: () => () => void,
): PeerInstance {
  const vg = tf.valueAndGrads(f as (...a: Tensor[]) => Tensor);
  const n = xs.reduce((s, x) => s + x.size, 0);
  const out = new Float64Array(n);
  let value = NaN;
  const grad = (): number => {
    const done = around?.();
    try {
      const r = tf.tidy(() => vg(xs));
      value = r.value.dataSync()[0];
      let o = 0;
      for (const g of r.grads) {
        const d = g.dataSync();
        out.set(d, o);
        o += d.length;
      }
      r.value.dispose();
      tf.dispose(r.grads);
    } finally {
      done?.();
    }
    return value + out[0];
  };
  const primal = (): number => {
    const done = around?.();
    try {
      const v = tf.tidy(() => f(...xs));
      const r = v.dataSync()[0];
      v.dispose();
      return r;
    } finally {
      done?.();
    }
  };
  return {
    grad,
    primal,
    check: () => {
      grad();
      return { value, grad: out };
    },
    notes,
    dispose: () => tf.dispose(xs),
  };
}

// lse(x) = a + log(sum(exp(x - a))), a = max(x). The shift is computed outside the differentiated
// function (a constant: allowed by the eval, its contributions cancel). Differentiated, its adjoint
// 1 - sum(softmax) is float32 rounding noise of order n·eps that lands on the argmax component: on the
// wasm backend that gave relative errors of 4e-3 at n=2500 up to 2e2 at n=1.28M.
function lse(a: LseArgs): PeerInstance {
  const x = tf.tensor1d(Float32Array.from(a.x));
  let shift: Tensor = x; // set in each call
  const f = (x: Tensor): TF.Scalar => tf.add(shift, tf.log(tf.sum(tf.exp(tf.sub(x, shift))))) as TF.Scalar;
  return instanceFromVG(f, [x], ['max shift outside tf.valueAndGrad (a constant)'], () => {
    shift = tf.max(x);
    return () => shift.dispose();
  });
}

// llsq(x) = 1/2 sum_i (s_i - sum_j x_j t_i^j)^2 ; t, s constants of n; powers by cumprod (repeated products)
function llsqPeer(a: LlsqArgs): PeerInstance {
  const n = a.n, m = a.x.length;
  const tv = Float32Array.from({ length: n }, (_, i) => -1 + (i * 2) / (n - 1));
  const t = tf.tensor2d(tv, [n, 1]);
  const s = tf.tensor1d(tv.map(Math.sign));
  const ones = tf.ones([n, 1]);
  const x = tf.tensor1d(Float32Array.from(a.x));
  const powers = (): Tensor => tf.cumprod(tf.concat([ones, tf.tile(t, [1, m - 1])], 1), 1); // [n, m], T[i][j] = t_i^j
  const objective = (T: Tensor, x: Tensor): TF.Scalar => {
    const r = tf.sub(s, tf.reshape(tf.matMul(T, tf.reshape(x, [m, 1])), [n]));
    return tf.mul(0.5, tf.sum(tf.square(r))) as TF.Scalar;
  };
  const inst = instanceFromVG((x) => objective(powers(), x), [x]);
  // the power matrix depends on n only: precomputed once, the extra "grad-const" row
  const T0 = powers();
  const hoisted = instanceFromVG((x) => objective(T0, x), [x]);
  return { ...inst, gradConst: hoisted.grad };
}

// gmm, batched over components: Q_k = diag(exp q_k) + L_k, z = Q_k (x_i - mu_k). L_k (strictly lower,
// packed column by column in l_k) is l_k times a constant 0/1 scatter matrix: a gather would need the
// UnsortedSegmentSum kernel for its gradient, which the wasm backend does not have.
function gmm(a: GmmArgs): PeerInstance {
  const K = a.alpha.length, N = a.x.length, D = a.x[0].length, nl = (D * (D - 1)) / 2;
  const scatter = new Float32Array(Math.max(nl, 1) * D * D); // [nl, D*D]: row t has a 1 at (r, c) of packed index t
  for (let c = 0, t = 0; c < D; c++) for (let r = c + 1; r < D; r++) scatter[t++ * D * D + r * D + c] = 1;
  const S = tf.tensor2d(scatter, [Math.max(nl, 1), D * D]);
  const eye = tf.eye(D);
  const x = tf.tensor3d(f32(a.x), [1, N, D]);
  const nu = D + a.m + 1;
  const constant = -0.5 * N * D * Math.log(2 * Math.PI) + K * (nu * D * (Math.log(a.gamma) - 0.5 * Math.log(2)) - logMultiGamma(0.5 * nu, D));
  const g2 = a.gamma * a.gamma;
  const f = (alpha: Tensor, mu: Tensor, q: Tensor, l: Tensor): TF.Scalar => {
    const expq = tf.exp(q); // [K, D]
    const diag = tf.mul(tf.reshape(expq, [K, D, 1]), eye); // [K, D, D]
    const Q = nl > 0 ? tf.add(tf.reshape(tf.matMul(l, S), [K, D, D]), diag) : diag;
    const diff = tf.sub(x, tf.reshape(mu, [K, 1, D])); // [K, N, D]
    const z = tf.matMul(diff, Q, false, true); // [K, N, D]
    const sq = tf.sum(tf.square(z), 2); // [K, N]
    const sumq = tf.sum(q, 1); // [K]
    const beta = tf.sub(tf.reshape(tf.add(alpha, sumq), [K, 1]), tf.mul(0.5, sq)); // [K, N]
    const bmax = tf.max(beta, 0, true); // [1, N]
    const slse = tf.sum(tf.add(tf.reshape(bmax, [N]), tf.log(tf.sum(tf.exp(tf.sub(beta, bmax)), 0))));
    const amax = tf.max(alpha);
    const lseAlpha = tf.add(amax, tf.log(tf.sum(tf.exp(tf.sub(alpha, amax)))));
    const frob = nl > 0 ? tf.add(tf.sum(tf.square(expq)), tf.sum(tf.square(l))) : tf.sum(tf.square(expq));
    const prior = tf.add(tf.mul(-0.5 * g2, frob), tf.mul(a.m, tf.sum(sumq)));
    return tf.add(tf.add(tf.sub(slse, tf.mul(N, lseAlpha)), prior), constant) as TF.Scalar;
  };
  const params = [
    tf.tensor1d(Float32Array.from(a.alpha)),
    tf.tensor2d(f32(a.mu), [K, D]),
    tf.tensor2d(f32(a.q), [K, D]),
    tf.tensor2d(nl > 0 ? f32(a.l) : new Float32Array(0), [K, nl]),
  ];
  return instanceFromVG(f, params);
}

// kmeans: cost = sum_i min_j |P_i - C_j|^2. tfjs cannot differentiate min twice (the gradient of Min
// goes through Equal, which has no gradient), so the nearest centroid is picked outside the
// differentiated function (a one-hot mask from argMin: a hand-made stop-gradient) and
// cost_M(c) = sum_ij M_ij |P_i - c_j|^2 is differentiated: G = grad cost_M, H·1 = grad <grad cost_M, 1>
// (reverse over reverse: tfjs has no forward mode); dir = G / H·1 = G ⊘ diag(H) (H is diagonal).
function kmeans(a: KmeansArgs): PeerInstance {
  const K = a.centroids.length, N = a.points.length, D = a.points[0].length;
  const P = tf.tensor3d(f32(a.points), [N, 1, D]);
  const C = tf.tensor2d(f32(a.centroids), [K, D]);
  const dist = (c: Tensor): Tensor => tf.sum(tf.square(tf.sub(P, tf.reshape(c, [1, K, D]))), 2); // [N, K]
  let mask: Tensor = C; // set in each call
  const costM = (c: Tensor): TF.Scalar => tf.sum(tf.mul(mask, dist(c))) as TF.Scalar;
  const gradCost = tf.grad(costM);
  const hessOnes = tf.grad((c: Tensor) => tf.sum(gradCost(c)) as TF.Scalar);
  const out = new Float64Array(K * D);
  let value = NaN;
  const grad = (): number => {
    const [v, d] = tf.tidy(() => {
      const d0 = dist(C);
      const v = tf.sum(tf.min(d0, 1));
      // int32 one-hot, then cast: tfjs-backend-wasm 4.22's OneHot with dtype float32 writes integer bit patterns
      mask = tf.cast(tf.oneHot(tf.argMin(d0, 1), K), 'float32');
      return [v, tf.div(gradCost(C), hessOnes(C))];
    });
    value = v.dataSync()[0];
    out.set(d.dataSync());
    v.dispose();
    d.dispose();
    return value + out[0];
  };
  const primal = (): number => {
    const v = tf.tidy(() => tf.sum(tf.min(dist(C), 1)));
    const r = v.dataSync()[0];
    v.dispose();
    return r;
  };
  return {
    grad,
    primal,
    check: () => {
      grad();
      return { value, grad: out };
    },
    notes: ['argmin mask outside the differentiated function; G and H·1 by tf.grad and tf.grad of its sum'],
    dispose: () => tf.dispose([P, C]),
  };
}

export function makePeer(backend: 'cpu' | 'wasm', bundle: string, wasmDir: string): PeerImpl {
  return {
    async init() {
      tf = createRequire(import.meta.url)(bundle) as Tf;
      if (backend === 'wasm') tf.setWasmPaths(wasmDir.endsWith('/') ? wasmDir : wasmDir + '/');
      const ok = await tf.setBackend(backend);
      await tf.ready();
      if (!ok || tf.getBackend() !== backend) throw new Error(`tfjs backend ${backend} did not start`);
      const info: Record<string, string> = { library: `@tensorflow/tfjs-core ${tf.version_core}`, backend: tf.getBackend(), dtype: 'float32' };
      if (backend === 'wasm') {
        info['wasm'] = `simd ${String(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT'))}, threads ${String(await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT'))}`;
      }
      return info;
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
}
