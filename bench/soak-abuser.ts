/**
 * The abuse of bench/server-soak.ts, in its own process so its CPU is its own and is reported
 * apart from the server's and the poller's: a mint flood and machine-key guessing (a new
 * connection per request, FLOODERS loops each), sockets trickling a request body and sockets
 * that send nothing, all from 127.0.0.2. Says `abusing` on stdout once it starts, runs until
 * stdin closes, then prints its counters as one JSON line. KINDS (default all three) picks
 * the abuse, comma-separated: `flood`, `trickle`, `idle` (bench/server-cpu-per-abuse.ts runs
 * them apart).
 *   npx tsx bench/soak-abuser.ts URL [KINDS]
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';

const url = process.argv[2] ?? '';
const port = Number(new URL(url).port);
const ABUSER = '127.0.0.2';
const TRICKLE_SOCKETS = 300;
const IDLE_SOCKETS = 300;
const FLOODERS = 2;
const KINDS = new Set((process.argv[3] ?? 'flood,trickle,idle').split(','));
let done = false;

function status(path: string, method: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      `${url}${path}`,
      { method, agent: false, headers, localAddress: ABUSER, timeout: 5_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** Keeps `n` sockets open that `start` feeds (or not), reopening each one that closes. */
function holdSockets(n: number, start: (s: Socket) => void) {
  const counts = { connected: 0, closed_by_server: 0 };
  const open = (): void => {
    if (done) return;
    let up = false;
    const s = connect({ port, host: '127.0.0.1', localAddress: ABUSER }, () => {
      up = true;
      counts.connected += 1;
      start(s);
    });
    s.on('error', () => undefined);
    // Read what the server says (a 408), or the socket never sees the server's end.
    s.resume();
    s.on('close', () => {
      if (up && !done) counts.closed_by_server += 1;
      setTimeout(open, 10);
    });
  };
  for (let i = 0; i < n; i += 1) open();
  return counts;
}

const abuse = { mints: 0, mint429: 0, guesses: 0, guess429: 0 };
async function flood(path: string, method: string, headers: Record<string, string>, mint: boolean) {
  while (!done) {
    const s = await status(path, method, headers);
    if (mint) {
      abuse.mints += 1;
      abuse.mint429 += s === 429 ? 1 : 0;
    } else {
      abuse.guesses += 1;
      abuse.guess429 += s === 429 ? 1 : 0;
    }
  }
}

const bad = { authorization: `Bearer mk_${'A'.repeat(43)}` };
const floods = Array.from({ length: KINDS.has('flood') ? FLOODERS : 0 }, () => [
  flood('/api/demo-key/mint', 'POST', {}, true),
  flood('/api/updates/manifest', 'GET', bad, false),
]).flat();
const trickle = holdSockets(KINDS.has('trickle') ? TRICKLE_SOCKETS : 0, (s) => {
  s.write(
    'POST /api/demo-key/mint HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n',
  );
  const t = setInterval(() => (s.writable ? s.write(' ') : clearInterval(t)), 1_000);
  s.on('close', () => clearInterval(t));
});
const idle = holdSockets(KINDS.has('idle') ? IDLE_SOCKETS : 0, () => undefined);
process.stdout.write('abusing\n');
process.stdin.resume();
process.stdin.on('end', () => {
  done = true;
  void Promise.all(floods).then(() => {
    process.stdout.write(`${JSON.stringify({ ...abuse, trickle, idle })}\n`);
    process.exit(0);
  });
});
