import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { can, inTableOrder, isRole, isScope, ROLES, type Role, type Scope } from './auth/permissions.js';
import { TokenService } from './auth/tokens.js';
import { ConfigError, loadConfig } from './config.js';
import { migrateToLatest, openStorage } from './db/index.js';
import {
  acceptInvitations,
  addOperatorOrigin,
  ensureOrganization,
  ensureUser,
  findOrganization,
  originFault,
  setMembership,
} from './features/organizations/index.js';
import { issuePersonalAccessToken, projectsOfOrganization } from './features/tokens/index.js';
import { systemClock } from './lib/clock.js';
import { Keyring } from './lib/keys.js';
import { openApiDocument } from './openapi.js';
import { serve } from './server.js';
import { HELP } from './cli.help.js';
import { cliActor } from './db/audit.js';

class UsageError extends Error {}

interface RemoteCli {
  runCli(
    argv: string[],
    io: {
      stdout(text: string): void | Promise<void>;
      stderr(text: string): void;
      env: Record<string, string | undefined>;
      stderrIsTTY?: boolean;
      signal?: AbortSignal;
    },
  ): Promise<number>;
}

/**
 * The remote commands run on the client SDK (packages/client). The SDK is its own package compiled
 * apart from the service (it must not depend on the server's build), so it is loaded from its
 * dist/, which is built from its sources here when missing or stale.
 */
async function loadRemoteCli(): Promise<RemoteCli> {
  const root = new URL('../', import.meta.url); // the checkout, from src/ and from dist/ alike
  const build = new URL('packages/client/build.mjs', root);
  if (!existsSync(fileURLToPath(build)))
    throw new UsageError('the remote commands need the client SDK (packages/client), which this installation does not have');
  const { ensureBuilt } = (await import(build.href)) as { ensureBuilt(): void };
  ensureBuilt();
  return (await import(new URL('packages/client/dist/cli.js', root).href)) as RemoteCli;
}

async function remote(argv: string[]): Promise<number> {
  const { runCli } = await loadRemoteCli();
  const controller = new AbortController();
  const interrupt = () => controller.abort(new Error('interrupted'));
  // A reader that went away (`| head`): stop walking; nothing more can be written.
  let stdoutClosed = false;
  const brokenPipe = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') return;
    stdoutClosed = true;
    interrupt();
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  process.stdout.on('error', brokenPipe);
  try {
    return await runCli(argv, {
      stdout: (text) => {
        // Still written after Ctrl-C: `runs export` counts a page as done once it is written.
        if (stdoutClosed) return;
        if (process.stdout.write(text)) return;
        // Backpressure: wait for the pipe to drain (or for the walk to be stopped).
        return new Promise<void>((resolve) => {
          const done = () => {
            process.stdout.off('drain', done);
            controller.signal.removeEventListener('abort', done);
            resolve();
          };
          process.stdout.once('drain', done);
          controller.signal.addEventListener('abort', done, { once: true });
        });
      },
      stderr: (text) => void process.stderr.write(text),
      env: process.env,
      stderrIsTTY: process.stderr.isTTY === true,
      signal: controller.signal,
    });
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
    process.stdout.off('error', brokenPipe);
  }
}

async function tokenCreate(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      email: { type: 'string' },
      org: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      'expires-in-days': { type: 'string' },
      scopes: { type: 'string' },
      projects: { type: 'string' },
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
  // A scoped token (docs/tokens-and-access.md, Scoped tokens): scopes the role grants, projects of the organization.
  const list = (text: string | undefined) => (text === undefined ? null : [...new Set(text.split(',').map((item) => item.trim()))].filter(Boolean));
  const scopes = list(values.scopes);
  if (scopes !== null) {
    const refused = scopes.filter((scope) => !isScope(scope) || !can(values.role as Role, scope));
    if (scopes.length === 0 || refused.length > 0)
      throw new UsageError(`--scopes must name scopes the role ${values.role} grants: ${refused.join(', ') || '(none given)'}`);
  }
  const projectIds = list(values.projects);
  if (projectIds !== null && projectIds.length === 0) throw new UsageError('--projects must name project ids');
  const storage = await openStorage(config);
  try {
    await migrateToLatest(storage.db);
    const clock = systemClock;
    const keys = new Keyring(storage.db, clock, config.keys);
    await keys.init();
    const tokens = new TokenService(storage.db, keys, config, clock);
    const now = clock.now();
    const org = await ensureOrganization(storage.db, values.org.trim(), config.defaultPlan, now);
    const user = await ensureUser(storage.db, email, email.split('@')[0] ?? email, now);
    // Like a first sign-in: pending invitations become memberships (the role given here wins for --org).
    await acceptInvitations(storage.db, user.id, user.email, now, cliActor(user.id));
    await setMembership(storage.db, org.id, user.id, values.role, now, cliActor(user.id));
    if (projectIds !== null) {
      const found = await projectsOfOrganization(storage.db, org.id, projectIds);
      const missing = projectIds.filter((id) => !found.has(id));
      if (missing.length > 0) throw new UsageError(`--projects: no project ${missing.join(', ')} in ${org.name}`);
    }
    const limits = { scopes: scopes === null ? null : inTableOrder(scopes as Scope[]), projectIds };
    const { row, token } = await issuePersonalAccessToken(
      storage.db,
      tokens,
      { organizationId: org.id, userId: user.id, name: values.name ?? 'cli', expiresInDays: days, limits, actor: cliActor(user.id) },
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
  const storage = await openStorage(config);
  try {
    await migrateToLatest(storage.db);
    const org = await findOrganization(storage.db, name.trim());
    if (!org) throw new UsageError(`no organization named (or with id) ${JSON.stringify(name.trim())}`);
    await addOperatorOrigin(storage.db, org.id, origin, systemClock.now());
    console.log(`organization ${org.id} (${org.name}) allows ${origin}`);
  } finally {
    await storage.close();
  }
}

/** A command group with one subcommand (`token create`, `org allow-origin`): its help without one. */
async function subcommand(group: 'token' | 'org', rest: string[], name: string, run: (args: string[]) => Promise<void>): Promise<number> {
  const [sub, ...args] = rest;
  if (sub === undefined || sub === '--help') {
    console.log(HELP[group]);
    return sub === undefined ? 1 : 0;
  }
  if (sub !== name) throw new UsageError(`unknown command '${group} ${sub}'`);
  await run(args);
  return 0;
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
        const storage = await openStorage(loadConfig());
        try {
          const result = await migrateToLatest(storage.db);
          const applied = result.results?.filter((r) => r.status === 'Success').map((r) => r.migrationName) ?? [];
          console.log(applied.length === 0 ? 'Database is up to date.' : `Applied: ${applied.join(', ')}`);
        } finally {
          await storage.close();
        }
        return 0;
      }
      case 'token':
        return await subcommand(command, rest, 'create', tokenCreate);
      case 'org':
        return await subcommand(command, rest, 'allow-origin', orgAllowOrigin);
      case 'openapi': {
        const text = `${JSON.stringify(await openApiDocument(), null, 2)}\n`;
        // Written whole before the process exits: a pipe (`| jq`, `| cmp -`) takes it in pieces.
        await new Promise<void>((resolve, reject) => process.stdout.write(text, (error) => (error ? reject(error) : resolve())));
        return 0;
      }
      case 'projects':
      case 'runs':
      case 'prompts':
        if (rest.length === 0) {
          console.log(HELP[command]);
          return 1;
        }
        return await remote([command, ...rest]);
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
