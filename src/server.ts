import { buildApp, loggerOptions } from './app.js';
import type { Config } from './config.js';
import { migrateToLatest, openStorage } from './db/index.js';
import { type GrpcReceiver, startGrpcReceiver } from './features/otlp/index.js';

/**
 * Starts the service: migrations, then listen (HTTP, then OTLP/gRPC); SIGTERM/SIGINT finish in-flight
 * calls and requests, gRPC first (its calls are HTTP requests inside), and close the database.
 */
export async function serve(config: Config): Promise<void> {
  const storage = await openStorage(config, { checkpointer: true });
  await migrateToLatest(storage.db);
  const app = await buildApp({ config, storage, logger: loggerOptions(config), background: true });
  let grpcReceiver: GrpcReceiver | null = null;
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
      await grpcReceiver?.close(10_000);
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
  if (config.otlpGrpc) {
    try {
      grpcReceiver = await startGrpcReceiver(app, { host: config.host, ...config.otlpGrpc, limits: config.otlpGrpcCalls, problemBase: config.problemBase });
    } catch (error) {
      // A port set explicitly and taken: start-up stops with the one line the CLI prints.
      await app.close();
      await storage.close();
      throw error;
    }
  }
}
