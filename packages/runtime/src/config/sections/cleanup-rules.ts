/** `[[registries.cleanup]]`: the rules that remove old versions (decision 0056). */
import Type from 'typebox';
import { strict } from '../schema-helpers.js';

export const CLEANUP_PRERELEASES = ['same', 'only', 'exclude'] as const;

export const CleanupRuleSchema = Type.Object(
  {
    packages: Type.Array(
      Type.String({
        minLength: 1,
        maxLength: 512,
        description: 'A glob over canonical package names: `*` any run of characters (also `/`), `?` one character.',
      }),
      {
        default: ['*'],
        minItems: 1,
        description:
          'The packages the rule covers, as globs over canonical names (any matching): `*` any run of characters (also `/`), `?` one character. Default: every package.',
      },
    ),
    keep_newest: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "Per package, the newest N versions this rule covers (in the kind's version order) are kept, whatever any rule selects. Alone (without an age condition) the rule selects every other version it covers.",
      }),
    ),
    unused_days: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'Selects versions none of whose files was downloaded for this many days (the access times retention uses).',
      }),
    ),
    older_than_days: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'Selects versions first cached (or published) more than this many days ago.',
      }),
    ),
    prereleases: Type.Enum(CLEANUP_PRERELEASES, {
      default: 'same',
      description:
        "Which versions the rule covers by the kind's pre-release test (maven `-SNAPSHOT`, semver `-rc.1`): `same` both alike, `only` pre-releases and snapshots only, `exclude` releases only. Two rules, one `only` and one `exclude`, handle them separately (and keep_newest counts each set apart).",
    }),
    include_published: Type.Boolean({
      default: false,
      description:
        'Also cover versions published to this (local or hybrid) registry. They are deleted as an unpublish does: the version number stays taken (tombstone).',
    }),
  },
  {
    ...strict,
    description:
      'A cleanup rule (`[[registries.cleanup]]`). A version is removed when some rule selects it (every age condition of that rule holds; a rule without one selects all it covers) and no covering rule\'s keep_newest keeps it. Pinned versions (gone upstream), held versions (`retention_holds`) and, unless include_published, published versions are never removed. See docs/operations.md, "Cleanup policies".',
  },
);
