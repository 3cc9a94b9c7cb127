// Hand-reduced twin of modes-primal-a7e6366d: a row pushed into a container, then written through it (the write's tangent and adjoint were dropped: the container was not an alias of M)
export function f(M: number[][], c: number): number {
  const P: number[][] = [];
  P.push(M[1]);
  P[0][1] = c * 2;
  return M[1][1] * c;
}
