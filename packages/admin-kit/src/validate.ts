import type { TSchema, Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { errors } from '@hub/contract';

interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

/** The schema's compiled check, built by its first use: an idle hub holds no checks for routes never called. */
function compileOnUse(schema: TSchema): () => ReturnType<typeof Compile<TSchema>> {
  let check: ReturnType<typeof Compile<TSchema>> | undefined;
  return () => (check ??= Compile(schema));
}

/** A compiled body check: returns the typed value or throws 400 naming the member and the rule. */
export function bodyValidator<S extends TSchema>(schema: S): (value: unknown) => Static<S> {
  const compiled = compileOnUse(schema);
  return (value) => {
    if (value === undefined) throw errors.badRequest('a JSON body is required');
    const check = compiled();
    if (check.Check(value)) return value as Static<S>;
    const all = [...check.Errors(value)] as unknown as SchemaError[];
    // additionalProperties reports twice (once as "schema is false"); the named form is the useful one.
    const e =
      all.find((x) => x.keyword === 'additionalProperties') ?? all.find((x) => x.keyword !== 'boolean') ?? all[0];
    if (!e) throw errors.badRequest('the body is not valid');
    const where = e.instancePath ? `body member ${e.instancePath.slice(1).replaceAll('/', '.')}` : 'body';
    if (e.keyword === 'additionalProperties')
      throw errors.badRequest(
        `${where}: unknown member ${JSON.stringify((e.params.additionalProperties as string[])[0])}`,
      );
    throw errors.badRequest(`${where}: ${e.message}`);
  };
}

/** A compiled query-string check (values are strings; a repeated key is an array and fails): throws 400 naming the parameter. */
export function queryValidator(schema: TSchema): (query: unknown) => void {
  const compiled = compileOnUse(schema);
  return (query) => {
    const check = compiled();
    if (check.Check(query)) return;
    const all = [...check.Errors(query)] as unknown as SchemaError[];
    const e =
      all.find((x) => x.keyword === 'additionalProperties') ?? all.find((x) => x.keyword !== 'boolean') ?? all[0];
    if (!e) throw errors.badRequest('the query string is not valid');
    if (e.keyword === 'additionalProperties')
      throw errors.badRequest(
        `unknown query parameter ${JSON.stringify(String((e.params.additionalProperties as string[])[0]).slice(0, 64))}`,
      );
    const name = e.instancePath.slice(1).split('/')[0];
    throw errors.badRequest(name ? `query parameter ${name}: ${e.message}` : `query string: ${e.message}`);
  };
}
