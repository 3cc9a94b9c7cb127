// The runtime library imported by generated code: the tape (for adjoints) and small array helpers.
export { Tape } from './tape.js';
export { zerosLike, zeros, zeroFill, snapshot, restoreInto, addInto, zerosAgain, float64Again, zeroedFor } from './arrays.js';
export type { Tangent, Directions, HoldsFloat } from './arrays.js';
export { REVOLVE_ADVANCE, REVOLVE_TAKESHOT, REVOLVE_RESTORE, REVOLVE_ADJOINT, revolveSchedule, revolveAdvances, revolveCost, Snapshots, RevolveStepper, LoopCheckpoints } from './revolve.js';
