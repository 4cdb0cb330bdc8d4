/** `[metrics]`: the Prometheus endpoint. */
import Type from 'typebox';
import { strict, secretPair } from '../schema-helpers.js';

export const MetricsSchema = Type.Object(
  {
    ...secretPair('token', 'Bearer token `/metrics` requires (unset: /metrics is open)'),
  },
  { ...strict, default: {}, description: 'The Prometheus endpoint.' },
);
