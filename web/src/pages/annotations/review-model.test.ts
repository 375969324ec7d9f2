/** The review screen's keys and completion (pages/annotations/review-model.ts), without a browser. */
import { describe, expect, it } from 'vitest';
import { actionOf, completionOf, digitTarget, moveFocus, type FocusKind, type ReviewConfig } from './review-model.js';

const press = (key: string, focus: FocusKind = 'none', mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean; shiftKey: boolean }> = {}) =>
  actionOf({ key, focus, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });

const tone: ReviewConfig = { id: 'scc_tone', name: 'tone', dataType: 'categorical', min: null, max: null, categories: ['friendly', 'neutral', 'rude'] };
const correct: ReviewConfig = { id: 'scc_ok', name: 'correct', dataType: 'boolean', min: null, max: null, categories: null };
const helpful: ReviewConfig = { id: 'scc_help', name: 'helpfulness', dataType: 'numeric', min: 0, max: 1, categories: null };

describe('actionOf', () => {
  it('maps digits 1–9 to the option index, and not 0', () => {
    expect(press('1')).toEqual({ kind: 'choose', index: 0 });
    expect(press('9', 'config')).toEqual({ kind: 'choose', index: 8 });
    expect(press('3', 'control')).toEqual({ kind: 'choose', index: 2 });
    expect(press('0')).toBeNull();
  });

  it('completes with Enter or c, skips with s, helps with ?', () => {
    expect(press('Enter')).toEqual({ kind: 'complete' });
    expect(press('Enter', 'config')).toEqual({ kind: 'complete' });
    expect(press('c')).toEqual({ kind: 'complete' });
    expect(press('s')).toEqual({ kind: 'skip' });
    expect(press('?', 'none', { shiftKey: true })).toEqual({ kind: 'help' });
    expect(press('Escape')).toEqual({ kind: 'escape' });
  });

  it('moves with j and k anywhere but in a text field; Tab only from nowhere (the browser moves it between scores)', () => {
    expect(press('j', 'config')).toEqual({ kind: 'next' });
    expect(press('k', 'control')).toEqual({ kind: 'previous' });
    expect(press('Tab')).toEqual({ kind: 'next' });
    expect(press('Tab', 'none', { shiftKey: true })).toEqual({ kind: 'previous' });
    expect(press('Tab', 'config')).toBeNull();
    expect(press('Tab', 'text')).toBeNull();
  });

  it('does nothing while typing, but Ctrl/Cmd+Enter completes and Escape leaves the field', () => {
    for (const key of ['1', 'Enter', 'c', 's', 'j', 'k', '?']) expect(press(key, 'text')).toBeNull();
    expect(press('Enter', 'text', { ctrlKey: true })).toEqual({ kind: 'complete' });
    expect(press('Enter', 'text', { metaKey: true })).toEqual({ kind: 'complete' });
    expect(press('Escape', 'text')).toEqual({ kind: 'escape' });
  });

  it('leaves Enter on a button or link to it, and the browser its own shortcuts', () => {
    expect(press('Enter', 'control')).toBeNull();
    expect(press('c', 'none', { ctrlKey: true })).toBeNull();
    expect(press('s', 'none', { metaKey: true })).toBeNull();
    expect(press('1', 'none', { altKey: true })).toBeNull();
    expect(press('x')).toBeNull();
  });
});

describe('digitTarget', () => {
  const configs = [helpful, tone, correct];
  it('is the focused config when it offers choices, none when a number has the focus', () => {
    expect(digitTarget(configs, [], 2)).toBe(2);
    expect(digitTarget(configs, [], 0)).toBeNull();
  });
  it('is else the first config with choices not set yet, then none', () => {
    expect(digitTarget(configs, [], null)).toBe(1);
    expect(digitTarget(configs, [undefined, 'rude'], null)).toBe(2);
    expect(digitTarget(configs, [undefined, 'rude', false], null)).toBeNull();
  });
});

describe('moveFocus', () => {
  it('wraps around, and starts at an end from nowhere', () => {
    expect(moveFocus(3, null, 1)).toBe(0);
    expect(moveFocus(3, null, -1)).toBe(2);
    expect(moveFocus(3, 2, 1)).toBe(0);
    expect(moveFocus(3, 0, -1)).toBe(2);
    expect(moveFocus(0, null, 1)).toBeNull();
  });
});

describe('completionOf', () => {
  it('sends a score per config given, by config id, each with the comment', () => {
    expect(completionOf([tone, correct, helpful], ['rude', false, ' 0.5 '], '  terse  ')).toEqual({
      body: {
        scores: [
          { configId: 'scc_tone', value: 'rude', comment: 'terse' },
          { configId: 'scc_ok', value: false, comment: 'terse' },
          { configId: 'scc_help', value: 0.5, comment: 'terse' },
        ],
      },
    });
    expect(completionOf([tone, correct], [undefined, true], '')).toEqual({ body: { scores: [{ configId: 'scc_ok', value: true }] } });
  });
  it('names each number out of range, and says when nothing is given', () => {
    expect(completionOf([tone, helpful], ['rude', '1.5'], '')).toEqual({ faults: { 1: 'At most 1.' } });
    expect(completionOf([tone, helpful], [undefined, ''], 'note')).toEqual({ empty: true });
  });
});
