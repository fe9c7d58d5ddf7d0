// The values the fuzzer writes into bodies, paths and query strings. Generated values are
// abstract where the right concrete one is only known when the request is sent: an id of a
// record the app has answered with (PoolId), a time relative to the clock (Time), JSON text that
// JSON.stringify cannot write (Raw: `-0`, `1e400`), an object with keys in order, duplicates
// and `__proto__` included (Obj), and text sent byte for byte (Verbatim: `%zz`). fast-check
// generates and shrinks the abstract form; the runner resolves it against what it has learnt.
import fc from 'fast-check';

/** An id of a record of `kind` the app has shown (of the request's mode, or of the other one). */
export class PoolId {
  constructor(
    readonly kind: string,
    readonly pick: number,
    readonly otherMode: boolean,
  ) {}
}

/** A valid RFC 3339 time `hours` from now (negative: past), written in one of several styles. */
export class Time {
  constructor(
    readonly hours: number,
    readonly minute: number,
    readonly style: number,
    /** >0: a start time the app has offered (a free slot), picked from what was learnt. */
    readonly known: number,
    /** `hours` count from the time before it in the same request (an end after its start). */
    readonly after = false,
  ) {}
}

/** A `nextCursor` the app gave for this list; the parameter is left out when none was given yet. */
export class Cursor {
  constructor(readonly pick: number) {}
}

/** JSON text written as it is. */
export class Raw {
  constructor(readonly text: string) {}
}

/** A JSON object whose keys are written in this order, as given (duplicates, `__proto__`). */
export class Obj {
  constructor(readonly entries: ReadonlyArray<readonly [string, Value]>) {}
}

/** Text for a path segment, query string or header, sent without any encoding. */
export class Verbatim {
  constructor(readonly text: string) {}
}

export type Value = null | boolean | number | string | Value[] | Obj | PoolId | Time | Raw;

export const HEX = '0123456789abcdef';

/** `len` hex characters: an id of every length, the right one (24) included. */
export const hexOfLength = (len: number, seed: number) =>
  Array.from({ length: len }, (_, i) => HEX[(seed * 31 + i * 7 + (seed >> 3)) & 15]).join('');

// --- hostile values ----------------------------------------------------------------------

const wrongTypes = fc.constantFrom<Value>(
  null,
  true,
  false,
  0,
  1,
  -1,
  '',
  'true',
  'null',
  [],
  new Obj([]),
  [null],
  ['a', 1],
);

