// How /api/v1 routes write their JSON bodies. The data comes out of a GraphQL operation whose
// selection set has already shaped it, field for field, so V8's own JSON.stringify writes it,
// several times faster than the schema-compiled serializer Fastify would use (see
// docs/performance.md, "Availability bodies"). The route's response schemas stay what the
// OpenAPI document publishes, and outside production every body is also written by the
// schema serializer: if the two disagree (a field the schema does not document, a null where
// it promises a string, a value it would coerce), the response is a 500 naming the route, so
// the test suite proves the published schemas and the bodies agree.
import fastJson, { type Options, type Schema } from 'fast-json-stringify';
import type { TSchema } from '@sinclair/typebox';
import { isDeepStrictEqual } from 'node:util';
import { ErrorEnvelope } from './schemas.js';

export type Serializer = (payload: unknown) => string;

/**
 * fast-json-stringify's options wherever it runs (the check below, and Fastify's serializer
 * for the routes outside /api/v1). It picks a response union's branch by running Ajv over the
 * value; the formats are not what tells the branches apart, so they are not checked on the way
 * out. Input validation keeps its formats.
 */
export const schemaSerializerOptions: Options = { ajv: { validateFormats: false } };

export class UndocumentedResponseError extends Error {}

// The check's serializers, compiled on a route's first answer of a status and once per process
// for the same schema (most routes answer few of their statuses in a run; compiling all at
// start-up was most of an app's start outside production).
// eslint-disable-next-line no-restricted-syntax -- process state: compiled validators and serializers
const documentedSerializers = new Map<string, Serializer>();

function documentedSerializer(schema: TSchema): Serializer {
  const key = JSON.stringify(schema);
  let documented = documentedSerializers.get(key);
  if (documented === undefined) {
    documented = fastJson(schema as unknown as Schema, {
      ...schemaSerializerOptions,
      schema: { ErrorEnvelope: ErrorEnvelope as unknown as Schema },
    });
    documentedSerializers.set(key, documented);
  }
  return documented;
}

export function bodySerializer(schema: TSchema, opts: { route: string; check: boolean }): Serializer {
  if (!opts.check) return JSON.stringify;
  let documented: Serializer | undefined;
  return (payload) => {
    const body = JSON.stringify(payload);
    documented ??= documentedSerializer(schema);
    const expected = documented(payload);
    if (!isDeepStrictEqual(JSON.parse(body), JSON.parse(expected))) {
      throw new UndocumentedResponseError(
        `${opts.route}: the body differs from its documented schema\n  sent:       ${body.slice(0, 2000)}\n  documented: ${expected.slice(0, 2000)}`,
      );
    }
    return body;
  };
}
