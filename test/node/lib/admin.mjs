// The operator's admin command (infra/admin) against the running local stack: second
// accounts, extra keys, revocations, settings. Each command prints one JSON object.
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { client, repoRoot, stackFile } from './stack.mjs';

const run = promisify(execFile);

let prepared;

// prepare builds the admin binary once per test process (run.sh builds it once for all
// files and passes SUBSIGHT_ADMIN_BIN) and gives it a working directory whose
// .local/stack.json is the stack under test: `admin -local` looks for that file from
// its working directory upwards, and run.sh's stack file may live elsewhere.
async function prepare () {
  if (!prepared) {
    prepared = (async () => {
      const dir = mkdtempSync(join(tmpdir(), 'subsight-admin-'));
      process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
      let bin = process.env.SUBSIGHT_ADMIN_BIN;
      if (!bin || !existsSync(bin)) {
        bin = join(dir, 'admin');
        await run('go', ['build', '-o', bin, './infra/admin'], { cwd: repoRoot });
      }
      mkdirSync(join(dir, '.local'));
      copyFileSync(stackFile, join(dir, '.local', 'stack.json'));
      return { bin, cwd: dir };
    })();
  }
  return prepared;
}

// admin runs `admin -local <command> ...args` and returns its JSON output.
export async function admin (command, ...args) {
  const { bin, cwd } = await prepare();
  try {
    const { stdout } = await run(bin, ['-local', command, ...args], { cwd });
    return JSON.parse(stdout);
  } catch (err) {
    throw new Error(`admin ${command} ${args.join(' ')}: ${err.stderr || err.message}`);
  }
}

// createAccount makes a fresh account with its own key: for isolation checks, and for
// tests that change account settings (never change the demo account's: files run in
// parallel). Returns { accountId, apiKey, config }.
export async function createAccount (name = 'Other', ...flags) {
  const out = await admin('create-account', '-name', name, ...flags);
  // The suite calls faster than the production 40 requests a second (docs/local-stack.md).
  await admin('set-limit', '-account', out.account_id, '-name', 'requests_per_second', '-value', '100000');
  return { accountId: out.account_id, apiKey: out.api_key, config: client(out.api_key) };
}

// createKey adds a key to an account. Returns { keyId, apiKey, config }.
export async function createKey (accountId) {
  const out = await admin('create-key', '-account', accountId);
  return { keyId: out.key_id, apiKey: out.api_key, config: client(out.api_key) };
}

export async function revokeKey (accountId, keyId) {
  return admin('revoke-key', '-account', accountId, '-key-id', keyId);
}

export async function setSetting (accountId, setting, value) {
  return admin('set-setting', '-account', accountId, '-setting', setting, '-value', value);
}
