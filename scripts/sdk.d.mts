// Types of scripts/sdk.mjs, for the tests that regenerate the SDK's types from a document.
export function operationsModule(doc: unknown): string;
export function typesFor(doc: unknown): Promise<string>;
export function generateTypes(opts?: { force?: boolean }): Promise<boolean>;
export function buildSdk(opts?: { force?: boolean }): void;
