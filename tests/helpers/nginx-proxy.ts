import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** One request as the proxy logged it (the wrapper's JSON access log format). */
export interface ProxiedRequest {
  method: string;
  uri: string;
  status: number;
  /** `127.0.0.1:<port>` of the dashboard that answered (nginx's `$upstream_addr`). */
  upstream: string;
  /** The `Next-Action` header: set on a server action call. */
  action: string;
  /** X-Forwarded-For as the client sent it (before nginx appended its peer). */
  forwardedFor: string;
  remote: string;
}

export interface NginxProxyOptions {
  /** The shipped server block, deploy/nginx/bullpen.conf. */
  confFile: string;
  /** Loopback port that replaces the shipped `listen 80`. */
  listenPort: number;
  /** Loopback ports that replace the shipped upstream servers, in their order. */
  upstreamPorts: number[];
  /**
   * Local address nginx connects to the upstreams from (`proxy_bind`, set in the wrapper's
   * http block). On one machine this tells the proxy apart from every other local client.
   */
  bindAddress?: string;
}

const NGINX = process.env.NGINX_PATH ?? 'nginx';

/**
 * Debian's nginx running the shipped server block, changed only in its ports (moved to
 * free loopback ports), inside a wrapper config of our own: a temp prefix with its own
 * pid, logs and temp paths, one worker, `daemon off` so the master is our child and is
 * stopped by its PID, and a JSON access log with `$upstream_addr`, so a test can see
 * which upstream answered each request.
 */
export class NginxProxy {
  private readonly serverConf: string;
  private readonly wrapperConf: string;
  private readonly errorLog: string;
  private readonly accessLogFile: string;
  private child?: ChildProcess;
  private exited?: { code: number | null; signal: NodeJS.Signals | null };
  private exit?: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    private readonly opts: NginxProxyOptions,
    readonly dir: string,
  ) {
    this.serverConf = path.join(dir, 'bullpen.conf');
    this.wrapperConf = path.join(dir, 'nginx.conf');
    this.errorLog = path.join(dir, 'error.log');
    this.accessLogFile = path.join(dir, 'access.log');
  }

  /** `http://127.0.0.1:<listenPort>` */
  get url(): string {
    return `http://127.0.0.1:${this.opts.listenPort}`;
  }

  get pid(): number {
    if (!this.child?.pid) throw new Error('nginx is not running');
    return this.child.pid;
  }

  static async start(opts: NginxProxyOptions): Promise<NginxProxy> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'bullpen-nginx-'));
    // Run as root, nginx's workers drop to `nobody`: they must reach the temp paths below.
    chmodSync(dir, 0o755);
    const proxy = new NginxProxy(opts, dir);
    proxy.writeConfig(null);
    await proxy.launch();
    return proxy;
  }

  private writeConfig(pinned: number | null): void {
    const shipped = readFileSync(this.opts.confFile, 'utf8');
    writeFileSync(this.serverConf, rewriteShippedConf(shipped, this.opts.listenPort, this.opts.upstreamPorts, pinned));
    const d = this.dir;
    const tmp = path.join(d, 'tmp');
    mkdirSync(tmp, { recursive: true });
    writeFileSync(
      this.wrapperConf,
      [
        'daemon off;',
        'worker_processes 1;',
        `pid ${d}/nginx.pid;`,
        // A reload (pin) would otherwise wait for every open tab's live stream to end (docs/deploy.md).
        'worker_shutdown_timeout 1s;',
        // notice: the reload's "start worker process" / "exited" lines (see pin()).
        `error_log ${this.errorLog} notice;`,
        'events { worker_connections 256; }',
        'http {',
        `  log_format upstreams escape=json '{"method":"$request_method","uri":"$request_uri","status":$status,"upstream":"$upstream_addr","action":"$http_next_action","forwardedFor":"$http_x_forwarded_for","remote":"$remote_addr"}';`,
        `  access_log ${this.accessLogFile} upstreams;`,
        ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${tmp}/${t};`),
        ...(this.opts.bindAddress ? [`  proxy_bind ${this.opts.bindAddress};`] : []),
        `  include ${this.serverConf};`,
        '}',
        '',
      ].join('\n'),
    );
  }

  private async launch(): Promise<void> {
    const out = createWriteStream(path.join(this.dir, 'stdout.log'));
    const child = spawn(NGINX, ['-p', this.dir, '-c', this.wrapperConf, '-e', this.errorLog], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.pipe(out, { end: false });
    child.stderr!.pipe(out, { end: false });
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', (err) =>
        reject(new Error(`nginx could not be started: run \`bash scripts/system-deps.sh test\` (${err.message})`)),
      );
      child.once('exit', (code, signal) => {
        this.exited = { code, signal };
        out.end();
        resolve(this.exited);
      });
    });
    this.child = child;
    this.exit = exit;
    const deadline = Date.now() + 20_000;
    for (;;) {
      const early = await Promise.race([exit, new Promise((r) => setTimeout(r, 100, undefined))]);
      if (early) throw new Error(`nginx exited at start (${JSON.stringify(early)}):\n${this.tail()}`);
      if (await canConnect(this.opts.listenPort)) return;
      if (Date.now() > deadline) throw new Error(`nginx did not listen on ${this.opts.listenPort} within 20 s:\n${this.tail()}`);
    }
  }

  /**
   * Marks every upstream but `index` as `down` (null: all up again) and reloads (SIGHUP to
   * the master). Resolves once a new worker runs the new config and the old one has exited,
   * so every request after this goes where it says.
   */
  async pin(index: number | null): Promise<void> {
    const count = (re: RegExp) => (this.readText(this.errorLog).match(re) ?? []).length;
    const started = count(/start worker process \d+/g);
    const ended = count(/worker process \d+ exited/g);
    this.writeConfig(index);
    process.kill(this.pid, 'SIGHUP');
    const deadline = Date.now() + 30_000;
    while (count(/start worker process \d+/g) <= started || count(/worker process \d+ exited/g) <= ended) {
      if (this.exited) throw new Error(`nginx exited during a reload:\n${this.tail()}`);
      if (Date.now() > deadline) throw new Error(`nginx did not finish reloading within 30 s:\n${this.tail()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Every request logged so far, oldest first. */
  requests(): ProxiedRequest[] {
    return this.readText(this.accessLogFile)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ProxiedRequest);
  }

  /** The end of the error log, for messages. */
  tail(lines = 30): string {
    return this.readText(this.errorLog).split('\n').slice(-lines).join('\n');
  }

  /**
   * Stops the master by its PID (SIGTERM: nginx's fast shutdown, which stops its worker too),
   * SIGKILL after 15 s; copies the logs to `keepLogsIn` when given, then removes the prefix.
   */
  async stop(keepLogsIn?: string): Promise<void> {
    if (this.child && !this.exited) {
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child?.kill('SIGKILL'), 15_000);
      await this.exit;
      clearTimeout(timer);
    }
    if (keepLogsIn) {
      mkdirSync(keepLogsIn, { recursive: true });
      for (const f of ['access.log', 'error.log', 'nginx.conf', 'bullpen.conf']) {
        const from = path.join(this.dir, f);
        if (existsSync(from)) copyFileSync(from, path.join(keepLogsIn, `nginx-${f}`));
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private readText(file: string): string {
    try {
      return readFileSync(file, 'utf8');
    } catch {
      return '';
    }
  }
}

/**
 * The shipped server block with its `listen 80` moved to 127.0.0.1:`listenPort` and its
 * upstream servers to `upstreamPorts`; with `pinned`, every other upstream is marked
 * `down`. Nothing else changes. Throws when the file no longer has the shape this expects,
 * so a changed deploy file cannot silently escape the test.
 */
export function rewriteShippedConf(shipped: string, listenPort: number, upstreamPorts: number[], pinned: number | null = null): string {
  const listens = shipped.match(/^\s*listen\s+80;/gm) ?? [];
  if (listens.length !== 1) throw new Error(`expected one "listen 80;" in the shipped nginx config, found ${listens.length}`);
  const servers = shipped.match(/^\s*server\s+127\.0\.0\.1:\d+;/gm) ?? [];
  if (servers.length !== upstreamPorts.length) {
    throw new Error(`the shipped nginx config has ${servers.length} upstream servers; the test starts ${upstreamPorts.length}`);
  }
  let i = 0;
  return shipped
    .replace(/^(\s*)listen\s+80;/m, `$1listen 127.0.0.1:${listenPort};`)
    .replace(/^(\s*)server\s+127\.0\.0\.1:\d+;/gm, (_m, indent: string) => {
      const n = i++;
      const down = pinned !== null && n !== pinned ? ' down' : '';
      return `${indent}server 127.0.0.1:${upstreamPorts[n]}${down};`;
    });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
