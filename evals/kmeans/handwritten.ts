// Hand-written kmeans derivatives (benchmark baseline): gradient and Hessian diagonal of
// kmeansCost with respect to the centroids, in one pass, and the Newton direction G ⊘ H.
//   G_j = 2 sum_{i: a(i)=j} (C_j - P_i),   H_{j,u} = 2 N_j   (a(i) = nearest centroid, lowest index on ties)
// Buffers are flat row-major [k*d] and allocated once (makeKmeansWorkspace).

export interface KmeansWorkspace {
  k: number;
  d: number;
  grad: Float64Array; // [k*d]
  hess: Float64Array; // [k*d] Hessian diagonal
  dir: Float64Array; // [k*d]
}

export function makeKmeansWorkspace(k: number, d: number): KmeansWorkspace {
  return { k, d, grad: new Float64Array(k * d), hess: new Float64Array(k * d), dir: new Float64Array(k * d) };
}

/** Writes the gradient and the Hessian diagonal of kmeansCost into ws.grad / ws.hess; returns the cost. */
export function kmeansGradHessDiag(centroids: number[][], points: number[][], ws: KmeansWorkspace): number {
  const k = centroids.length;
  const n = points.length;
  const d = ws.d;
  if (ws.k !== k) throw new Error('kmeans: workspace size mismatch');
  const grad = ws.grad;
  const hess = ws.hess;
  grad.fill(0);
  hess.fill(0);
  let cost = 0;
  for (let i = 0; i < n; i++) {
    const p = points[i];
    let best = 0;
    let bestJ = 0;
    for (let j = 0; j < k; j++) {
      const c = centroids[j];
      let s = 0;
      for (let u = 0; u < d; u++) {
        const t = p[u] - c[u];
        s += t * t;
      }
      if (j === 0 || s < best) {
        best = s;
        bestJ = j;
      }
    }
    cost += best;
    const c = centroids[bestJ];
    const o = bestJ * d;
    for (let u = 0; u < d; u++) {
      grad[o + u] += 2 * (c[u] - p[u]);
      hess[o + u] += 2;
    }
  }
  return cost;
}

/** Newton direction dir = G ⊘ H (into ws.dir); returns the cost. */
export function kmeansDir(centroids: number[][], points: number[][], ws: KmeansWorkspace): number {
  const cost = kmeansGradHessDiag(centroids, points, ws);
  const { grad, hess, dir } = ws;
  for (let t = 0; t < dir.length; t++) dir[t] = grad[t] / hess[t];
  return cost;
}
