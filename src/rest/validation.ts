// Request validation. Bodies are validated strictly: no type coercion, and an unknown field is
// an error naming the field, never silently dropped (docs/api.md). Query strings and path
// parameters arrive as text, so those are coerced to the declared types.
import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { AppError, type FieldError } from '../errors.js';
import { parseIsoTimestamp, TIMESTAMP_FORMAT } from '../schema/iso-timestamp.js';

// verbose: errors carry the refused value, so a refused time can say why (fieldErrors).
const common = { allErrors: false, removeAdditional: false, useDefaults: true, strict: false, verbose: true } as const;
const bodyAjv = addFormats.default(new Ajv.default({ ...common, coerceTypes: false }));
const queryAjv = addFormats.default(new Ajv.default({ ...common, coerceTypes: 'array' }));
// `date-time` is the GraphQL DateTime scalar's parser, not ajv-formats' own: the two once
// disagreed (an offset passed here and failed there), and years like 0000 passed both.
for (const ajv of [bodyAjv, queryAjv])
  ajv.addFormat('date-time', { type: 'string', validate: (s: string) => parseIsoTimestamp(s).error === undefined });

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

// A route's validator is compiled on its first request, once per process for the same schema:
// every route compiled at start-up was most of an app's start (`svc`, each test's app), and a
// process that builds several apps (tests, the CLI's bridge) compiled the same schemas again.
// eslint-disable-next-line no-restricted-syntax -- process state: compiled validators and serializers
const compiled = new Map<string, Validator>();

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const body = httpPart === 'body';
  const ajv = body ? bodyAjv : queryAjv;
  let validate: Validator | undefined;
  const lazy: Validator = (data) => {
    if (validate === undefined) {
      const key = `${body ? 'body' : 'query'} ${JSON.stringify(schema)}`;
      validate = compiled.get(key);
      if (validate === undefined) {
        validate = ajv.compile(schema as object) as Validator;
        compiled.set(key, validate);
      }
    }
    const valid = validate(data);
    // Fastify reads a refusal's errors off the function it was given.
    lazy.errors = validate.errors;
    return valid;
  };
  return lazy as ReturnType<FastifySchemaCompiler<unknown>>;
};

export function fieldErrors(errors: ErrorObject[], part: string): FieldError[] {
  return errors.map((e) => {
    const base = e.instancePath.replace(/^\//, '').replace(/\//g, '.');
    const join = (p: string) => (base ? `${base}.${p}` : p);
    switch (e.keyword) {
      case 'additionalProperties':
        return { path: join(String(e.params.additionalProperty)), message: 'is not a known field' };
      case 'required':
        return { path: join(String(e.params.missingProperty)), message: 'is required' };
      case 'type':
        return { path: base || part, message: base ? `must be ${e.params.type}` : `must be a JSON ${e.params.type}` };
      case 'format':
        return {
          path: base || part,
          message:
            e.params.format === 'date-time'
              ? (parseIsoTimestamp(e.data).error ?? TIMESTAMP_FORMAT)
              : `must be a valid ${e.params.format}`,
        };
      default:
        return { path: base || part, message: e.message ?? 'is invalid' };
    }
  });
}

export function validationError(errors: ErrorObject[], part: string): AppError {
  return AppError.validation(fieldErrors(errors, part));
}
