// Services: what a company offers, its duration, price and buffers.
// The public face of this subject: transports import it from here, never a file inside.
// Its GraphQL type (service.ts) is registered by src/schema/index.ts.
export * from './manage-services.js';
export * from './list-services.js';
export { type CancellationPolicy, storedCancellationPolicy } from './cancellation-policy.js';
export {
  answersInput,
  type BookingAnswer,
  judgeAnswers,
  MAX_QUESTIONS,
  type Question,
  QUESTION_TYPES,
  storedQuestions,
} from './questions.js';
export { BookingAnswerType } from './question-types.js';
export { storedWaitlist, WAITLIST_DEFAULTS, type WaitlistConfig, waitlistOpen } from './waitlist-config.js';
