// Fig. 9 (VECTOR-1) of RR-7957: SUBROUTINE G(x, y) calling the EXTERNAL function F.
// x (in-out scalar in Fortran) is a parameter and is returned; y is written in place. The Fortran
// indices y(2), y(9), y(10) are kept as the TypeScript indices 2, 9, 10 (y needs 11 elements).
// F is external in the figure; here it is given a body so that it can be differentiated.
// Independents: x, y. Dependents: the returned x and the array y.
export function F(t: number): number {
  return t * Math.sin(t);
}

export function G(x: number, y: number[]): number {
  x = x + y[2];
  x = x * x;
  y[10] = x * F(y[9]);
  return x;
}
