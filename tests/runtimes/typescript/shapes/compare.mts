// Type-level comparisons for shapes.test.mjs. Each check is `true` when the declared side equals
// the observed one; otherwise it is an object naming the path and the difference, so that the
// generated `const cN: Check = true;` fails with a tsc message that says what differs.

/** Exact type identity (not mutual assignability): `{ readonly a: 1 }` differs from `{ a: 1 }`. */
export type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;

/** The object part of a type, arrays left out. */
export type Obj<T> = Exclude<Extract<T, object>, readonly unknown[]>;
/** The element type of the array part of a type (never when it has none). */
export type Elem<T> = Extract<T, readonly unknown[]>[number];
/** A key's value type, without the `undefined` that being optional adds. */
export type Prop<T, K extends PropertyKey> = K extends keyof T ? Required<T>[K] : never;
/** The keys a value of T may omit. */
export type OptionalKeys<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? K : never }[keyof T];

/** The keys of T declared readonly. */
export type ReadonlyKeys<T> = { [K in keyof T]-?: Equals<{ [Q in K]: T[K] }, { -readonly [Q in K]: T[K] }> extends true ? never : K }[keyof T];

/** Declared and observed types are identical. */
export type Same<Path extends string, Declared, Observed> =
  Equals<Declared, Observed> extends true ? true : { path: Path; declared: Declared; observed: Observed };

/** Declared and observed key sets are equal: the keys only one side has are named. */
export type SameKeys<Path extends string, Declared extends PropertyKey, Observed extends PropertyKey> =
  [Exclude<Declared, Observed>, Exclude<Observed, Declared>] extends [never, never]
    ? true
    : { path: Path; declaredButNeverSeen: Exclude<Declared, Observed>; seenButNotDeclared: Exclude<Observed, Declared> };

/** The keys declared optional are exactly those that some observed object lacked. */
export type SameOptional<Path extends string, Declared extends PropertyKey, Observed extends PropertyKey> =
  [Exclude<Declared, Observed>, Exclude<Observed, Declared>] extends [never, never]
    ? true
    : { path: Path; optionalButAlwaysPresent: Exclude<Declared, Observed>; requiredButSometimesAbsent: Exclude<Observed, Declared> };

/** The keys declared readonly are exactly those of frozen objects. */
export type SameReadonly<Path extends string, Declared extends PropertyKey, Observed extends PropertyKey> =
  [Exclude<Declared, Observed>, Exclude<Observed, Declared>] extends [never, never]
    ? true
    : { path: Path; readonlyButNotFrozen: Exclude<Declared, Observed>; frozenButNotReadonly: Exclude<Observed, Declared> };

/** A check below a key, made only when the key is declared (a missing key is SameKeys' to report). */
export type IfDeclared<T, K extends PropertyKey, Check> = K extends keyof T ? Check : true;
