import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { migrateToLatest, openStorage } from './db/index.js';

/**
 * The OpenAPI 3.1 document, generated from the route schemas with a canonical configuration so that the
 * committed openapi.json does not depend on where it was generated.
 */
export async function openApiDocument(): Promise<unknown> {
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', SIGHTLINE_PUBLIC_URL: 'http://localhost:8080', LOG_LEVEL: 'silent' });
  const storage = await openStorage(config);
  try {
    await migrateToLatest(storage.db);
    const app = await buildApp({ config, storage });
    await app.ready();
    const document = app.swagger();
    await app.close();
    return document;
  } finally {
    await storage.close();
  }
}
