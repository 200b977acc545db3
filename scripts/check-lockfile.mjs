// `npm run check:lockfile` (issue #28): what can be checked of the dependencies without any service.
// No advisory database is reachable from this project's machines (docs/SECURITY.md, "Dependency advisories"),
// so CI checks instead that every installed package comes from the registry with a pinned hash:
// - every package of package-lock.json has an `integrity` of sha512 (npm ci then refuses a tarball
//   whose bytes differ, whoever serves it);
// - a `resolved` URL, where the lockfile keeps one (npm leaves the registry's own out when
//   omit-lockfile-registry-resolved is set), is under the registry npm is configured with; no package
//   is fetched from git, a tarball URL or a local path (a `version` that is not a plain version);
// - every dependency of package.json is pinned to one exact version, as the lockfile holds it.
// Usage: node scripts/check-lockfile.mjs [package-lock.json] [package.json]; exit 1 with each problem.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import process from 'node:process';

const EXACT = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** The registry npm uses here: `npm run` passes it in the environment; run directly, npm is asked. */
function configuredRegistry() {
  const registry = process.env.npm_config_registry || execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim();
  const url = new URL(registry);
  if (url.protocol !== 'https:') throw new Error(`the configured registry ${url.origin} is not https`);
  return registry.endsWith('/') ? registry : `${registry}/`;
}

export function lockfileProblems(lock, manifest, registry) {
  const problems = [];
  if (lock.lockfileVersion < 2 || !lock.packages) return [`lockfileVersion ${lock.lockfileVersion}: npm 7 or later writes the "packages" map this check reads`];
  for (const [where, entry] of Object.entries(lock.packages)) {
    // The root (the project itself) and links to folders of its own are not downloaded.
    if (where === '' || entry.link) continue;
    if (!EXACT.test(entry.version ?? '')) problems.push(`${where}: version "${entry.version}" is not a registry version (git, URL or path dependency)`);
    if (!entry.integrity) problems.push(`${where}: no integrity hash`);
    else if (!entry.integrity.split(/\s+/).every((hash) => hash.startsWith('sha512-'))) problems.push(`${where}: integrity is not sha512 (${entry.integrity.slice(0, 12)}...)`);
    if (entry.resolved !== undefined && !entry.resolved.startsWith(registry)) problems.push(`${where}: resolved from ${entry.resolved}, outside the registry ${registry}`);
  }
  for (const field of ['dependencies', 'devDependencies', 'optionalDependencies']) {
    for (const [name, range] of Object.entries(manifest[field] ?? {})) {
      if (!EXACT.test(range)) problems.push(`package.json ${field}.${name}: "${range}" is not one exact version`);
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [lockPath = 'package-lock.json', manifestPath = 'package.json'] = process.argv.slice(2);
  const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
  const registry = configuredRegistry();
  const problems = lockfileProblems(lock, JSON.parse(readFileSync(manifestPath, 'utf8')), registry);
  const count = Object.keys(lock.packages ?? {}).length - 1;
  if (problems.length > 0) {
    process.stderr.write(`${lockPath}: ${problems.length} problem(s)\n${problems.map((p) => `  ${p}\n`).join('')}`);
    process.exit(1);
  }
  process.stdout.write(`${lockPath}: ${count} packages, each with a sha512 integrity hash, none resolved outside the registry; package.json pins exact versions\n`);
}
