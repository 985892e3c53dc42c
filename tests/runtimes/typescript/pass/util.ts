// Type-level assertion helpers.
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export function expectType<T extends true>(): T | void {}
