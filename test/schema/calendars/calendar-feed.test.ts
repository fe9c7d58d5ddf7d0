// The feed's own line folding (src/schema/calendars/calendar-feed.ts) gives byte for byte what
// ical-generator's Calendar.toString() gives, which it replaces for speed; and what it folds
// reads back unchanged with ical.js.
import ical from 'ical-generator';
import { describe, expect, it } from 'vitest';
import { foldLines } from '../../../src/schema/calendars/calendar-feed.js';
import { parseCalendar } from '../../helpers/ical.js';

const event = (i: number) => ({
  id: `${i}@book.example.com`,
  start: new Date(Date.UTC(2027, 0, 1) + i * 1_800_000),
  end: new Date(Date.UTC(2027, 0, 1) + (i + 1) * 1_800_000),
  stamp: new Date(Date.UTC(2026, 10, 24)),
  summary: `${'Zoë '.repeat(i % 7)}– ${'Cut and colour '.repeat(i % 9)}`,
  description: `Customer: Dana ${i}\nNotes: ${'prefers "the window"; ü 😀 日本 '.repeat(i % 5)}${'x'.repeat(i % 150)}`,
  location: 'Main St 1, '.repeat(i % 12),
});

describe('foldLines', () => {
  it('folds exactly as ical-generator does, for ASCII, accents, CJK and emoji at every length', () => {
    const whole = ical({ name: 'Feed' });
    for (let i = 0; i < 300; i++) whole.createEvent(event(i));
    const expected = whole.toString();

    const shell = ical({ name: 'Feed' });
    const head = shell.toString();
    const parts = [head.slice(0, head.lastIndexOf('END:VCALENDAR'))];
    for (let i = 0; i < 300; i++) parts.push(foldLines(shell.createEvent(event(i)).toString()));
    parts.push('END:VCALENDAR');
    const ours = parts.join('');
    expect(ours).toBe(expected);
    for (const line of ours.split('\r\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    const read = parseCalendar(ours).events;
    expect(read).toHaveLength(300);
    expect(read[123]!.description).toBe(event(123).description);
    expect(read[123]!.summary).toBe(event(123).summary);
  });
});
