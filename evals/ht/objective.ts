// ht: hand-tracking residuals of a rigged, linear-blend-skinned hand mesh.
//   objective (simple variant)      = htObjectiveSimple(theta, model, correspondences, points)
//   objective (complicated variant) = htObjectiveComplicated(theta, us, model, correspondences, points)
//   jacobian = dense Jacobian of the 3P residuals:
//     simple:      d/d theta (26 columns) — forward / vector mode over the 26 pose parameters;
//     complicated: columns 2..27 = d/d theta, columns 0..1 = d e_i / d us[i][0], d e_i / d us[i][1]
//                  (each residual triple depends only on its own us[i], so the 2P us-columns
//                  compress to 2: vector-forward with 28 directions where direction 0 / 1 seeds
//                  every us[i][0] / us[i][1] at once).
//   model, correspondences, points are passive.
//
// 4x4 transforms are stored flat row-major, 16 numbers per bone: M[b*16 + r*4 + c].

/** The hand model (from the eval's `data.model`; bone names are not needed). */
export interface HandModel {
  /** parent bone, -1 for the root; parents precede children */
  parents: number[];
  /** [B][4][4] row-major */
  baseRelatives: number[][][];
  /** [B][4][4] row-major */
  inverseBaseAbsolutes: number[][][];
  /** [V][4]: x, y, z, 1 */
  basePositions: number[][];
  /** [V][B] skinning weights */
  weights: number[][];
  /** [T][3] vertex indices */
  triangles: number[][];
  isMirrored: boolean;
}

/**
 * Per-bone Euler angle triples a[b*3 + 0..2] from the 26 pose parameters:
 * finger f (0..4) drives bones 2+4f (two angles), 3+4f and 4+4f (one angle each)
 * from theta[6+4f .. 9+4f]; everything else stays 0.
 */
export function boneAngles(theta: number[], boneCount: number): Float64Array {
  const angles = new Float64Array(boneCount * 3);
  for (let f = 0; f < 5; f++) {
    const b = 2 + 4 * f;
    const t = 6 + 4 * f;
    angles[b * 3] = theta[t];
    angles[b * 3 + 1] = theta[t + 1];
    angles[(b + 1) * 3] = theta[t + 2];
    angles[(b + 2) * 3] = theta[t + 3];
  }
  return angles;
}

/** rot (3x3 row-major) = Rz(a1) Ry(a2) Rx(a0) */
export function eulerRotation(a0: number, a1: number, a2: number, rot: Float64Array): void {
  const cx = Math.cos(a0);
  const sx = Math.sin(a0);
  const cz = Math.cos(a1);
  const sz = Math.sin(a1);
  const cy = Math.cos(a2);
  const sy = Math.sin(a2);
  // Rz * Ry
  const m00 = cz * cy;
  const m01 = -sz;
  const m02 = cz * sy;
  const m10 = sz * cy;
  const m11 = cz;
  const m12 = sz * sy;
  const m20 = -sy;
  const m21 = 0;
  const m22 = cy;
  // (Rz Ry) * Rx, Rx = [[1,0,0],[0,cx,-sx],[0,sx,cx]]
  rot[0] = m00;
  rot[1] = m01 * cx + m02 * sx;
  rot[2] = -m01 * sx + m02 * cx;
  rot[3] = m10;
  rot[4] = m11 * cx + m12 * sx;
  rot[5] = -m11 * sx + m12 * cx;
  rot[6] = m20;
  rot[7] = m21 * cx + m22 * sx;
  rot[8] = -m21 * sx + m22 * cx;
}

/** rot (3x3 row-major) = rotation by the axis-angle vector (g0, g1, g2); identity when |g| < 1e-4. */
export function angleAxisRotation(g0: number, g1: number, g2: number, rot: Float64Array): void {
  const norm = Math.sqrt(g0 * g0 + g1 * g1 + g2 * g2);
  if (norm < 0.0001) {
    rot[0] = 1;
    rot[1] = 0;
    rot[2] = 0;
    rot[3] = 0;
    rot[4] = 1;
    rot[5] = 0;
    rot[6] = 0;
    rot[7] = 0;
    rot[8] = 1;
    return;
  }
  const x = g0 / norm;
  const y = g1 / norm;
  const z = g2 / norm;
  const s = Math.sin(norm);
  const c = Math.cos(norm);
  rot[0] = x * x + (1 - x * x) * c;
  rot[1] = x * y * (1 - c) - z * s;
  rot[2] = x * z * (1 - c) + y * s;
  rot[3] = x * y * (1 - c) + z * s;
  rot[4] = y * y + (1 - y * y) * c;
  rot[5] = y * z * (1 - c) - x * s;
  rot[6] = x * z * (1 - c) - y * s;
  rot[7] = y * z * (1 - c) + x * s;
  rot[8] = z * z + (1 - z * z) * c;
}

