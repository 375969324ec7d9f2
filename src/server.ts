import { buildApp, loggerOptions } from './app.js';
import type { Config } from './config.js';
import { migrateToLatest, openStorage } from './db/index.js';

/** Starts the service: migrations, then listen; SIGTERM/SIGINT finish in-flight requests and close the database. */
export async function serve(config: Config): Promise<void> {
  const storage = await openStorage(config);
  await migrateToLatest(storage.db);
  const app = await buildApp({ config, storage, logger: loggerOptions(config), background: true });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      app.log.error('shutdown timed out after 25s; exiting');
      process.exit(1);
    }, 25_000);
    force.unref();
    try {
      await app.close();
      await storage.close();
      app.log.info('shutdown complete');
      process.exit(0);
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  await app.listen({ port: config.port, host: config.host });
  app.log.info(
    { database: config.database.kind, publicUrl: config.publicUrl },
    `Sightline listening on ${config.host}:${config.port}: dashboard at ${config.publicUrl}/, API reference at ${config.publicUrl}/docs`,
  );
}
