/** The CLI's help texts (`sightline --help`, `sightline <command> --help`). */
import { ROLES } from './auth/roles.js';
const REMOTE_NOTE = `The service's address comes from --url or SIGHTLINE_URL (default http://localhost:8080), the
personal access token from SIGHTLINE_TOKEN. Exit status: 0 done, 1 the API or the network failed,
2 bad usage, 130 interrupted.`;

export const HELP: Record<string, string> = {
  main: `Usage: sightline <command> [options]

Commands:
  serve          Start the API server (runs migrations first)
  migrate        Apply pending database migrations and exit
  token create   Create the organization/user if missing, set the role, mint a personal access token
  org allow-origin  Allow-list a CORS origin for an organization, beyond its plan's quota
  openapi        Print the OpenAPI 3.1 document

Remote commands (talk to a running service: --url or SIGHTLINE_URL, token in SIGHTLINE_TOKEN):
  projects list  List the projects
  runs list      List a project's runs (table or --json), following every page
  runs export    Stream every run of a project as NDJSON, resumable from a cursor
  prompts get    Print a prompt's version (latest, --label or --version)

Configuration comes from the environment (PORT, HOST, DATABASE_URL, SIGHTLINE_PUBLIC_URL, ...).
Run 'sightline <command> --help' for a command's options.`,
  serve: `Usage: sightline serve

Starts the API server on HOST:PORT (default 0.0.0.0:8080) against DATABASE_URL
(unset: embedded SQLite at ./data/sightline.db). Migrations run at start.`,
  migrate: `Usage: sightline migrate

Applies every pending migration to DATABASE_URL and exits. Safe to run from several hosts at once.`,
  token: `Usage: sightline token create --email <email> --org <name> --role <role> [--name <token name>] [--expires-in-days <days>]
                             [--scopes <scope,...>] [--projects <project id,...>]

Creates the organization (by name) and the user (by email) if missing, sets the user's role there
(${ROLES.join(', ')}), mints a personal access token and prints it alone on the last line of stdout.
A new organization gets the default plan (SIGHTLINE_DEFAULT_PLAN). The user also joins every
organization that invited their email, with the invited role. --scopes and --projects narrow the token
(for an exporter: --scopes runs:write --projects prj_...): scopes the role grants, projects of the
organization.`,
  org: `Usage: sightline org allow-origin <organization name or id> <origin>

Allow-lists an exact origin (https://host[:port], or http://localhost:<port>) for the organization,
in addition to (and not counted against) the custom origins its plan allows.`,
  openapi: `Usage: sightline openapi

Prints the OpenAPI 3.1 document of this build to stdout.`,
  projects: `Usage: sightline projects list [--name <substring>] [--json] [--url <url>]

Lists the projects of the token's organization, newest first: a table, or a JSON array with --json.
${REMOTE_NOTE}`,
  runs: `Usage: sightline runs list --project <id> [filters] [--json] [--progress | --quiet] [--url <url>]
       sightline runs export --project <id> --format ndjson [filters] [--cursor <cursor>] [--progress] [--url <url>]

runs list    prints the runs (newest first) as a table, or a JSON array with --json, following every
             page; on a terminal a progress line shows on stderr during long walks (--quiet: none;
             --progress: a line per page even when stderr is not a terminal).
runs export  streams every run to stdout, one JSON object per line. When interrupted (Ctrl-C) or
             stopped by an error it prints the cursor to resume from on stderr ("resume-cursor: …"):
             run it again with the same filters and --cursor to continue without gaps or repeats.

Filters (the runs list's, combined with AND): --status running|succeeded|failed, --kind <kind>,
--name <exact name>, --tag <tag> (repeatable: all must match), --model <model>, --trace-id <id>,
--parent-run-id <id|null> (null: root runs only), --started-after <RFC 3339>, --started-before <RFC 3339>,
--metadata <key>=<value> (repeatable). --limit <1..100> sets the page size (default 100).
${REMOTE_NOTE}`,
  prompts: `Usage: sightline prompts get NAME [--label <label> | --version <n>] [--json] [--url <url>]

Prints a prompt's template: the latest version, the version a label (such as production) points at,
or a numbered version. A line about the version (number, variables, config) goes to stderr; --json
prints the whole version record instead.
${REMOTE_NOTE}`,
};