/** Skinning transforms S_b = A_b I_b for every bone, flat [B*16]. */
export function skinningTransforms(theta: number[], model: HandModel): Float64Array {
  const boneCount = model.parents.length;
  const angles = boneAngles(theta, boneCount);
  const rot = new Float64Array(9);
  const absolutes = new Float64Array(boneCount * 16);
  const relative = new Float64Array(16);
  const transforms = new Float64Array(boneCount * 16);
  for (let b = 0; b < boneCount; b++) {
    // relative pose L_b = B_b * [R_b 0; 0 1]
    eulerRotation(angles[b * 3], angles[b * 3 + 1], angles[b * 3 + 2], rot);
    const base = model.baseRelatives[b];
    for (let r = 0; r < 4; r++) {
      const row = base[r];
      for (let c = 0; c < 3; c++) {
        relative[r * 4 + c] = row[0] * rot[c] + row[1] * rot[3 + c] + row[2] * rot[6 + c];
      }
      relative[r * 4 + 3] = row[3];
    }
    // absolute pose A_b = A_parent * L_b (root: L_b)
    const parent = model.parents[b];
    if (parent === -1) {
      for (let t = 0; t < 16; t++) absolutes[b * 16 + t] = relative[t];
    } else {
      for (let r = 0; r < 4; r++) {
        for (let c = 0; c < 4; c++) {
          let s = 0;
          for (let t = 0; t < 4; t++) {
            s += absolutes[parent * 16 + r * 4 + t] * relative[t * 4 + c];
          }
          absolutes[b * 16 + r * 4 + c] = s;
        }
      }
    }
    // skinning transform S_b = A_b * I_b
    const inv = model.inverseBaseAbsolutes[b];
    for (let r = 0; r < 4; r++) {
      for (let c = 0; c < 4; c++) {
        let s = 0;
        for (let t = 0; t < 4; t++) {
          s += absolutes[b * 16 + r * 4 + t] * inv[t][c];
        }
        transforms[b * 16 + r * 4 + c] = s;
      }
    }
  }
  return transforms;
}

/** Posed, globally transformed positions of all V vertices, flat [V*3]. */
export function posedVertices(theta: number[], model: HandModel): Float64Array {
  const transforms = skinningTransforms(theta, model);
  const boneCount = model.parents.length;
  const nVerts = model.basePositions.length;
  const rot = new Float64Array(9);
  angleAxisRotation(theta[0], theta[1], theta[2], rot);
  const out = new Float64Array(nVerts * 3);
  for (let v = 0; v < nVerts; v++) {
    const h = model.basePositions[v];
    const wv = model.weights[v];
    let px = 0;
    let py = 0;
    let pz = 0;
    for (let b = 0; b < boneCount; b++) {
      const o = b * 16;
      const w = wv[b];
      px += w * (transforms[o] * h[0] + transforms[o + 1] * h[1] + transforms[o + 2] * h[2] + transforms[o + 3] * h[3]);
      py += w * (transforms[o + 4] * h[0] + transforms[o + 5] * h[1] + transforms[o + 6] * h[2] + transforms[o + 7] * h[3]);
      pz += w * (transforms[o + 8] * h[0] + transforms[o + 9] * h[1] + transforms[o + 10] * h[2] + transforms[o + 11] * h[3]);
    }
    if (model.isMirrored) px = -px;
    out[v * 3] = rot[0] * px + rot[1] * py + rot[2] * pz + theta[3];
    out[v * 3 + 1] = rot[3] * px + rot[4] * py + rot[5] * pz + theta[4];
    out[v * 3 + 2] = rot[6] * px + rot[7] * py + rot[8] * pz + theta[5];
  }
  return out;
}

/** Simple variant: e_i = points[i] - p_{corr[i]}; flat [3P], point-major. */
export function htObjectiveSimple(
  theta: number[],
  model: HandModel,
  correspondences: number[],
  points: number[][],
): Float64Array {
  const err = new Float64Array(correspondences.length * 3);
  htObjectiveSimpleInto(theta, model, correspondences, points, err);
  return err;
}

/** htObjectiveSimple written into `err` (flat [3P]; the Jacobian's adapter reuses its buffers). */
export function htObjectiveSimpleInto(
  theta: number[],
  model: HandModel,
  correspondences: number[],
  points: number[][],
  err: Float64Array,
): void {
  const verts = posedVertices(theta, model);
  const np = correspondences.length;
  for (let i = 0; i < np; i++) {
    const v = correspondences[i];
    for (let j = 0; j < 3; j++) {
      err[i * 3 + j] = points[i][j] - verts[v * 3 + j];
    }
  }
}

/**
 * Complicated variant: corr[i] is a triangle (a, b, c) and
 * e_i = points[i] - (u0 p_a + u1 p_b + (1 - u0 - u1) p_c) with (u0, u1) = us[i]; flat [3P].
 */
export function htObjectiveComplicated(
  theta: number[],
  us: number[][],
  model: HandModel,
  correspondences: number[],
  points: number[][],
): Float64Array {
  const err = new Float64Array(correspondences.length * 3);
  htObjectiveComplicatedInto(theta, us, model, correspondences, points, err);
  return err;
}

/** htObjectiveComplicated written into `err` (flat [3P]; the Jacobian's adapter reuses its buffers). */
export function htObjectiveComplicatedInto(
  theta: number[],
  us: number[][],
  model: HandModel,
  correspondences: number[],
  points: number[][],
  err: Float64Array,
): void {
  const verts = posedVertices(theta, model);
  const np = correspondences.length;
  for (let i = 0; i < np; i++) {
    const tri = model.triangles[correspondences[i]];
    const u0 = us[i][0];
    const u1 = us[i][1];
    const u2 = 1 - u0 - u1;
    for (let j = 0; j < 3; j++) {
      const handPoint = u0 * verts[tri[0] * 3 + j] + u1 * verts[tri[1] * 3 + j] + u2 * verts[tri[2] * 3 + j];
      err[i * 3 + j] = points[i][j] - handPoint;
    }
  }
}
