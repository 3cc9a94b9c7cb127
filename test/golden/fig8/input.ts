// Fig. 8 (ACTIVITY-1) of RR-7957. Independents a, b, c; dependents d and e, which are returned as the
// fields d and e of the result object.
export interface Outputs {
  d: number;
  e: number;
}

export function activity(a: number, b: number, c: number): Outputs {
  const x = a * b;
  a = 5.0;
  const d = a * c;
  let e = a / x;
  e = Math.floor(e);
  return { d, e };
}
