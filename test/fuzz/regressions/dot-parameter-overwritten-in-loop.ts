// Shrunk by hand from fuzz program #666 (seed 261130): dot — the adjoint is wrong.
// The parameter x is overwritten in the loop before any read, so its adjoint is 0. Loop refinement took
// xb for a scalar local to one iteration (its reset dropped, its first increment made an assignment):
// the return reading it after the loop was added only after that pass, so the last iteration's
// increment came back as x's adjoint.
export function f(x: number, a: number[], m: number[][], b: number[]): number {
  for (let i0 = 0; i0 < 4; i0 += 2) {
    x = Math.sin(b[0]);
    m[(i0 + 1) % 3] = [x * (1 + m[0][1]), m[i0 % 3][1]];
    m[i0 % 3] = [a[0], m[1][1]];
  }
  let cl9 = 0;
  for (let k10 = 0; k10 < 2; k10++) {
    for (let k11 = 1; k11 <= 2; k11++) {
      cl9 = cl9 + m[(k10 + 1) % 3][(k11 + 1) % 2];
    }
  }
  return cl9;
}
