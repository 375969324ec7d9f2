// The baseline of the read benchmarks: a bare Fastify 5 process (no auth, no database, no schemas),
// pinned to the server core like the real server, answering what was captured from the real server.
// Env: PORT, HOST (default 127.0.0.1), and one of
//   BARE_BODIES_FILE  JSON `{ "<path and query>": { "file": "<file of the captured body>", "headers": {…} } }`:
//                     each URL answered with its captured bytes, byte for byte (bench/ratios.js), as
//                     `application/json; charset=utf-8`, with the captured header fields (the API's request
//                     id, security headers, rate limits and cache control, as they were: constants here);
//   BARE_PAGE_FILE    one captured runs page, served at GET /v1/projects/:project_id/runs: parsed once and
//                     serialized with JSON.stringify on every request, as an ordinary handler would (bench/million.js).
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/healthz', async () => ({ status: 'ok' }));
if (process.env.BARE_BODIES_FILE) {
  const files = JSON.parse(readFileSync(process.env.BARE_BODIES_FILE, 'utf8'));
  const answers = new Map(Object.entries(files).map(([url, { file, headers }]) => [url, { body: readFileSync(file), headers }]));
  app.get('/*', (request, reply) => {
    const answer = answers.get(request.url);
    if (answer === undefined) return reply.code(404).send({ error: 'not captured' });
    return reply.headers(answer.headers).type('application/json; charset=utf-8').send(answer.body);
  });
} else {
  const page = JSON.parse(readFileSync(process.env.BARE_PAGE_FILE, 'utf8'));
  app.get('/v1/projects/:project_id/runs', async () => page);
}

const stop = async () => {
  await app.close();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST || '127.0.0.1' });
