// The GraphQL types of intake questions (docs/api.md, Questions and answers): a service's
// questions, their input, and the answers a booking keeps with the question as it was asked.
import { builder } from '../builder.js';
import { type BookingAnswer, type Question, type QuestionType } from './questions.js';

export const QuestionTypeEnum = builder.enumType('QuestionType', {
  description: 'What kind of answer a question takes',
  values: {
    text: { description: 'A line of text, up to 1000 characters' },
    long_text: { description: 'Free text, up to 5000 characters' },
    choice: { description: 'One of the options' },
    multi_choice: { description: 'A list of distinct options (a required one: at least one)' },
    boolean: { description: 'true or false' },
    phone: { description: 'A telephone number in international format, stored in E.164' },
  } satisfies Record<QuestionType, { description: string }>,
});

export const ServiceQuestionType = builder.objectRef<Question>('ServiceQuestion').implement({
  description: 'A question asked when the service is booked',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Its id, the key of its answer: 1–40 letters, digits, _ or -' }),
    label: t.exposeString('label', { description: 'What the customer is asked, up to 200 characters' }),
    type: t.expose('type', { type: QuestionTypeEnum, description: 'What kind of answer it takes' }),
    required: t.exposeBoolean('required', { description: 'Whether a booking must answer it' }),
    options: t.stringList({
      nullable: true,
      description: 'The options of a choice or multi_choice question; null for the other types',
      resolve: (q) => q.options ?? null,
    }),
  }),
});

export const ServiceQuestionInput = builder.inputType('ServiceQuestionInput', {
  description: 'A question to ask when the service is booked',
  fields: (t) => ({
    id: t.id({ required: true, description: 'Unique in the service: 1–40 letters, digits, _ or -' }),
    label: t.string({ required: true, description: 'What the customer is asked, 1–200 characters' }),
    type: t.field({ type: QuestionTypeEnum, required: true, description: 'What kind of answer it takes' }),
    required: t.boolean({ description: 'Whether a booking must answer it (default false)' }),
    options: t.stringList({
      description: 'For choice and multi_choice only: 1–50 distinct options of 1–100 characters',
    }),
  }),
});

export const BookingAnswerType = builder.objectRef<BookingAnswer>('BookingAnswer').implement({
  description: "An answer to one of the service's questions, with the question as it was asked when booked",
  fields: (t) => ({
    questionId: t.exposeID('questionId', { description: 'The id of the question' }),
    label: t.exposeString('label', { description: "The question's label when the booking was made" }),
    type: t.expose('type', { type: QuestionTypeEnum, description: "The question's type when the booking was made" }),
    value: t.field({
      type: 'JSON',
      description: 'A string (text, long_text, choice, phone in E.164), a list of strings (multi_choice) or a boolean',
      resolve: (a) => a.value,
    }),
  }),
});
