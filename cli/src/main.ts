import { Command, InvalidArgumentError, Option } from 'commander';
import { createDam } from '../../sdk/src/index.js';
import { downloadCommand } from './download.js';
import { formatBytes, table } from './format.js';
import { ask } from './prompt.js';
import { searchPages } from './search.js';
import { CliError, loadSession, removeSession, requireDam, saveSession } from './session.js';
import { uploadCommand } from './upload.js';

/** `dam search --all`: every hit, bounded all the same (a million documents, 4,000 pages). */
const SEARCH_ALL_LIMIT = 1_000_000;

const positiveInt = (what: string) => (value: string) => {
  if (!/^[1-9][0-9]{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) throw new InvalidArgumentError(`${what} must be a positive integer`);
  return Number(value);
};
const collect = (value: string, previous: string[]) => [...previous, value];
const collectIds = (value: string, previous: number[] = []) => [...previous, positiveInt('an asset id')(value)];
const errorText = (error: unknown) => ((error as { error?: unknown } | undefined)?.error as string | undefined) ?? 'no message';

/** Commands set process.exitCode; a CliError (or an API failure) is one line on stderr and exit code 1. */
function action<A extends unknown[]>(fn: (...args: A) => Promise<number | void>) {
  return async (...args: A) => {
    try {
      const code = await fn(...args);
      process.exitCode = code ?? 0;
    } catch (err) {
      process.stderr.write(`dam: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    }
  };
}

const program = new Command('dam')
  .description('Command-line client of the DAM service: bulk upload of folder trees with duplicate detection, downloads, search')
  .version('0.1.0')
  .showHelpAfterError()
  .addHelpText('after', '\nThe session is stored in $DAM_CONFIG_DIR, else $XDG_CONFIG_HOME/dam, else ~/.config/dam (session.json, mode 0600).');

program
  .command('login')
  .description('Sign in to an instance and store the session (the password is prompted for, or read from stdin when it is not a terminal)')
  .requiredOption('--url <url>', 'the instance, e.g. https://dam.example.com')
  .option('--email <email>', 'account e-mail (prompted for when missing)')
  .option('--token <token>', 'use an existing bearer token instead of a password')
  .action(
    action(async (o: { url: string; email?: string; token?: string }) => {
      let url: URL;
      try {
        url = new URL(o.url);
      } catch {
        throw new CliError(`--url ${o.url} is not a URL`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new CliError('--url must be http(s)');
      const baseUrl = url.href.replace(/\/+$/, '');
      let token = o.token;
      if (!token) {
        const email = o.email ?? (await ask('E-mail: '));
        const password = await ask('Password: ', true);
        const dam = createDam({ baseUrl });
        const { data, error, response } = await dam.api.POST('/auth/login', { body: { email, password } });
        if (!data) throw new CliError(`login failed: ${response.status} ${errorText(error)}`);
        token = data.token;
      }
      const { data, error, response } = await createDam({ baseUrl, token }).api.GET('/auth/me');
      if (!data) throw new CliError(`the token was refused: ${response.status} ${errorText(error)}`);
      const file = await saveSession({ url: baseUrl, token, email: data.user.email });
      process.stdout.write(`logged in to ${baseUrl} as ${data.user.email} (session in ${file})\n`);
    }),
  );

program
  .command('logout')
  .description('Revoke the session on the server and remove it from this machine')
  .action(
    action(async () => {
      const session = await loadSession();
      if (!session) {
        process.stdout.write('not logged in\n');
        return;
      }
      // Removed locally even when the server cannot be reached: the user asked to be signed out here.
      const { response } = await createDam({ baseUrl: session.url, token: session.token })
        .api.POST('/auth/logout', { body: null })
        .catch(() => ({ response: undefined }));
      await removeSession();
      process.stdout.write(`logged out of ${session.url}${response?.ok ? '' : ' (the server could not revoke the session)'}\n`);
    }),
  );

program
  .command('whoami')
  .description('The signed-in user and instance')
  .option('--json', 'as JSON')
  .action(
    action(async (o: { json?: boolean }) => {
      const { dam, session } = await requireDam();
      const { data, error, response } = await dam.api.GET('/auth/me');
      if (!data) throw new CliError(`${response.status === 401 ? 'the session is no longer valid: run dam login again' : `${response.status} ${errorText(error)}`}`);
      if (o.json) process.stdout.write(`${JSON.stringify({ url: session.url, user: data.user }, null, 2)}\n`);
      else process.stdout.write(`${data.user.email}${data.user.name ? ` (${data.user.name})` : ''} on ${session.url}\n`);
    }),
  );

program
  .command('workspaces')
  .description('The workspaces you belong to, with your role')
  .option('--json', 'as JSON')
  .action(
    action(async (o: { json?: boolean }) => {
      const { dam } = await requireDam();
      const { data, error, response } = await dam.api.GET('/workspaces');
      if (!data) throw new CliError(`${response.status} ${errorText(error)}`);
      if (o.json) process.stdout.write(`${JSON.stringify(data.data, null, 2)}\n`);
      else process.stdout.write(`${table([['ID', 'NAME', 'ROLE'], ...data.data.map((w) => [String(w.id), w.name, w.role])])}\n`);
    }),
  );

program
  .command('upload')
  .description(
    'Upload files and directory trees: directories become folders, files the workspace already has (same SHA-256) are ' +
      'skipped, an interrupted run resumes when the same command is run again. Exit code 1 when any file failed.',
  )
  .argument('<path...>', 'files and directories')
  .option('-w, --workspace <id>', 'target workspace (default: the workspace of --folder)', positiveInt('--workspace'))
  .option('-f, --folder <id>', 'put everything under this folder (default: the top level)', positiveInt('--folder'))
  .option('-r, --recursive', 'include the sub-directories of directories, as sub-folders', false)
  .option('-c, --concurrency <n>', 'files uploaded at once', positiveInt('--concurrency'), 4)
  .option('--part-size <mib>', 'multipart part size in MiB (default 32, raised to what the server requires)', positiveInt('--part-size'))
  .option('--include <glob>', 'only files matching (repeatable; a pattern without / matches the base name)', collect, [])
  .option('--exclude <glob>', 'skip files and directories matching (repeatable)', collect, [])
  .option('--tag <tag>', 'tag every uploaded file (repeatable)', collect, [])
  .option('--dry-run', 'list what would be uploaded and skipped, change nothing', false)
  .option('--include-hidden', 'also upload hidden files and OS debris inside directories (.DS_Store, Thumbs.db, *.tmp, __MACOSX)', false)
  .option('--state <file>', 'resume record (default: one per command line in the config directory)')
  .option('--json', 'print the summary as JSON (no progress output)', false)
  .addOption(new Option('--no-progress', 'plain lines even on a terminal'))
  .action(
    action(async (paths: string[], o: Parameters<typeof uploadCommand>[1] & { progress: boolean; partSize?: number }) =>
      uploadCommand(paths, {
        ...o,
        ...(o.partSize !== undefined && { partSize: o.partSize * 1024 * 1024 }),
        progress: o.progress === false ? false : undefined,
      }),
    ),
  );

program
  .command('download')
  .description('Download assets, a folder (its tree, file by file, or one ZIP with --zip) or the hits of a search')
  .option('--asset <id>', 'an asset (repeatable)', collectIds)
  .option('--folder <id>', 'a folder and all its sub-folders', positiveInt('--folder'))
  .option('--search <query>', 'every asset a search finds')
  .option('--filter <expr>', 'with --search: a filter_by expression, e.g. "file_type:=image"')
  .option('-w, --workspace <id>', 'with --search: only this workspace', positiveInt('--workspace'))
  .option('--zip', 'with --folder: one ZIP archive from the server instead of file by file', false)
  .option('-c, --concurrency <n>', 'files downloaded at once', positiveInt('--concurrency'), 4)
  .requiredOption('-o, --out <dir>', 'directory to write into (made when missing)')
  .action(action(async (o: Parameters<typeof downloadCommand>[0]) => downloadCommand(o)));

program
  .command('search')
  .description('Search assets by text, with an optional filter')
  .argument('<query>', 'words to find, or * for everything')
  .option('--filter <expr>', 'a filter_by expression, e.g. "file_type:=image && tags:=[beach]"')
  .option('-w, --workspace <id>', 'only this workspace', positiveInt('--workspace'))
  .option('--limit <n>', 'at most this many hits', positiveInt('--limit'), 50)
  .option('--all', 'every hit, page after page (instead of --limit)', false)
  .option('--json', 'the hits\' documents as a JSON array', false)
  .action(
    action(async (q: string, o: { filter?: string; workspace?: number; limit: number; all: boolean; json: boolean }) => {
      const { dam } = await requireDam();
      const { hits, found } = await searchPages(dam, { q, filter: o.filter, workspace: o.workspace, limit: o.all ? SEARCH_ALL_LIMIT : o.limit });
      if (o.json) process.stdout.write(`${JSON.stringify(hits, null, 2)}\n`);
      else {
        const rows = hits.map((d) => [d.id, String(d.workspace_id), d.file_type, d.file_size === undefined ? '' : formatBytes(d.file_size), d.display_file_name]);
        process.stdout.write(`${table([['ID', 'WORKSPACE', 'TYPE', 'SIZE', 'NAME'], ...rows])}\n`);
      }
      // On stderr, so that --json and pipes read the hits alone.
      if (found > hits.length) process.stderr.write(`showing the first ${hits.length} of ${found} hits; --limit <n> or --all for more\n`);
      else if (!o.json) process.stderr.write(`${found} ${found === 1 ? 'hit' : 'hits'}\n`);
    }),
  );

program
  .command('versions')
  .description('The versions of an asset, newest first')
  .argument('<asset>', 'asset id', positiveInt('the asset id'))
  .option('--json', 'as JSON', false)
  .action(
    action(async (assetId: number, o: { json: boolean }) => {
      const { dam } = await requireDam();
      const { data, error, response } = await dam.api.GET('/dam/assets/{id}/versions', { params: { path: { id: assetId } } });
      if (!data) throw new CliError(`asset ${assetId}: ${response.status === 404 ? 'not found (or not in a workspace of yours)' : `${response.status} ${errorText(error)}`}`);
      if (o.json) process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
      else {
        const rows = data.map((v) => [v.version, String(v.id), v.is_current ? '*' : '', formatBytes(v.file_size), v.created_at, v.created_by, v.file_name]);
        process.stdout.write(`${table([['VERSION', 'ID', 'CURRENT', 'SIZE', 'CREATED', 'BY', 'FILE'], ...rows])}\n`);
      }
    }),
  );

await program.parseAsync(process.argv);
