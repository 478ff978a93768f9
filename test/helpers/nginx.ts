/**
 * Starts nginx (the one scripts/test-tools.mjs finds: NGINX_PATH, Debian's /usr/sbin/nginx, or
 * PATH; `npm test` installs it or names the command) on a free loopback port,
 * serving a directory as static files. Everything nginx writes (pid, logs, temp files) stays in
 * a temp prefix that `stop()` removes. The access log records each request's Range, If-Range,
 * Authorization presence, bytes sent and the content coding sent, so tests can count what a
 * client fetched. With `gzipJson`, JSON is served gzip-coded as a stock nginx set-up would
 * (`gzip on; gzip_types application/json; gzip_min_length 1024;`, level 1 as shipped): the
 * extension-less manifest answer at `.../api/updates/manifest` and `*.json` (tuf-js metadata)
 * are typed application/json, and nginx makes their ETags weak (docs/PROTOCOL.md §2.7.6).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findNginx, missingToolMessage } from '#scripts/test-tools.mjs';

const START_POLLS = 100;
const POLL_MS = 50;

export interface NginxAccess {
  readonly uri: string;
  readonly status: number;
  readonly bodyBytesSent: number;
  readonly range: string;
  readonly ifRange: string;
  readonly hadAuthorization: boolean;
  /** Everything nginx wrote for the request, headers included ($bytes_sent). */
  readonly bytesSent: number;
  /** The Content-Encoding nginx sent ('' for none). */
  readonly contentEncoding: string;
  /** nginx's serial number of the connection the request came on ($connection). */
  readonly connection: number;
}

export interface NginxOptions {
  /** The nginx binary (tests of this helper). */
  readonly bin?: string;
  /** gzip JSON answers (the manifest answer, *.json) of 1 KiB or more. */
  readonly gzipJson?: boolean;
  /** Serve https with this certificate and key (PEM; tls-cert.ts makes them). */
  readonly tls?: { readonly certPem: string; readonly keyPem: string };
}

export interface Nginx {
  /** http://127.0.0.1:PORT, or https:// with `tls` (no trailing slash). */
  readonly baseUrl: string;
  readonly root: string;
  /** Parsed access log (requests complete so far). */
  accessLog(): Promise<NginxAccess[]>;
  stop(): Promise<void>;
}

