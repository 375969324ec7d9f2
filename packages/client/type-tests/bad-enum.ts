// A value outside a field's enum (a monitor's metric): must not compile.
import type { Sightline } from '../src/index.js';

declare const client: Sightline;
export const monitor = client.monitors.create('prj_1', { name: 'm', metric: 'p99', window: '1h' });
