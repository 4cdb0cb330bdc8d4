import type { TSchema, Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { errors } from '@hub/contract';

interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

/** A compiled body check: returns the typed value or throws 400 naming the member and the rule. */
export function bodyValidator<S extends TSchema>(schema: S): (value: unknown) => Static<S> {
  const check = Compile(schema);
  return (value) => {
    if (value === undefined) throw errors.badRequest('a JSON body is required');
    if (check.Check(value)) return value as Static<S>;
    const all = [...check.Errors(value)] as unknown as SchemaError[];
    // additionalProperties reports twice (once as "schema is false"); the named form is the useful one.
    const e = all.find((x) => x.keyword === 'additionalProperties') ?? all.find((x) => x.keyword !== 'boolean') ?? all[0];
    if (!e) throw errors.badRequest('the body is not valid');
    const where = e.instancePath ? `body member ${e.instancePath.slice(1).replaceAll('/', '.')}` : 'body';
    if (e.keyword === 'additionalProperties') throw errors.badRequest(`${where}: unknown member ${JSON.stringify((e.params.additionalProperties as string[])[0])}`);
    throw errors.badRequest(`${where}: ${e.message}`);
  };
}
