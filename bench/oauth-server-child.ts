/**
 * One token-endpoint server of bench/oauth-token.ts in its own process, so each server's CPU
 * time can be read from /proc and the load generator does not share its event loop.
 * argv[2]: 'quiet' (ours, logger silent, chain simulator off), 'default' (ours as
 * `npm run server` defaults: info logging to /dev/null, chain simulator on) or 'oidc'.
 * Talks over IPC: sends {ready, tokenUrl, secret}; answers {mint, kind, n} with n codes and
 * {cpu: true} with its own CPU time so far in µs (process.cpuUsage: finer than /proc's ticks).
 */
import { destination } from 'pino';
import { startServer } from '#server/compose/start-server.js';
import { CONFIDENTIAL_REDIRECT, PUBLIC_REDIRECT, startOidcPeer } from './oidc-peer.js';

type Kind = 'public' | 'confidential';
export interface Minted {
  readonly code: string;
  readonly verifier: string;
  readonly redirect: string;
}
export type ChildMessage =
  | { readonly ready: true; readonly tokenUrl: string; readonly secret: string }
  | { readonly minted: readonly Minted[] }
  | { readonly cpuUs: number };

const CLIENT: Record<Kind, 'desktop-app' | 'qa-web'> = {
  public: 'desktop-app',
  confidential: 'qa-web',
};
const which = process.argv[2];
const send = (m: ChildMessage): void => {
  process.send?.(m);
};

let mint: (kind: Kind, i: number) => Promise<Minted>;
if (which === 'oidc') {
  const secret = 'oidc-provider-qa-web-secret-0123456789abcdef';
  const peer = await startOidcPeer(secret);
  mint = async (kind, i) => ({
    ...(await peer.mint(CLIENT[kind], `u${i}`)),
    redirect: kind === 'public' ? PUBLIC_REDIRECT : CONFIDENTIAL_REDIRECT,
  });
  send({ ready: true, tokenUrl: peer.tokenUrl, secret });
} else {
  const server =
    which === 'default'
      ? await startServer(
          { simulate: true, logLevel: 'info' },
          { logStream: destination({ dest: '/dev/null' }) },
        )
      : await startServer({ simulate: false, logLevel: 'silent' });
  mint = (kind, i) => {
    const m = server.oauth.mintCode({ client_id: CLIENT[kind], subject: `u${i}` });
    return Promise.resolve({
      code: m.code,
      verifier: m.code_verifier ?? '',
      redirect: m.redirect_uri,
    });
  };
  send({
    ready: true,
    tokenUrl: `${server.url}/api/oauth/token`,
    secret: server.oauth.qaClientSecret,
  });
}

process.on('message', (m: { mint: Kind; n: number } | { cpu: true }) => {
  if ('cpu' in m) {
    const used = process.cpuUsage();
    send({ cpuUs: used.user + used.system });
    return;
  }
  void (async () => {
    const minted: Minted[] = [];
    for (let i = 0; i < m.n; i++) minted.push(await mint(m.mint, i));
    send({ minted });
  })();
});
process.on('disconnect', () => process.exit(0));
