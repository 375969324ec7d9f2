// The baseline of the read benchmark: a bare Fastify 5 process with one route, at the same path as the
// real list, that answers a fixed page captured from the real server (25 runs, same shape and size).
// No auth, no database, no schemas: the handler returns the parsed page and Fastify serializes it with
// JSON.stringify on every request, as an ordinary handler would.
// Env: PORT, HOST (default 127.0.0.1), BARE_PAGE_FILE (the captured JSON body).
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const page = JSON.parse(readFileSync(process.env.BARE_PAGE_FILE, 'utf8'));
const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
app.get('/v1/projects/:project_id/runs', async () => page);

const stop = async () => {
  await app.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST || '127.0.0.1' });
