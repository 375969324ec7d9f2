import { describe, expect, it } from 'vitest';
import addFormatsModule from 'ajv-formats';
import { Ajv } from 'ajv';
import { ajv, canonicalFirst } from './validation.js';

// ajv-formats' own full check, from an instance of its own (the service's instance has the fast path).
type AddFormats = (ajv: Ajv, formats: string[]) => Ajv;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;
const reference = addFormats(new Ajv(), ['date-time']).formats['date-time'] as { validate: (value: string) => boolean };

describe('date-time: the canonical fast path', () => {
  it('answers exactly as ajv-formats does, for every date and time field at and past its bounds', () => {
    const fast = canonicalFirst(reference.validate);
    const years = ['1900', '2000', '2024', '2025', '2100', '0000', '9999'];
    const months = ['00', '01', '02', '04', '12', '13', '99'];
    const days = ['00', '01', '28', '29', '30', '31', '32'];
    const times = ['00:00:00', '23:59:59', '24:00:00', '23:60:00', '23:59:60', '12:34:56.7', '12:34:56.123456789', '99:99:99'];
    const zones = ['Z', 'z', '+00:00', '-23:59', '', '+0100'];
    let checked = 0;
    for (const y of years)
      for (const mo of months)
        for (const d of days)
          for (const t of times)
            for (const z of zones)
              for (const sep of ['T', 't', ' ']) {
                const value = `${y}-${mo}-${d}${sep}${t}${z}`;
                expect(fast(value), value).toBe(reference.validate(value));
                checked++;
              }
    expect(checked).toBeGreaterThan(40_000);
    for (const odd of [
      '',
      'T',
      '2026-11-21',
      '2026-11-21T10:15:30.Z',
      '2026-11-21T10:15:30.123ZZ',
      ' 2026-11-21T10:15:30Z',
      '2026-1-21T10:15:30Z',
      '２０２６-11-21T10:15:30Z',
    ])
      expect(fast(odd), odd).toBe(reference.validate(odd));
  });

  it('is the check the service validates with', () => {
    const validate = ajv.compile({ type: 'string', format: 'date-time' });
    expect(validate('2026-11-21T10:15:30.123Z')).toBe(true);
    expect(validate('2026-02-29T10:15:30Z')).toBe(false);
    expect(validate('2024-02-29T10:15:30+01:00')).toBe(true);
    expect(validate('2026-11-21 10:15:30')).toBe(false);
  });
});
