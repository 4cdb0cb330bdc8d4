import t from 'tap';
import { pluginConfigLoader } from '@hub/testkit';
import webhooks from '../src/index.js';

const { load, errorOf } = pluginConfigLoader(webhooks);

t.test("[notifications] is the plugin's own section; secret_env is resolved", async (t) => {
  const defaults = { max_attempts: 12, first_retry_secs: 5, poll_interval_secs: 5 };
  t.same(load('').sections.notifications, { webhooks: [], ...defaults });
  t.same(
    load(
      '[[notifications.webhooks]]\nurl = "http://127.0.0.1:9000/hooks"\nevents = ["upstream_unreachable"]\nsecret_env = "S"\n',
      { S: 'x' },
    ).sections.notifications,
    {
      webhooks: [
        { url: 'http://127.0.0.1:9000/hooks', events: ['upstream_unreachable'], secret_env: 'S', secret: 'x' },
      ],
      ...defaults,
    },
  );
});

t.test('each webhook has an http(s) URL that parses and at least one event', async (t) => {
  t.equal(
    errorOf('[[notifications.webhooks]]\nurl = "http://127.0.0.1:9/"\nevents = []\n'),
    'hub.toml:3: notifications.webhooks[0].events: must list at least one entry',
  );
  t.equal(
    errorOf('[[notifications.webhooks]]\nurl = "ftp://127.0.0.1/"\nevents = ["a"]\n'),
    'hub.toml:2: notifications.webhooks[0].url: must be an http:// or https:// URL (got "ftp://127.0.0.1/")',
  );
  t.equal(
    errorOf('[[notifications.webhooks]]\nurl = "http://127.0.0.1:99999/"\nevents = ["a"]\n'),
    'hub.toml:2: notifications.webhooks[0].url: is not a valid URL (got "http://127.0.0.1:99999/")',
  );
  t.match(
    errorOf('[[notifications.webhooks]]\nurl = "http://127.0.0.1:9/"\nevents = ["Bad Name"]\n'),
    /events\[0\]: must be an event name like package_disappeared_upstream/,
  );
});

t.test('one table per webhook URL: the URL is its identity in the outbox', async (t) => {
  const twice =
    '[[notifications.webhooks]]\nurl = "http://127.0.0.1:9/h"\nevents = ["a"]\n[[notifications.webhooks]]\nurl = "http://127.0.0.1:9/h"\nevents = ["b"]\n';
  t.match(errorOf(twice), /notifications\.webhooks\[1\]\.url: names a URL an earlier webhook has/);
  t.match(errorOf('[notifications]\nmax_attempts = 0\n'), /max_attempts/);
});
