// `tsad playground [--port N]`: serves the playground's static build (dist/playground, made by
// `npm run build:playground`) on localhost. The page needs nothing of the server but its files: the
// compiler runs in the browser.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

const DEFAULT_PORT = 8765;

const HELP = `tsad playground [--port N]: serve the playground (an editor showing derivatives as you type) at
http://127.0.0.1:N/ (default port ${DEFAULT_PORT}; 0 picks a free one). Stop it with Ctrl-C.`;

/** A server of the files under `dir` (GET and HEAD only; nothing outside `dir` is reachable). */
export function staticServer(dir: string): Server {
  return createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD' }).end();
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const file = normalize(join(dir, path.endsWith('/') ? `${path}index.html` : path));
    if (!(file + sep).startsWith(normalize(dir + sep)) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    const body = readFileSync(file);
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', 'Content-Length': body.length, 'Cache-Control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
}

/** the build beside the CLI's: dist/src/cli/playground.js → dist/playground */
function buildDir(): string {
  return fileURLToPath(new URL('../../playground/', import.meta.url));
}

/** The `playground` subcommand; exits 2 on bad usage, 1 when there is no build to serve. */
export function playgroundCommand(argv: string[]): void {
  let port = DEFAULT_PORT;
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    if (flag === '--help' || flag === '-h') {
      process.stdout.write(HELP + '\n');
      return;
    }
    if (flag !== '--port') {
      process.stderr.write(`tsad playground: unknown argument '${argv[i]}'\n${HELP}\n`);
      process.exit(2);
    }
    const v = inline ?? argv[++i];
    if (v === undefined || !/^\d+$/.test(v) || Number(v) > 65535) {
      process.stderr.write(`tsad playground: --port takes a port number (0 to 65535), not ${v === undefined ? 'nothing' : `'${v}'`}\n`);
      process.exit(2);
    }
    port = Number(v);
  }
  const dir = buildDir();
  if (!existsSync(join(dir, 'index.html'))) {
    process.stderr.write(`tsad playground: no build at ${dir}\n  hint: build it in a clone of tsad with \`npm run build:playground\`, then run \`npx tsad playground\` there\n`);
    process.exit(1);
  }
  const server = staticServer(dir);
  server.on('error', (e: NodeJS.ErrnoException) => {
    process.stderr.write(`tsad playground: cannot listen on port ${port}: ${e.code ?? e.message}${e.code === 'EADDRINUSE' ? ' (try another --port)' : ''}\n`);
    process.exit(1);
  });
  server.listen(port, '127.0.0.1', () => {
    const address = server.address();
    const actual = typeof address === 'object' && address ? address.port : port;
    process.stdout.write(`tsad playground: serving ${dir} at http://127.0.0.1:${actual}/ (Ctrl-C to stop)\n`);
  });
}
