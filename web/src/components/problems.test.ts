/** Field faults named as the form names its fields (components/problems.tsx). */
import { describe, expect, it } from 'vitest';
import { fieldName } from './problems.js';

const ORIGINS = { allowedOrigins: 'Allowed origins', 'allowedOrigins/*': 'Allowed origin {n}' };
const VERSION = { template: 'Template', 'template/*': 'Message {n}', 'template/*/content': 'Content of message {n}', config: 'Config (JSON)' };

describe('fieldName', () => {
  it("names an array item by the form's label and its position from 1", () => {
    expect(fieldName({ pointer: '/allowedOrigins/1' }, ORIGINS)).toBe('Allowed origin 2');
    expect(fieldName({ pointer: '/allowedOrigins' }, ORIGINS)).toBe('Allowed origins');
    expect(fieldName({ pointer: '/template/0/content' }, VERSION)).toBe('Content of message 1');
    expect(fieldName({ pointer: '/template/2/role' }, VERSION)).toBe('Message 3 › role');
    expect(fieldName({ pointer: '/variables/customer' }, { 'variables/*': 'Variable {n}' })).toBe('Variable customer');
  });

  it('prefers an exact key to a wildcard, and the longest key', () => {
    const labels = { filter: 'Runs filter', 'filter/*': 'Filter {n}', 'filter/tag': 'Tag', 'filter/tag/*': 'Tag {n}' };
    expect(fieldName({ pointer: '/filter/tag/0' }, labels)).toBe('Tag 1');
    expect(fieldName({ pointer: '/filter/tag' }, labels)).toBe('Tag');
    expect(fieldName({ pointer: '/filter/metadata.env' }, labels)).toBe('Filter metadata.env');
  });

  it('names a parameter by its label, and anything unlabelled in plain words, never as a pointer', () => {
    expect(fieldName({ parameter: 'label' }, { label: 'Label name' })).toBe('Label name');
    expect(fieldName({ parameter: 'startedAfter' })).toBe('Started after');
    expect(fieldName({ pointer: '/allowedOrigins/1' })).toBe('Allowed origins 2');
    expect(fieldName({ pointer: '/a~1b/0/c' })).toBe('A/b 1 › c');
    expect(fieldName({ pointer: '/0' })).toBe('Item 1');
    expect(fieldName({ pointer: '' })).toBe('The request');
  });
});
