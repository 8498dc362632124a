import * as z from 'zod/mini';

/**
 * How a response schema treats drift from the spec.
 *
 * - `tolerant` (the SDK's default): unknown fields and enum values pass through and a missing
 *   optional field is not an error, so a server that grows never breaks a deployed client.
 * - `strict` (contract tests): any drift from the spec, in either direction, fails.
 */
export interface SchemaMode {
  strict: boolean;
}

type AnySchema = z.ZodMiniType;

/** An object: strict mode rejects unknown keys, tolerant mode keeps them. */
export function obj<S extends z.core.$ZodLooseShape>(m: SchemaMode, shape: S) {
  // Typed as the strict variant: the types users see are the spec's, exactly.
  return (m.strict ? z.strictObject(shape) : z.looseObject(shape)) as ReturnType<typeof z.strictObject<S>>;
}

/** A field the spec lists and the service always sends. Tolerant mode accepts it missing or null. */
export function present<T extends AnySchema>(m: SchemaMode, s: T): T {
  return (m.strict ? s : z.optional(z.nullable(s))) as unknown as T;
}

/** A field the service always sends, possibly `null` (e.g. `captured_at` before capture). */
export function nullable<T extends AnySchema>(m: SchemaMode, s: T) {
  return (m.strict ? z.nullable(s) : z.optional(z.nullable(s))) as unknown as z.ZodMiniNullable<T>;
}

/** A field the service may leave out. */
export function optional<T extends AnySchema>(m: SchemaMode, s: T) {
  return (m.strict ? z.optional(s) : z.optional(z.nullable(s))) as unknown as z.ZodMiniOptional<T>;
}

/** A closed enum in strict mode; any string in tolerant mode, so a new value does not break old clients. */
export function openEnum<const T extends readonly [string, ...string[]]>(m: SchemaMode, values: T) {
  return (m.strict ? z.enum(values) : z.string()) as unknown as z.ZodMiniEnum<{ [K in T[number]]: K }>;
}

export function uuid(m: SchemaMode) {
  return (m.strict ? z.uuidv4() : z.string()) as z.ZodMiniString<string>;
}

/** RFC 3339 date-time in UTC (`Z`), as section 1 of the spec requires. */
export function timestamp(m: SchemaMode) {
  return (m.strict ? z.iso.datetime() : z.string()) as z.ZodMiniString<string>;
}

export function minorUnits() {
  return z.int();
}

/** Memoises one build per mode: schemas are built on first use, not at import (cold start matters). */
export function perMode<T>(build: (m: SchemaMode) => T): (strict?: boolean) => T {
  let tolerant: T | undefined;
  let strict: T | undefined;
  return (isStrict = false) => {
    if (isStrict) {
      strict ??= build({ strict: true });
      return strict;
    }
    tolerant ??= build({ strict: false });
    return tolerant;
  };
}
