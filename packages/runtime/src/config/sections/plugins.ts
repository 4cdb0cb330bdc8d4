/** `[plugins]`: packages loaded beside the distribution's. */
import Type from 'typebox';
import { strict } from '../schema-helpers.js';

export const PluginsSchema = Type.Object(
  {
    load: Type.Array(Type.String({ minLength: 1, description: 'An exact package name.' }), {
      default: [],
      description: 'Extra plugin packages to import, by exact package name.',
    }),
  },
  { ...strict, default: {}, description: 'Plugins loaded in addition to those the distribution composes.' },
);
