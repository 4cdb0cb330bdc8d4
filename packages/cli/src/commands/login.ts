/** login: single sign-on for the CLI through the hub's identity provider (the device flow), storing a hub token. */
import { setTimeout as sleep } from 'node:timers/promises';
import { adminCommand } from '../command.js';
import { RequestError } from '../client.js';
import { storeToken } from '../credentials.js';
import { printable } from '../output.js';

interface DeviceStart {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete?: string;
  expires_in: number;
  interval: number;
}

export const login = adminCommand({
  name: 'login',
  routes: [],
  help: `Usage: hub login [--url URL]

Signs in through the hub's identity provider ([auth.oidc] with a provider that offers the device
flow): prints a code and the page to enter it at, waits while you sign in there in a browser, then
stores a hub token for this hub in $XDG_CONFIG_HOME/hub/credentials.json (else
~/.config/hub/credentials.json, readable by you only). Later commands use it when neither --token
nor $HUB_TOKEN is given. The token lasts [auth.oidc] max_session_secs; your roles come from the
provider's groups, as in the console. The provider's ID token is never stored.

Options:
  --url URL    the hub (default: $HUB_URL, else http://127.0.0.1:8080)
  --json       print {user_id, expires_at, stored_in} instead of a sentence

Exit status: 0 signed in; 1 refused, expired or the hub unreachable; 2 bad usage.`,
  async run({ io, api, json }) {
    const start = await api.call<DeviceStart>('POST', '/api/v1/auth/device');
    const where = start.verification_uri_complete ?? start.verification_uri;
    io.err(
      `Open ${printable(where)}\nand enter the code ${printable(start.user_code)} if asked. Waiting for you to sign in...\n`,
    );
    const deadline = Date.now() + start.expires_in * 1000;
    let interval = Math.max(1, start.interval);
    while (Date.now() < deadline) {
      await sleep(interval * 1000);
      // 202 {status: "pending"} until the person finishes; 201 with the hub token; a refusal throws.
      const answer = await api.call<{ status?: string; token?: string; user_id?: string; expires_at?: string }>(
        'POST',
        '/api/v1/auth/device/token',
        { body: { device_code: start.device_code } },
      );
      if (answer.status === 'slow_down') interval += 5;
      if (!answer.token) continue;
      const file = storeToken(io.env, api.url, {
        token: answer.token,
        user_id: answer.user_id ?? '',
        expires_at: answer.expires_at ?? '',
      });
      if (json)
        io.out(`${JSON.stringify({ user_id: answer.user_id, expires_at: answer.expires_at, stored_in: file })}\n`);
      else
        io.out(
          `Signed in to ${api.url} as ${printable(answer.user_id ?? '')} until ${printable(answer.expires_at ?? '')}; the token is in ${file}\n`,
        );
      return 0;
    }
    throw new RequestError('the sign-in code expired before the sign-in finished; run hub login again');
  },
});
