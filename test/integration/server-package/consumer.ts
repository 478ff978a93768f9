// Type-checked (tsc --noEmit, strict) inside the scratch project against the installed
// package's declarations: a QA team's TypeScript sees the API without tsx or our sources.
import {
  startServer,
  verifyAnswer,
  verifyManifest,
  UpdateError,
  type RunningServer,
  type ServerOptions,
  type UpdateErrorCode,
  type ServerConfig,
  type IssueTokensHook,
  type AnswerCheckOptions,
} from 'verified-updater-server';
import { test as pwTest } from 'verified-updater-server/playwright';
import { useServer } from 'verified-updater-server/vitest';

const config: ServerConfig = {
  machines: [{ machine_key: `mk_${'A'.repeat(43)}`, subscription: 'inactive' }],
  oauth: { claims: { subjects: { alice: { roles: ['qa'] } } } },
};
const onIssueTokens: IssueTokensHook = ({ claims, subject }) => ({ ...claims, who: subject });

export function fixtures(): void {
  pwTest.use({ serverOptions: { config, onIssueTokens } });
  pwTest('typed fixture', async ({ server }) => {
    await server.reset();
  });
  const server = useServer({ config: 'qa.json' }, { per: 'test' });
  void server.url;
  // @ts-expect-error: per is 'file' or 'test'
  useServer({}, { per: 'worker' });
}

export async function typed(): Promise<string> {
  const options: Partial<ServerOptions> = { dev: true, simulate: false };
  const server: RunningServer = await startServer(options);
  const published = await server.publish({ registry_version: '1.0.0', artifacts: [] });
  const checked = verifyManifest(new Uint8Array(0), [server.nodePubkey]);
  const options2: AnswerCheckOptions = { nowMs: 0, keyChain: new Uint8Array(0) };
  const whole = verifyAnswer(new Uint8Array(0), server.nodePubkey, options2);
  // @ts-expect-error: the nonce is a string
  verifyAnswer(new Uint8Array(0), server.nodePubkey, { nonce: 1 });
  const code: UpdateErrorCode | undefined = new UpdateError('UNKNOWN_KEY', 'x').code;
  // @ts-expect-error: the port is a number, and the declarations say so
  await startServer({ port: '8080' });
  server.clock.advance(1000);
  await server.close();
  return `${published.registry_version} ${checked.manifest.registry_version} ${whole.format} ${String(code)}`;
}
