import * as assert from 'node:assert/strict';
import {
  DEFAULT_EXCLUDE,
  excludedBy,
  excludedByAny,
  SECRET_FILES,
} from '../../../../src/core/inline/exclude';

/** Paths (folder-relative or absolute real paths) that may hold secrets. */
const MUST_MATCH = [
  '.env',
  '.env.local',
  'app/.ENV.production',
  '.envrc',
  'prod.env',
  'config/local.env',
  'env.production',
  'deploy/env.prod',
  'env.local',
  '.dev.vars',
  '.dev.vars.staging',
  '.secret',
  '.secrets',
  'secrets.json',
  'config/secrets.yaml',
  'secrets.yml',
  'app.secrets.json',
  'secrets.dev.yaml',
  'deploy/secrets/db.yaml',
  'client_secret_123.apps.googleusercontent.com.json',
  'config/database.yml',
  'rails/config/database.yml',
  'local.settings.json',
  'serviceAccountKey.json',
  'firebase-service-account.json',
  'credentials.json',
  '.git-credentials',
  '.netrc',
  '_netrc',
  '.npmrc',
  '.yarnrc.yml',
  '.yarnrc',
  '.bundle/config',
  '.config/pip/pip.conf',
  'AppData/Roaming/pip/pip.ini',
  'auth.json',
  '.config/composer/auth.json',
  '.azure/msal_token_cache.json',
  '.azure/azureProfile.json',
  '.pypirc',
  '.pgpass',
  '.my.cnf',
  '.vault-token',
  '.s3cfg',
  '.boto',
  '.htpasswd',
  '.terraformrc',
  '.aws/credentials',
  '.aws/config',
  'x/.aws/credentials',
  '.docker/config.json',
  '.kube/config',
  'kubeconfig',
  'kubeconfig.yaml',
  'prod.kubeconfig',
  '.config/gh/hosts.yml',
  'AppData/Roaming/GitHub CLI/hosts.yml',
  '.config/gcloud/application_default_credentials.json',
  '.cargo/credentials.toml',
  '.mcp.json',
  '.cursor/mcp.json',
  '.vscode/mcp.json',
  'claude_desktop_config.json',
  'prod.tfvars',
  'infra/terraform.tfvars.json',
  'terraform.tfstate',
  'server.pem',
  'tls/server.key',
  'id_rsa',
  'id_ed25519.pub',
  'putty.ppk',
  'release.keystore',
  '.ssh/config',
  '.ssh/authorized_keys',
  'vault.kdbx',
  'id_ecdsa',
  'id_dsa.pub',
  'certs/client.p12',
  'certs/client.pfx',
  'app.jks',
  'krb5.keytab',
  '.gnupg/private-keys-v1.d/key.key',
  '.gnupg/pubring.kbx',
  '.claude/.credentials.json',
  '.dockercfg',
  'terraform.rc',
  '.gem/credentials',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  'infra/prod.tfstate.backup',
  // Found readable by the agent's tools in the last review.
  'token.json',
  'myapp-firebase-adminsdk-abc12.json',
  'deploy/key.json',
  'gcp-key.json',
  'src/Api/appsettings.Production.json',
  'android/keystore.properties',
  'signing.properties',
  'KEYS.asc',
  'release/private.asc',
  'secring.gpg',
  'wp-config.php',
  // Absolute real paths: the folder is itself `~/.aws`, `~/.config/gh` or `~/.kube`, so the
  // relative path is only `credentials`, `hosts.yml` or `config`.
  '/home/u/.aws/credentials',
  '/home/u/.config/gh/hosts.yml',
  '/home/u/.kube/config',
  'C:\\Users\\me\\.aws\\config',
  '/run/secrets/db_password',
];

/** Paths of code and docs that only talk about secrets or environments. */
const MUST_NOT_MATCH = [
  'src/env.ts',
  'src/env.d.ts',
  'vite-env.d.ts',
  'environment.ts',
  'src/environments/environment.prod.ts',
  'environment.yml',
  'env.example.md',
  'lib/env.py',
  'docs/secrets.md',
  'src/secrets.ts',
  'secrets.py',
  'mysecrets/a.txt',
  'src/credentials.ts',
  'config/database.example.yml',
  'config/database.ts',
  'hosts.yml',
  'inventory/hosts.yml',
  'src/kubeconfig.ts',
  'docs/aws/config.md',
  'aws/config',
  'mcp.json',
  'docs/mcp.json',
  'main.tf',
  'variables.tf',
  'src/keys.ts',
  'keyboard.ts',
  'settings.json',
  '.vscode/settings.json',
  'docker/config.json',
  'package.json',
  'README.md',
  'src/token.ts',
  'tokens.json',
  'keys.json',
  'appsettings.json',
  'appsettings.Development.json',
  'gradle.properties',
  'wp-config-sample.php',
  'src/firebase.json',
  '/home/u/project/src/index.ts',
];

describe('inline completions and agent tools: the secrets list', () => {
  it('matches every name that may hold secrets, and none of the code about them: the corpus', () => {
    for (const path of MUST_MATCH) assert.ok(excludedBy(path, DEFAULT_EXCLUDE), `${path} must match`);
    for (const path of MUST_NOT_MATCH)
      assert.equal(excludedBy(path, DEFAULT_EXCLUDE), undefined, `${path} must not match`);
  });

  it('finds a secret by its absolute real path when the folder-relative one says nothing', () => {
    // A workspace folder that is (a link to) ~/.aws: the file is just `credentials` there.
    assert.equal(excludedBy('credentials', DEFAULT_EXCLUDE), undefined);
    assert.equal(
      excludedByAny(['credentials', 'credentials', '/home/u/.aws/credentials'], DEFAULT_EXCLUDE),
      '**/.aws/credentials',
    );
    assert.equal(excludedByAny(['', 'src/a.ts', '/home/u/app/src/a.ts'], DEFAULT_EXCLUDE), undefined);
  });

  it('is a list of globs by kind, each one in the corpus', () => {
    assert.deepEqual(
      DEFAULT_EXCLUDE,
      SECRET_FILES.flatMap((group) => group.patterns),
    );
    assert.equal(new Set(DEFAULT_EXCLUDE).size, DEFAULT_EXCLUDE.length, 'no pattern twice');
    for (const pattern of DEFAULT_EXCLUDE)
      assert.ok(
        MUST_MATCH.some((path) => excludedBy(path, [pattern]) !== undefined),
        `${pattern} has a name in the corpus`,
      );
  });
});
