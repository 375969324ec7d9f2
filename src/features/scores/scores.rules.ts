/**
 * What a score is and what makes one valid, without I/O: its data type from its value, the columns it
 * is stored in and back, and the faults of a value against a score config.
 */
import type { ScoreDataType } from '../../schemas/records.js';

export const MAX_CATEGORIES = 100;
export const MAX_COMMENT = 10_000;

export type ScoreValue = number | boolean | string;

/** The config a value is checked against (the stored row's fields, parsed). */
export interface ConfigRule {
  id: string;
  name: string;
  dataType: ScoreDataType;
  min: number | null;
  max: number | null;
  categories: readonly string[] | null;
}

export function dataTypeOf(value: ScoreValue): ScoreDataType {
  return typeof value === 'number' ? 'numeric' : typeof value === 'boolean' ? 'boolean' : 'categorical';
}

/** The `value` and `label` columns of a value. */
export function columnsOf(value: ScoreValue): { data_type: ScoreDataType; value: number | null; label: string | null } {
  if (typeof value === 'number') return { data_type: 'numeric', value, label: null };
  if (typeof value === 'boolean') return { data_type: 'boolean', value: value ? 1 : 0, label: String(value) };
  return { data_type: 'categorical', value: null, label: value };
}

/** The value the columns hold. */
export function valueOf(row: { data_type: string; value: number | null; label: string | null }): ScoreValue {
  if (row.data_type === 'numeric') return Number(row.value);
  if (row.data_type === 'boolean') return row.label === 'true';
  return row.label ?? '';
}

const fmt = (n: number) => String(n);

/** Why `value` does not fit `config`, or null when it does. */
export function valueFault(value: ScoreValue, config: ConfigRule): string | null {
  const type = dataTypeOf(value);
  if (type !== config.dataType) return `The score config "${config.name}" takes ${config.dataType} values; this one is ${type}.`;
  if (typeof value === 'number') {
    if (config.min !== null && value < config.min) return `The score config "${config.name}" takes values from ${fmt(config.min)}; ${fmt(value)} is less.`;
    if (config.max !== null && value > config.max) return `The score config "${config.name}" takes values up to ${fmt(config.max)}; ${fmt(value)} is more.`;
  }
  if (typeof value === 'string' && config.categories && !config.categories.includes(value))
    return `The score config "${config.name}" takes one of ${config.categories.map((c) => JSON.stringify(c)).join(', ')}; ${JSON.stringify(value)} is not one.`;
  return null;
}

/** What a config's own fields must agree on: bounds only for numbers, categories only (and always) for categories. */
export function configFaults(config: {
  dataType: ScoreDataType;
  min?: number | null | undefined;
  max?: number | null | undefined;
  categories?: readonly string[] | null | undefined;
}): { field: 'min' | 'max' | 'categories'; detail: string }[] {
  const faults: { field: 'min' | 'max' | 'categories'; detail: string }[] = [];
  const hasBound = (b: number | null | undefined) => b !== undefined && b !== null;
  if (config.dataType !== 'numeric') {
    if (hasBound(config.min)) faults.push({ field: 'min', detail: `A ${config.dataType} config has no minimum.` });
    if (hasBound(config.max)) faults.push({ field: 'max', detail: `A ${config.dataType} config has no maximum.` });
  } else if (hasBound(config.min) && hasBound(config.max) && config.min! > config.max!) {
    // Either may be the one to change: both are named.
    faults.push({ field: 'min', detail: `The minimum (${fmt(config.min!)}) is more than the maximum (${fmt(config.max!)}).` });
    faults.push({ field: 'max', detail: `The maximum (${fmt(config.max!)}) is less than the minimum (${fmt(config.min!)}).` });
  }
  const hasCategories = config.categories !== undefined && config.categories !== null;
  if (config.dataType === 'categorical' && !hasCategories) faults.push({ field: 'categories', detail: 'A categorical config lists its categories.' });
  if (config.dataType !== 'categorical' && hasCategories) faults.push({ field: 'categories', detail: `A ${config.dataType} config has no categories.` });
  return faults;
}
