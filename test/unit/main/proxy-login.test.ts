import { describe, expect, it } from 'vitest';
import {
  createProxyLogin,
  MAX_ASKS,
  type Challenge,
  type Credential,
  type Question,
} from '#main/proxy-login.js';

const proxy: Challenge = {
  isProxy: true,
  scheme: 'basic',
  host: '127.0.0.1',
  port: 3128,
  realm: 'office',
};

function setup(answers: (Credential | null)[]) {
  const questions: Question[] = [];
  const reports: string[] = [];
  const sealed: string[] = [];
  const login = createProxyLogin({
    ask: (question) => {
      questions.push(question);
      return Promise.resolve(answers.shift() ?? null);
    },
    seal: {
      seal: (text) => {
        sealed.push(text);
        return { box: Buffer.from(text).toString('base64') };
      },
      open: (box) => Buffer.from((box as { box: string }).box, 'base64').toString(),
    },
    report: (level, message) => reports.push(`${level} ${message}`),
  });
  return { login, questions, reports, sealed };
}

const alice = { username: 'alice', password: 's3cret' };

describe('proxy sign-in', () => {
  it('never answers a server that asks for a password', async () => {
    const s = setup([alice]);
    expect(await s.login.onChallenge({ ...proxy, isProxy: false })).toBeNull();
    expect(s.questions).toEqual([]);
    expect(s.reports).toEqual(['warn server 127.0.0.1:3128 asked for a password: not answered']);
  });

  it('asks the user once for concurrent challenges of one proxy and answers all of them', async () => {
    const s = setup([alice]);
    const answers = await Promise.all([
      s.login.onChallenge(proxy),
      s.login.onChallenge(proxy),
      s.login.onChallenge(proxy),
    ]);
    expect(answers).toEqual([alice, alice, alice]);
    expect(s.questions).toEqual([{ proxy: '127.0.0.1:3128', realm: 'office', refused: false }]);
  });

  it('keeps the password sealed for the session', async () => {
    const s = setup([alice]);
    await s.login.onChallenge(proxy);
    expect(s.sealed).toEqual(['s3cret']);
  });

  it('reports a refused credential clearly and asks again, saying it was refused', async () => {
    const bob = { username: 'bob', password: 'right' };
    const s = setup([alice, bob]);
    expect(await s.login.onChallenge(proxy)).toEqual(alice);
    // Chromium asks again for the same proxy only when the credential was rejected.
    expect(await s.login.onChallenge(proxy)).toEqual(bob);
    expect(s.reports).toContain('warn proxy 127.0.0.1:3128 refused the user name and password');
    expect(s.questions.map((q) => q.refused)).toEqual([false, true]);
  });

  it(`stops asking after ${MAX_ASKS} refused answers, until reset`, async () => {
    const s = setup([alice, alice, alice, alice]);
    for (let i = 0; i < MAX_ASKS; i += 1) expect(await s.login.onChallenge(proxy)).toEqual(alice);
    expect(await s.login.onChallenge(proxy)).toBeNull();
    expect(s.questions).toHaveLength(MAX_ASKS);
    s.login.reset();
    expect(await s.login.onChallenge(proxy)).toEqual(alice);
    expect(s.questions).toHaveLength(MAX_ASKS + 1);
  });

  it('cancels without asking again once the user cancelled', async () => {
    const s = setup([null, alice]);
    expect(await s.login.onChallenge(proxy)).toBeNull();
    expect(await s.login.onChallenge(proxy)).toBeNull();
    expect(s.questions).toHaveLength(1);
    expect(s.reports).toContain('info proxy 127.0.0.1:3128: sign-in cancelled by the user');
  });

  it('keeps each proxy apart', async () => {
    const s = setup([alice, alice]);
    await s.login.onChallenge(proxy);
    await s.login.onChallenge({ ...proxy, port: 8080 });
    expect(s.questions.map((q) => [q.proxy, q.refused])).toEqual([
      ['127.0.0.1:3128', false],
      ['127.0.0.1:8080', false],
    ]);
  });
});