function nginxBinary(): string {
  const found = findNginx();
  if (found === undefined || found.broken === true) throw new Error(missingToolMessage('nginx'));
  return found.path;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** What `gzipJson` adds to the http block: nginx's gzip filter, at its shipped level 1. */
const GZIP_JSON = `  gzip on;
  gzip_types application/json;
  gzip_min_length 1024;
  gzip_vary on;
`;

function config(
  prefix: string,
  root: string,
  port: number,
  gzipJson: boolean,
  tls: boolean,
): string {
  const tmp = (name: string): string => join(prefix, name);
  // Running as root, workers would switch to "nobody", who cannot read a 0700 temp dir.
  const user = process.getuid?.() === 0 ? 'user root root;\n' : '';
  return `${user}daemon off;
worker_processes 1;
pid ${tmp('nginx.pid')};
error_log ${tmp('error.log')} warn;
events { worker_connections 256; }
http {
  default_type application/octet-stream;
  types { ${gzipJson ? 'application/json json; ' : ''}}
  log_format qa '$uri\\t$status\\t$body_bytes_sent\\t$http_range\\t$http_if_range\\t$http_authorization\\t$bytes_sent\\t$sent_http_content_encoding\t$connection';
  access_log ${tmp('access.log')} qa;
  client_body_temp_path ${tmp('client_body')};
  proxy_temp_path ${tmp('proxy')};
  fastcgi_temp_path ${tmp('fastcgi')};
  uwsgi_temp_path ${tmp('uwsgi')};
  scgi_temp_path ${tmp('scgi')};
  sendfile on;
  tcp_nopush on;
  etag on;
${gzipJson ? GZIP_JSON : ''}  server {
    listen 127.0.0.1:${port}${tls ? ' ssl' : ''};
${tls ? `    ssl_certificate ${tmp('cert.pem')};\n    ssl_certificate_key ${tmp('key.pem')};\n    ssl_session_cache shared:qa:1m;\n` : ''}    root ${root};
    location / { }
${gzipJson ? '    location ~ /api/updates/manifest$ { default_type application/json; }\n' : ''}  }
}
`;
}

/** Why one start attempt failed, in words (never empty). */
interface Attempt {
  exit: string;
  stderr: string;
}

/**
 * Starts nginx serving `root`. Throws with everything known when it does not come up: the
 * binary, how the process ended, its stderr and its error log (`bin` is for tests).
 */
export async function startNginx(root: string, options: NginxOptions = {}): Promise<Nginx> {
  const bin = options.bin ?? nginxBinary();
  const prefix = await mkdtemp(join(tmpdir(), 'qa-nginx-'));
  let last: Attempt = { exit: 'not started', stderr: '' };
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const conf = join(prefix, 'nginx.conf');
    const tls = options.tls;
    if (tls !== undefined) {
      await writeFile(join(prefix, 'cert.pem'), tls.certPem);
      await writeFile(join(prefix, 'key.pem'), tls.keyPem, { mode: 0o600 });
    }
    await writeFile(conf, config(prefix, root, port, options.gzipJson === true, tls !== undefined));
    const child: ChildProcess = spawn(
      bin,
      ['-p', prefix, '-c', conf, '-e', join(prefix, 'error.log')],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    const current: Attempt = { exit: '', stderr: '' };
    last = current;
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      if (current.stderr.length < 4096) current.stderr += chunk;
    });
    let exited = false;
    const ended = new Promise<void>((resolve) => {
      child.once('error', (error) => {
        current.exit = `could not run ${bin}: ${error.message}`;
        exited = true;
        resolve();
      });
      child.once('close', (code, signal) => {
        current.exit ||=
          signal !== null ? `killed by ${signal}` : `exited with code ${String(code)}`;
        exited = true;
        resolve();
      });
    });
    for (let i = 0; i < START_POLLS && !exited; i++) {
      if (await canConnect(port)) {
        child.stderr?.removeAllListeners('data').resume();
        return handle(child, prefix, root, port, tls === undefined ? 'http' : 'https');
      }
      await sleep(POLL_MS);
    }
    if (!exited) {
      current.exit = `still not listening on 127.0.0.1:${port} after ${(START_POLLS * POLL_MS) / 1000} s`;
      child.kill('SIGKILL');
    }
    await ended;
  }
  const log = await readFile(join(prefix, 'error.log'), 'utf8').catch(() => '');
  await rm(prefix, { recursive: true, force: true });
  const details = [
    last.stderr.trim() !== '' ? `stderr: ${last.stderr.trim()}` : '',
    log.trim() !== '' ? `error log: ${log.trim()}` : 'its error log is empty',
  ].filter((part) => part !== '');
  throw new Error(`nginx did not start (${bin} ${last.exit}); ${details.join('; ')}`);
}

function handle(
  child: ChildProcess,
  prefix: string,
  root: string,
  port: number,
  scheme: 'http' | 'https',
): Nginx {
  return {
    baseUrl: `${scheme}://127.0.0.1:${port}`,
    root,
    async accessLog() {
      const text = await readFile(join(prefix, 'access.log'), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => {
          const fields = line.split('\t');
          const [uri = '', status = '0', bytes = '0', range = '-', ifRange = '-', auth = '-'] =
            fields;
          return {
            uri,
            status: Number(status),
            bodyBytesSent: Number(bytes),
            range: range === '-' ? '' : range,
            ifRange: ifRange === '-' ? '' : ifRange,
            hadAuthorization: auth !== '-' && auth !== '',
            bytesSent: Number(fields[6] ?? '0'),
            contentEncoding: fields[7] === undefined || fields[7] === '-' ? '' : fields[7],
            connection: Number(fields[8] ?? '0'),
          };
        });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM'); // nginx: TERM is fast shutdown
        await Promise.race([exited, sleep(5_000)]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
      await rm(prefix, { recursive: true, force: true });
    },
  };
}
