// @booking-service/sdk: a typed client for the booking service's REST API (README.md).
export { Client, type ClientOptions, type ResponseInfo } from './client.js';
export {
  ApiError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  ConnectionError,
  NotFoundError,
  OAuthError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  WebhookVerificationError,
  type ErrorCode,
  type KnownErrorCode,
  type FieldError,
} from './errors.js';
export { createPkce, OAuth, type OAuthOptions, type Pkce, type TokenSet } from './oauth.js';
export {
  OPERATIONS,
  type ApiVersion,
  type Args,
  type Item,
  type OperationId,
  type QueryParams,
  type RequestBody,
  type RequestOptions,
  type ResponseData,
} from './operations.js';
export { List, type Page } from './pagination.js';
export { RESOURCES } from './resources.js';
export { webhooks, type EventType, type HeadersLike, type VerifyOptions, type WebhookEvent } from './webhooks.js';
export type { components, operations, paths } from './generated/openapi.js';
