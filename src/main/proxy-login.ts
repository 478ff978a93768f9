/**
 * Proxy sign-in policy (docs/DESKTOP.md "Network", "Proxy sign-in"). Electron-free: the
 * question to the user, the sealing of the answer and the report are injected.
 *
 * - Only proxy challenges are answered (`authInfo.isProxy`); a server asking for a password
 *   is never answered: the app signs in to its registry with its machine key, not Basic auth.
 * - Concurrent challenges of one proxy share one question (the user is asked once).
 * - The answer is kept for the session, sealed with safeStorage where it can be, never
 *   written to disk.
 * - Chromium keeps an accepted credential in its auth cache and sends it unasked; it asks
 *   again for the same proxy only when that credential was rejected. So a second challenge
 *   after an answer is a refusal: the credential is forgotten, the refusal reported in plain
 *   words, and the user asked again, at most `MAX_ASKS` times; after that, or after Cancel,
 *   the proxy's challenges are cancelled until `reset()` (a "Check now" by the user).
 */

/** Electron's AuthInfo. */
export interface Challenge {
  readonly isProxy: boolean;
  readonly scheme: string;
  readonly host: string;
  readonly port: number;
  readonly realm: string;
}

export interface Credential {
  readonly username: string;
  readonly password: string;
}

/** What the prompt shows: the proxy, and whether a previous answer was refused. */
export interface Question {
  readonly proxy: string;
  readonly realm: string;
  readonly refused: boolean;
}

/** Seals a secret for the session (safeStorage) and opens it again. */
export interface SessionSeal {
  seal(text: string): unknown;
  open(sealed: unknown): string;
}

export interface ProxyLoginDeps {
  /** Asks the user; null when they cancel. */
  readonly ask: (question: Question) => Promise<Credential | null>;
  readonly seal: SessionSeal;
  readonly report: (level: 'info' | 'warn', message: string) => void;
}

export interface ProxyLogin {
  /** The credential to answer with, or null to cancel the sign-in. */
  onChallenge(challenge: Challenge): Promise<Credential | null>;
  /** The user asked for a new attempt: a cancelled proxy may ask again. */
  reset(): void;
}

/** Questions per proxy before its challenges are cancelled for the session. */
export const MAX_ASKS = 3;

interface ProxyState {
  sealed: { username: string; password: unknown } | null;
  /** The remembered credential was sent and no challenge has come back since. */
  sent: boolean;
  asks: number;
  gaveUp: boolean;
  pending: Promise<Credential | null> | null;
}

/** "proxy.example:3128", as the user configured it. */
export function proxyName(challenge: Challenge): string {
  return `${challenge.host}:${challenge.port}`;
}

/** Asks the user once; keeps the answer sealed for the session, or remembers a cancel. */
async function askAndKeep(
  deps: ProxyLoginDeps,
  state: ProxyState,
  question: Question,
): Promise<Credential | null> {
  state.asks += 1;
  const answer = await deps.ask(question);
  if (answer === null) {
    state.gaveUp = true;
    deps.report('info', `proxy ${question.proxy}: sign-in cancelled by the user`);
    return null;
  }
  state.sealed = { username: answer.username, password: deps.seal.seal(answer.password) };
  state.sent = true;
  return answer;
}

export function createProxyLogin(deps: ProxyLoginDeps): ProxyLogin {
  const proxies = new Map<string, ProxyState>();
  const stateOf = (name: string): ProxyState => {
    let state = proxies.get(name);
    if (state === undefined) {
      state = { sealed: null, sent: false, asks: 0, gaveUp: false, pending: null };
      proxies.set(name, state);
    }
    return state;
  };

  const askUser = (state: ProxyState, question: Question): Promise<Credential | null> =>
    askAndKeep(deps, state, question);

  const answer = (challenge: Challenge): Promise<Credential | null> => {
    const name = proxyName(challenge);
    const state = stateOf(name);
    if (state.pending !== null) return state.pending;
    if (state.gaveUp) return Promise.resolve(null);
    let refused = false;
    if (state.sealed !== null && !state.sent) {
      state.sent = true;
      const { username, password } = state.sealed;
      return Promise.resolve({ username, password: deps.seal.open(password) });
    }
    if (state.sealed !== null || state.sent) {
      refused = true;
      state.sealed = null;
      state.sent = false;
      deps.report('warn', `proxy ${name} refused the user name and password`);
    }
    if (state.asks >= MAX_ASKS) {
      state.gaveUp = true;
      deps.report('warn', `proxy ${name}: no more sign-in attempts this session`);
      return Promise.resolve(null);
    }
    const pending = askUser(state, { proxy: name, realm: challenge.realm, refused });
    state.pending = pending;
    const clear = (): void => {
      state.pending = null;
    };
    pending.then(clear, clear);
    return pending;
  };

  return {
    onChallenge(challenge) {
      if (!challenge.isProxy) {
        deps.report('warn', `server ${proxyName(challenge)} asked for a password: not answered`);
        return Promise.resolve(null);
      }
      return answer(challenge);
    },
    reset() {
      for (const state of proxies.values()) {
        state.gaveUp = false;
        state.asks = 0;
      }
    },
  };
}
