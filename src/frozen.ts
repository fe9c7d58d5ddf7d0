// Deep freezing, for values that outlive a request (ARCHITECTURE.md, Process state): a value a
// process cache hands to many requests is frozen before it is kept, so that a caller who writes
// to it throws at once (in the test that does it) instead of changing every later answer of the
// process, which is what a shared "no reasons" array once did to every company's availability.
//
// Object.freeze alone does not stop a Date's setters or a Map's or Set's own methods: those are
// made to throw as well. Plain objects, arrays, Maps and Sets are walked; other class instances
// (a Luxon DateTime, a Buffer) are left as they are: they are immutable by their own API, or
// (a Buffer, a typed array) cannot be frozen at all.

function refuse(): never {
  throw new TypeError('Cannot change a frozen value: it is shared by every request of this process');
}

/** A Date's prototype whose setters throw (a frozen Date's prototype is set to it). */
const FrozenDatePrototype = Object.freeze(
  Object.create(
    Date.prototype,
    Object.fromEntries(
      Object.getOwnPropertyNames(Date.prototype)
        .filter((name) => name.startsWith('set'))
        .map((name): [string, PropertyDescriptor] => [name, { value: refuse, writable: false, configurable: false }]),
    ),
  ) as object,
);

const MAP_WRITERS = ['set', 'delete', 'clear'] as const;
const SET_WRITERS = ['add', 'delete', 'clear'] as const;

function lock(target: object, methods: readonly string[]): void {
  for (const m of methods) Object.defineProperty(target, m, { value: refuse, writable: false, configurable: false });
}

/** Whether `value` is something deepFreeze walks into (and freezes). */
function walked(value: object): boolean {
  if (Array.isArray(value) || value instanceof Map || value instanceof Set || value instanceof Date) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Freezes `value` and everything it holds (plain objects, arrays, Maps, Sets, Dates), in place,
 * and answers it. Already frozen parts are not walked again, so freezing a value made of frozen
 * parts costs only its own top.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value) || !walked(value)) return value;
  if (value instanceof Date) {
    Object.setPrototypeOf(value, FrozenDatePrototype);
    return Object.freeze(value);
  }
  if (value instanceof Map) {
    for (const [k, v] of value) {
      deepFreeze(k);
      deepFreeze(v);
    }
    lock(value, MAP_WRITERS);
  } else if (value instanceof Set) {
    for (const v of value) deepFreeze(v);
    lock(value, SET_WRITERS);
  } else if (Array.isArray(value)) {
    for (const v of value) deepFreeze(v);
  } else {
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return Object.freeze(value);
}

/** Whether `value` and everything deepFreeze would walk in it are frozen (for tests). */
export function isDeepFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || !walked(value)) return true;
  if (!Object.isFrozen(value)) return false;
  if (value instanceof Date) return Object.getPrototypeOf(value) === FrozenDatePrototype;
  if (value instanceof Map) return [...value].every(([k, v]) => isDeepFrozen(k) && isDeepFrozen(v));
  if (value instanceof Set) return [...value].every(isDeepFrozen);
  return Object.values(value).every(isDeepFrozen);
}
