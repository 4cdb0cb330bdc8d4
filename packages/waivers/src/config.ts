import { Type, type Static } from 'typebox';
import type { ConfigSection } from '@hub/runtime';

export const WaiversSchema = Type.Object(
  {
    max_days: Type.Integer({
      minimum: 1,
      maximum: 365,
      default: 30,
      description:
        'The longest a waiver may run: a request whose `expires_at` lies further ahead is refused (400). Every waiver expires by itself.',
    }),
  },
  {
    additionalProperties: false,
    default: {},
    description:
      'Waivers (`@hub/waivers`, decision 0067): a block or flag lifted for one package and one registry, user or token, until it expires.',
  },
);
export type WaiversConfig = Static<typeof WaiversSchema>;

export const waiversSection: ConfigSection<typeof WaiversSchema> = { section: 'waivers', schema: WaiversSchema };
