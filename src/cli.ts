import { parseArgs } from 'node:util';
import { isRole, ROLES } from './auth/permissions.js';
import { TokenService } from './auth/tokens.js';
import { ConfigError, loadConfig } from './config.js';
import { migrateToLatest, openStorage } from './db/index.js';
import { acceptInvitations } from './features/organizations/invitations.repo.js';
import { ensureOrganization, ensureUser, setMembership } from './features/organizations/organizations.repo.js';
import { addOperatorOrigin, originFault } from './features/organizations/origins.js';
import { issuePersonalAccessToken } from './features/tokens/tokens.repo.js';
import { systemClock } from './lib/clock.js';
import { Keyring } from './lib/keys.js';
import { openApiDocument } from './openapi.js';
import { serve } from './server.js';

const HELP: Record<string, string> = {
  main: `Usage: sightline <command> [options]

Commands:
  serve          Start the API server (runs migrations first)
  migrate        Apply pending database migrations and exit
  token create   Create the organization/user if missing, set the role, mint a personal access token
  org allow-origin  Allow-list a CORS origin for an organization, beyond its plan's quota
  openapi        Print the OpenAPI 3.1 document

Configuration comes from the environment (PORT, HOST, DATABASE_URL, SIGHTLINE_PUBLIC_URL, ...).
Run 'sightline <command> --help' for a command's options.`,
  serve: `Usage: sightline serve

Starts the API server on HOST:PORT (default 0.0.0.0:8080) against DATABASE_URL
(unset: embedded SQLite at ./data/sightline.db). Migrations run at start.`,
  migrate: `Usage: sightline migrate

Applies every pending migration to DATABASE_URL and exits. Safe to run from several hosts at once.`,
  token: `Usage: sightline token create --email <email> --org <name> --role <role> [--name <token name>] [--expires-in-days <days>]

Creates the organization (by name) and the user (by email) if missing, sets the user's role there
(${ROLES.join(', ')}), mints a personal access token and prints it alone on the last line of stdout.
A new organization gets the default plan (SIGHTLINE_DEFAULT_PLAN). The user also joins every
organization that invited their email, with the invited role.`,
  org: `Usage: sightline org allow-origin <organization name or id> <origin>

Allow-lists an exact origin (https://host[:port], or http://localhost:<port>) for the organization,
in addition to (and not counted against) the custom origins its plan allows.`,
  openapi: `Usage: sightline openapi

Prints the OpenAPI 3.1 document of this build to stdout.`,
};

class UsageError extends Error {}

async function tokenCreate(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      email: { type: 'string' },
      org: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      'expires-in-days': { type: 'string' },
      help: { type: 'boolean' },
    },
    strict: true,
  });
  if (values.help) {
    console.log(HELP.token);
    return;
  }
  const config = loadConfig();
  const email = values.email?.trim();
  if (!email || !/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError('--email <email> is required');
  if (!values.org?.trim()) throw new UsageError('--org <name> is required');
  if (!isRole(values.role)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  const daysRaw = values['expires-in-days'];
  const days = daysRaw === undefined ? config.patDefaultDays : /^\d+$/.test(daysRaw) ? Number(daysRaw) : NaN;
  if (!Number.isInteger(days) || days < config.patMinDays || days > config.patMaxDays) {
    throw new UsageError(`--expires-in-days must be an integer between ${config.patMinDays} and ${config.patMaxDays}`);
  }
  const storage = await openStorage(config.database);
  try {
    await migrateToLatest(storage.db);
    const clock = systemClock;
    const keys = new Keyring(storage.db, clock);
    await keys.init();
    const tokens = new TokenService(storage.db, keys, config, clock);
    const now = clock.now();
    const org = await ensureOrganization(storage.db, values.org.trim(), config.defaultPlan, now);
    const user = await ensureUser(storage.db, email, email.split('@')[0] ?? email, now);
    // Like a first sign-in: pending invitations become memberships (the role given here wins for --org).
    await acceptInvitations(storage.db, user.id, user.email, now);
    await setMembership(storage.db, org.id, user.id, values.role, now);
    const { row, token } = await issuePersonalAccessToken(
      storage.db,
      tokens,
      { organizationId: org.id, userId: user.id, name: values.name ?? 'cli', expiresInDays: days },
      now,
    );
    console.log(`organization ${org.id} (${org.name}); user ${user.id} (${user.email}) is ${values.role}`);
    console.log(`token ${row.id} expires ${new Date(row.expires_at).toISOString()}`);
    console.log(token);
  } finally {
    await storage.close();
  }
}

async function orgAllowOrigin(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args: argv, options: { help: { type: 'boolean' } }, allowPositionals: true, strict: true });
  if (values.help) {
    console.log(HELP.org);
    return;
  }
  const [name, origin, ...extra] = positionals;
  if (!name?.trim() || !origin || extra.length > 0) throw new UsageError('usage: sightline org allow-origin <organization name or id> <origin>');
  const fault = originFault(origin);
  if (fault) throw new UsageError(`${origin}: ${fault}`);
  const config = loadConfig();
  const storage = await openStorage(config.database);
  try {
    await migrateToLatest(storage.db);
    const org = await storage.db.selectFrom('organizations').select(['id', 'name']).where((eb) => eb.or([eb('name', '=', name.trim()), eb('id', '=', name.trim())])).executeTakeFirst();
    if (!org) throw new UsageError(`no organization named (or with id) ${JSON.stringify(name.trim())}`);
    await addOperatorOrigin(storage.db, org.id, origin, systemClock.now());
    console.log(`organization ${org.id} (${org.name}) allows ${origin}`);
  } finally {
    await storage.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      console.log(HELP.main);
      return command === undefined ? 1 : 0;
    }
    if (rest.includes('--help') && command !== 'token' && command !== 'org') {
      console.log(HELP[command] ?? HELP.main);
      return HELP[command] ? 0 : 1;
    }
    switch (command) {
      case 'serve':
        await serve(loadConfig());
        return -1; // keep running
      case 'migrate': {
        const storage = await openStorage(loadConfig().database);
        try {
          const result = await migrateToLatest(storage.db);
          const applied = result.results?.filter((r) => r.status === 'Success').map((r) => r.migrationName) ?? [];
          console.log(applied.length === 0 ? 'Database is up to date.' : `Applied: ${applied.join(', ')}`);
        } finally {
          await storage.close();
        }
        return 0;
      }
      case 'token': {
        const [sub, ...args] = rest;
        if (sub === undefined || sub === '--help') {
          console.log(HELP.token);
          return sub === undefined ? 1 : 0;
        }
        if (sub !== 'create') throw new UsageError(`unknown command 'token ${sub}'`);
        await tokenCreate(args);
        return 0;
      }
      case 'org': {
        const [sub, ...args] = rest;
        if (sub === undefined || sub === '--help') {
          console.log(HELP.org);
          return sub === undefined ? 1 : 0;
        }
        if (sub !== 'allow-origin') throw new UsageError(`unknown command 'org ${sub}'`);
        await orgAllowOrigin(args);
        return 0;
      }
      case 'openapi':
        process.stdout.write(`${JSON.stringify(await openApiDocument(), null, 2)}\n`);
        return 0;
      default:
        throw new UsageError(`unknown command '${command}'. Run 'sightline --help'.`);
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      console.error(`sightline: ${error.message}`);
      return 2;
    }
    if (error instanceof TypeError && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`sightline: ${error.message}`);
      return 2;
    }
    throw error;
  }
}
