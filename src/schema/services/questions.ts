// Intake questions (docs/api.md, Questions and answers): a service asks up to 20 questions when
// it is booked; a booking's `answers` ({ questionId: value }) are judged against them here, and
// stored with a snapshot of each question's label and type, so renaming or removing a question
// later leaves old bookings as they were answered.
import { z } from 'zod';
import { AppError, type FieldError } from '../../errors.js';
import { phone, requiredText } from '../validation.js';
import { deepFreeze } from '../../frozen.js';

export const QUESTION_TYPES = ['text', 'long_text', 'choice', 'multi_choice', 'boolean', 'phone'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export const MAX_QUESTIONS = 20;
export const MAX_OPTIONS = 50;
const TEXT_MAX: Record<'text' | 'long_text', number> = { text: 1000, long_text: 5000 };
const CHOICE_TYPES: ReadonlySet<QuestionType> = deepFreeze(new Set(['choice', 'multi_choice']));

export type Question = {
  id: string;
  label: string;
  type: QuestionType;
  required: boolean;
  options?: string[];
};

/** One answer as stored on the booking: the question as it was asked, and the value given. */
export type BookingAnswer = {
  questionId: string;
  label: string;
  type: QuestionType;
  value: string | boolean | string[];
};

const question = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/, 'must be 1 to 40 letters, digits, "_" or "-"'),
    label: requiredText(200),
    type: z.enum(QUESTION_TYPES, { error: `must be one of ${QUESTION_TYPES.join(', ')}` }),
    required: z.boolean().default(false),
    options: z
      .array(requiredText(100))
      .min(1, 'must list at least one option')
      .max(MAX_OPTIONS, `must list at most ${MAX_OPTIONS} options`)
      .nullish(),
  })
  .strict()
  .superRefine((q, ctx) => {
    if (CHOICE_TYPES.has(q.type) && !q.options)
      ctx.addIssue({ code: 'custom', path: ['options'], message: `is required for a ${q.type} question` });
    if (!CHOICE_TYPES.has(q.type) && q.options)
      ctx.addIssue({ code: 'custom', path: ['options'], message: `is only for choice and multi_choice questions` });
    if (q.options && new Set(q.options).size !== q.options.length)
      ctx.addIssue({ code: 'custom', path: ['options'], message: 'must not repeat an option' });
  })
  .transform(({ options, ...q }): Question => (options ? { ...q, options } : q));

/** A service's questions: at most 20, ids unique. Given whole; a PATCH replaces the list. */
export const questionsSchema = z
  .array(question)
  .max(MAX_QUESTIONS, `must list at most ${MAX_QUESTIONS} questions`)
  .superRefine((qs, ctx) => {
    const seen = new Set<string>();
    qs.forEach((q, i) => {
      if (seen.has(q.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `repeats the id ${q.id}` });
      seen.add(q.id);
    });
  });

/** The questions stored on a service (written by questionsSchema only). */
export function storedQuestions(json: unknown): Question[] {
  return Array.isArray(json) ? (json as Question[]) : [];
}

/** An object of answers by question id, before it is judged against a service's questions. */
export const answersInput = z.record(z.string(), z.unknown(), { error: 'must be an object of answers by question id' });

const describe = (v: unknown) =>
  Array.isArray(v) ? 'a list' : v === null ? 'null' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;

/** One answer judged against its question: the stored value, or why it is refused. */
function judge(q: Question, value: unknown): { value: BookingAnswer['value'] } | { error: string } {
  switch (q.type) {
    case 'text':
    case 'long_text': {
      const max = TEXT_MAX[q.type];
      if (typeof value !== 'string') return { error: `must be a string, not ${describe(value)}` };
      const r = requiredText(max).safeParse(value);
      return r.success ? { value: r.data } : { error: r.error.issues[0]!.message };
    }
    case 'phone': {
      if (typeof value !== 'string') return { error: `must be a string, not ${describe(value)}` };
      const r = phone.safeParse(value);
      return r.success ? { value: r.data } : { error: r.error.issues[0]!.message };
    }
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { error: `must be true or false, not ${describe(value)}` };
    case 'choice':
      return typeof value === 'string' && q.options!.includes(value)
        ? { value }
        : { error: `must be one of the options: ${q.options!.join(', ')}` };
    case 'multi_choice': {
      if (!Array.isArray(value)) return { error: `must be a list of options, not ${describe(value)}` };
      const list: unknown[] = value;
      if (list.some((v) => typeof v !== 'string' || !q.options!.includes(v)))
        return { error: `must list only the options: ${q.options!.join(', ')}` };
      if (new Set(list).size !== list.length) return { error: 'must not repeat an option' };
      if (q.required && list.length === 0) return { error: 'is required: choose at least one option' };
      return { value: list as string[] };
    }
  }
}

/**
 * The answers of a new booking against its service's questions, in the order the questions
 * are asked: each required question answered, each answer of its question's type, no answer to
 * a question the service does not ask. A null answer is no answer. Otherwise VALIDATION_ERROR
 * naming `answers.<questionId>` for every fault, before anything is written.
 */
export function judgeAnswers(
  questions: Question[],
  answers: Record<string, unknown> | null | undefined,
): BookingAnswer[] {
  const given = answers ?? {};
  const errors: FieldError[] = [];
  const asked = new Set(questions.map((q) => q.id));
  for (const id of Object.keys(given))
    if (!asked.has(id)) errors.push({ path: `answers.${id}`, message: 'is not a question of this service' });
  const out: BookingAnswer[] = [];
  for (const q of questions) {
    const value = Object.hasOwn(given, q.id) ? given[q.id] : undefined;
    if (value === undefined || value === null) {
      if (q.required) errors.push({ path: `answers.${q.id}`, message: 'is required' });
      continue;
    }
    const r = judge(q, value);
    if ('error' in r) errors.push({ path: `answers.${q.id}`, message: r.error });
    else out.push({ questionId: q.id, label: q.label, type: q.type, value: r.value });
  }
  if (errors.length) throw AppError.validation(errors);
  return out;
}
