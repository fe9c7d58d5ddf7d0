// The envelope of every /api/v1 answer, meta.requestId included (docs/api.md, The envelope).
import type { AppError } from '../errors.js';

export const API_VERSION = 'v1';

export interface Pagination {
  limit: number;
  hasMore: boolean;
  nextCursor: string | null;
}

export function success(data: unknown, requestId: string, pagination?: Pagination) {
  return {
    status: true as const,
    data,
    meta: pagination
      ? { timestamp: Date.now(), version: API_VERSION, requestId, pagination }
      : { timestamp: Date.now(), version: API_VERSION, requestId },
  };
}

const SUCCESS_HEAD = Buffer.from('{"status":true,"data":');

/** `success(data, requestId)` as JSON bytes, for `data` already written as JSON. */
export function successBody(data: Buffer, requestId: string): Buffer {
  const meta = Buffer.from(`,"meta":${JSON.stringify(success(null, requestId).meta)}}`);
  return Buffer.concat([SUCCESS_HEAD, data, meta], SUCCESS_HEAD.length + data.length + meta.length);
}

export function failure(error: AppError, requestId: string) {
  const body: { code: string; message: string; details?: unknown } = { code: error.code, message: error.message };
  if (error.details !== undefined) body.details = error.details;
  return { status: false as const, error: body, meta: { timestamp: Date.now(), requestId } };
}
