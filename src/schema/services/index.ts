// Services: what a company offers, its duration, price and buffers.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (service.ts) is registered by src/schema/index.ts.
export * from './manage-services.js';
export * from './list-services.js';
export { storedCancellationPolicy } from './cancellation-policy.js';
export { storedQuestions, QUESTION_TYPES, MAX_QUESTIONS, type Question } from './questions.js';
