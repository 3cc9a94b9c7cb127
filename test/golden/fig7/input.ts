// Fig. 7 (CONTROL-1) of RR-7957: a DO loop with a non-trivial start and an IF without ELSE.
//   DO i=3*n*m,1000 ; a = a - 2*B(i) ; IF (a.gt.0) c = c*a ; ENDDO
// a and c (in-out scalars in Fortran) are parameters; B is an array indexed like the Fortran one (it
// must have at least 1001 elements). Independents: a, c, B. Dependent: c, returned.
export function control(a: number, c: number, B: number[], n: number, m: number): number {
  for (let i = 3 * n * m; i <= 1000; i++) {
    a = a - 2 * B[i];
    if (a > 0) {
      c = c * a;
    }
  }
  return c;
}