const numbers = fc.oneof(
  fc.constantFrom<Value>(
    1e308,
    -1e308,
    5e-324,
    -5e-324,
    2 ** 53 + 2,
    -(2 ** 53) - 2,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 63,
    1.5,
    0.1,
    -0.0001,
    59.999999,
  ),
  fc
    .constantFrom(
      '-0',
      '1e400',
      '-1e400',
      '1E-400',
      '123456789012345678901234567890',
      '0.000000000000000000000000000001',
      '1.0',
      '10e3',
      '1e2',
      '-0.0',
    )
    .map((t) => new Raw(t)),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

const numericStrings = fc.constantFrom(
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e308',
  '1e400',
  '0x1F',
  ' 42',
  '42 ',
  '٤٢',
  '1_000',
  '0b1',
  '+1',
  '.5',
  '5.',
  '00042',
);

/** Up to ~100 kB of one character, or past the 1 MiB body limit now and then. */
const longStrings = fc
  .tuple(
    fc.constantFrom(65, 201, 256, 1_001, 5_000, 20_000, 100_000, 100_000, 1_100_000),
    fc.constantFrom('a', 'é', '😀', ' ', '\\', '"', '\u0001', 'a\u0000'),
  )
  .map(([n, c]) => c.repeat(Math.max(1, Math.floor(n / Math.max(1, Buffer.byteLength(c))))));

const controlChars = fc.string({
  unit: fc.integer({ min: 0, max: 0x1f }).map((c) => String.fromCharCode(c)),
  minLength: 1,
  maxLength: 8,
});

const oddities = fc.constantFrom(
  '\ud800',
  '\udfff',
  'a\ud800b',
  '\udc00\ud800',
  '\ufeff',
  '\u202e',
  'e\u0301',
  '\uffff',
  '\ufffe',
  '\u2028\u2029',
  '𝕏',
  '\u0000',
  '\u007f',
  '\u0085',
  'undefined',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '${7*7}',
  '{{7*7}}',
  '../../etc/passwd',
  '%00',
  '%s%s%n',
  '\\u0000',
  'svc_sk_test_',
  '*',
);

/**
 * Well-formed times at the edges (year 0000 and 9999, offsets that carry them past the range,
 * many fractional digits, leap seconds), and malformed ones: impossible dates, odd separators
 * and offsets.
 */
export const hostileTimes = fc.oneof(
  fc
    .tuple(
      fc.constantFrom(
        '0000-01-01',
        '0001-01-01',
        '1969-12-31',
        '1970-01-01',
        '2038-01-19',
        '9999-12-31',
        '2024-02-29',
        '2023-02-29',
        '2030-04-31',
        '2030-13-01',
        '2030-00-10',
      ),
      fc.constantFrom('00:00:00', '23:59:59', '23:59:60', '24:00:00', '01:00:00', '12:30:45'),
      fc.constantFrom('', '.0', '.999', '.123456', '.123456789', '.1234567890', '.9999999999999'),
      fc.constantFrom('Z', '+00:00', '-00:00', '+14:00', '-12:00', '+23:59', '-23:59', '+24:00', '+02:00'),
    )
    .map(([d, t, f, o]) => `${d}T${t}${f}${o}`),
  fc
    .tuple(
      fc.constantFrom(
        '0000',
        '0001',
        '1969',
        '1970',
        '2000',
        '2038',
        '2100',
        '9999',
        '10000',
        '+002030',
        '-000001',
        '99999',
        '20',
      ),
      fc.constantFrom('00', '01', '02', '12', '13', '1'),
      fc.constantFrom('00', '01', '29', '30', '31', '32'),
      fc.constantFrom('T', 't', ' ', '', '_'),
      fc.constantFrom('00:00:00', '23:59:59', '23:59:60', '24:00:00', '25:00:00', '10:00', '10', '00:00:00:00'),
      fc.constantFrom('', '.0', '.123', '.123456', '.123456789', '.1234567890', '.', ',5'),
      fc.constantFrom(
        'Z',
        'z',
        '+00:00',
        '-00:00',
        '+02:00',
        '+14:00',
        '-12:00',
        '+24:00',
        '+99:99',
        '+0200',
        '+02',
        '',
        ' Z',
        'UTC',
        '[Europe/Berlin]',
        'Z+01:00',
      ),
    )
    .map(([y, m, d, sep, time, frac, off]) => `${y}-${m}-${d}${sep}${time}${frac}${off}`),
  fc.constantFrom(
    '0',
    '-1',
    '1e13',
    'now',
    'today',
    '2030-01-01',
    '10:00',
    'Mon, 01 Jan 2030 10:00:00 GMT',
    '2030-W01-1T10:00:00Z',
    '2030-001T10:00:00Z',
  ),
);

/** Ids of every length, of the wrong alphabet or case. */
export const hostileIds = fc.oneof(
  fc.tuple(fc.nat({ max: 300 }), fc.nat()).map(([len, s]) => hexOfLength(len, s)),
  fc.constantFrom(
    '0'.repeat(24),
    'f'.repeat(24),
    'A'.repeat(24),
    'g'.repeat(24),
    '0'.repeat(23),
    '0'.repeat(25),
    ' '.repeat(24),
    '0x' + '0'.repeat(22),
  ),
  fc.nat().map((s) => hexOfLength(24, s).toUpperCase()),
);

const prototypeKeys = fc.constantFrom<Value>(
  new Obj([['__proto__', new Obj([['admin', true]])]]),
  new Obj([['constructor', new Obj([['prototype', new Obj([['admin', true]])]])]]),
  new Obj([
    ['a', 1],
    ['a', 2],
  ]),
  new Obj([['', 1]]),
);

const bigArrays = fc.constantFrom(1_000, 100_000).map((n) => new Array<Value>(n).fill(1));

/** A small JSON value of any shape (objects as Obj). */
const anyJson: fc.Arbitrary<Value> = fc.jsonValue({ maxDepth: 3 }).map(toValue);

export function toValue(v: unknown): Value {
  if (Array.isArray(v)) return v.map(toValue);
  if (v && typeof v === 'object') return new Obj(Object.entries(v).map(([k, x]) => [k, toValue(x)] as const));
  return v as Value;
}

/** A value of the wrong type, size, range or encoding, for any position. */
export const hostileValue: fc.Arbitrary<Value> = fc.oneof(
  { weight: 3, arbitrary: wrongTypes },
  { weight: 3, arbitrary: numbers },
  { weight: 1, arbitrary: numericStrings },
  { weight: 2, arbitrary: longStrings },
  { weight: 2, arbitrary: controlChars },
  { weight: 3, arbitrary: oddities },
  { weight: 3, arbitrary: hostileTimes },
  { weight: 2, arbitrary: hostileIds },
  { weight: 1, arbitrary: prototypeKeys },
  { weight: 1, arbitrary: bigArrays },
  { weight: 2, arbitrary: anyJson },
);

/** Path segments a URL parser would refuse or rewrite: bad percent-encodings, dot segments, raw bytes, lengths. */
export const hostileSegments = fc.oneof(
  fc
    .constantFrom(
      '%',
      '%zz',
      '%00',
      '%E0%A4%A',
      '%E0%A4',
      '%2F',
      '%2e%2e',
      '..',
      '.',
      '%ff',
      '%F0%9F%98%80',
      '%C0%AF',
      '%ED%A0%80',
      '%u0041',
      ';a=b',
      '*',
      '~',
      '%20',
      '+',
      'a%',
      '%%',
      '%0A',
      '%0D%0A',
      '%7B%7D',
      '{id}',
      ':id',
      '%3F',
      '%23',
      'é',
      '😀',
      '\u00ff',
      'a/b',
      '',
    )
    .map((t) => new Verbatim(t)),
  fc.constantFrom(64, 65, 200, 201, 250, 1_000, 10_000, 70_000).map((n) => new Verbatim('a'.repeat(n))),
);
