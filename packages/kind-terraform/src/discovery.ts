import { ConfigError, definePlugin } from '@hub/runtime';

export const DISCOVERY_PATH = '/.well-known/terraform.json';

/**
 * Terraform's service discovery: before any provider request, terraform asks
 * `https://<host>/.well-known/terraform.json` where `providers.v1` is. That path is per host, not per
 * registry, so one terraform registry answers it: the one with `service_discovery = true`, else the
 * first terraform registry in the configuration. Others are reached with a CLI-config `host` block
 * or through the network mirror (README.md).
 */
export const discovery = definePlugin({
  id: 'terraform-discovery',
  deps: ['config', 'registries', 'router', 'log'],
  contract: 1,
  description: 'Answers /.well-known/terraform.json with the providers.v1 URL of one terraform registry',
  setup({ config, registries, router, log }) {
    const tf = registries.filter((r) => r.type === 'terraform');
    const marked = tf.filter((r) => r.extra.service_discovery === true);
    if (marked.length > 1)
      throw new ConfigError(
        `registries: service_discovery = true is set on ${marked.map((r) => `"${r.name}"`).join(' and ')}; one host can name only one terraform registry`,
        {
          key: 'service_discovery',
        },
      );
    const chosen = marked[0] ?? tf[0];
    if (!chosen) return;
    const path = `/proxy/${encodeURIComponent(chosen.name)}/v1/providers/`;
    // Relative unless public_url says where hub is (it may sit below a path prefix).
    const providers = config.server.public_url ? `${config.server.public_url}${path}` : path;
    log.info({ registry: chosen.name, providers }, 'terraform service discovery');
    router.get(DISCOVERY_PATH, (ctx) => {
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = { 'providers.v1': providers };
    });
  },
});

/** `import('@hub/kind-terraform/discovery')` gives the plugin, as the catalogue loads plugins. */
export default discovery;
