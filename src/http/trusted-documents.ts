// Trusted documents (persisted operations) for /graphql (docs/graphql.md, "Trusted documents"):
// with GRAPHQL_TRUSTED_DOCUMENTS, a dashboard sends the id of a document of the manifest
// (`extensions.persistedQuery.sha256Hash`, or `documentId`) instead of the document; with
// GRAPHQL_TRUSTED_DOCUMENTS_ONLY it may send nothing else. The manifest is read and every
// document validated against the schema at start-up, so a stale manifest stops the server
// rather than failing a dashboard later. REST runs its own operations in process and never
// passes through here.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { parse, validate, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { ERROR_STATUS, type ErrorCode } from '../errors.js';

const SHA256 = /^[0-9a-f]{64}$/;

/** The manifest `{ "<id>": "<document>" }` (GraphQL Code Generator's persisted documents), checked. */
export function loadTrustedDocuments(path: string, schema: GraphQLSchema): Map<string, string> {
  const fail = (why: string) => new Error(`GRAPHQL_TRUSTED_DOCUMENTS (${path}): ${why}`);
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw fail(`not a readable JSON file (${(err as Error).message})`);
  }
  if (!manifest || typeof manifest !== 'object' || Array.isArray(manifest))
    throw fail('must be a JSON object of document ids to GraphQL documents');
  const documents = new Map<string, string>();
  for (const [id, document] of Object.entries(manifest)) {
    if (!id || id.length > 128) throw fail(`the id "${id.slice(0, 20)}" must have 1 to 128 characters`);
    if (typeof document !== 'string') throw fail(`${id}: the document must be a string`);
    // A SHA-256 id names exactly one document: the one it is the hash of.
    if (SHA256.test(id) && createHash('sha256').update(document).digest('hex') !== id)
      throw fail(`${id}: is not the SHA-256 of its document`);
    let errors: readonly Error[];
    try {
      errors = validate(schema, parse(document));
    } catch (err) {
      errors = [err as Error];
    }
    if (errors.length) throw fail(`${id}: ${errors.map((e) => e.message).join('; ')}`);
    documents.set(id, document);
  }
  return documents;
}

function refusal(code: ErrorCode, message: string) {
  return { message, extensions: { code, http: { status: ERROR_STATUS[code] } } };
}

/** The persisted-operations plugin over a loaded manifest. */
export function trustedDocumentsPlugin(documents: Map<string, string>, opts: { only: boolean }): Plugin {
  return usePersistedOperations({
    getPersistedOperation: (id) => documents.get(id) ?? null,
    allowArbitraryOperations: !opts.only,
    // Apollo's `extensions.persistedQuery.sha256Hash`, or the GraphQL-over-HTTP `documentId`.
    extractPersistedOperationId: (params) => {
      const hash = (params.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)?.sha256Hash;
      if (typeof hash === 'string') return hash;
      const documentId = (params as { documentId?: unknown }).documentId;
      return typeof documentId === 'string' ? documentId : null;
    },
    customErrors: {
      notFound: refusal('PERSISTED_QUERY_NOT_FOUND', 'No trusted document has this id'),
      keyNotFound: refusal(
        'PERSISTED_QUERY_REQUIRED',
        'Send the id of a trusted document: extensions.persistedQuery.sha256Hash or documentId',
      ),
      persistedQueryOnly: refusal(
        'PERSISTED_QUERY_REQUIRED',
        'Only trusted documents are accepted: send extensions.persistedQuery.sha256Hash or documentId instead of query',
      ),
    },
  });
}
