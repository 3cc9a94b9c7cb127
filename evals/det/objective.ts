// det: determinant by recursive cofactor (Laplace) expansion along the first remaining row.
//   primal   = det(A, ell)           (A flat row-major: A[i*ell + j])
//   gradient = d det / d A, flat row-major (reverse mode; ell, row and mask are passive ints)
//
// The recursion walks sub-matrices without copying: bit j of `removed` is set when
// column j has been deleted, and `row` is the first remaining row (rows are removed
// in order), so the minor at depth `row` has size ell - row. Cost O(ell!).
// Bit masks limit ell to 31, far above the eval's ell <= 11.

export function detMinor(A: number[], ell: number, row: number, removed: number): number {
  if (row === ell - 1) {
    // 1x1 minor: the single remaining column
    for (let j = 0; j < ell; j++) {
      if (((removed >> j) & 1) === 0) return A[row * ell + j];
    }
    return 0;
  }
  let sum = 0;
  let sign = 1;
  for (let j = 0; j < ell; j++) {
    if (((removed >> j) & 1) === 0) {
      sum += sign * A[row * ell + j] * detMinor(A, ell, row + 1, removed | (1 << j));
      sign = -sign;
    }
  }
  return sum;
}

export function det(A: number[], ell: number): number {
  return detMinor(A, ell, 0, 0);
}
