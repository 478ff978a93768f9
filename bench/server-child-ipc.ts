/**
 * Starts one server of bench/oauth-server-child.ts in its own process and talks to it over
 * IPC: each question is answered by the child's next message (the child answers in order).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { ChildMessage } from './oauth-server-child.js';
import { REPO_ROOT } from './updater-kit.js';

const CHILD = join(REPO_ROOT, 'bench/oauth-server-child.ts');

export interface ServerChild {
  readonly label: string;
  readonly tokenUrl: string;
  /** The confidential client's secret. */
  readonly secret: string;
  readonly child: ChildProcess;
  /** Sends `message` and resolves with the child's answer (rejects if it exits first). */
  ask(message: object): Promise<ChildMessage>;
}

export async function startServerChild(
  label: string,
  which: 'quiet' | 'default' | 'oidc',
): Promise<ServerChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, which], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const next = (): Promise<ChildMessage> =>
    new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`${label} exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (m: ChildMessage) => {
        child.off('exit', onExit);
        resolve(m);
      });
    });
  const ready = await next();
  if (!('ready' in ready)) throw new Error(`${label}: unexpected first message`);
  return {
    label,
    tokenUrl: ready.tokenUrl,
    secret: ready.secret,
    child,
    ask(message) {
      const answer = next();
      child.send(message);
      return answer;
    },
  };
}
