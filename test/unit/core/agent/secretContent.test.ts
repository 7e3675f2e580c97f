import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { privateKeyIn, SNIFF_CHARS, sniffsContent } from '../../../../src/core/agent/secretContent';
import { DEFAULT_EXCLUDE, excludedBy } from '../../../../src/core/inline/exclude';

/** A service account's key file, as Google's console writes it (the key cut short). */
const SERVICE_ACCOUNT = JSON.stringify(
  {
    type: 'service_account',
    project_id: 'demo',
    private_key_id: 'abc123',
    private_key: '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----\n',
    client_email: 'demo@demo.iam.gserviceaccount.com',
  },
  null,
  2,
);

describe('still readable without approval: key files by name and by content', () => {
  it('names every file the review could still read: token.json, firebase and GCP keys, appsettings.Production.json, signing properties, PGP keys, wp-config.php', () => {
    for (const path of [
      'token.json',
      'app/token.json',
      'myproject-firebase-adminsdk-x1y2z-0123456789.json',
      'key.json',
      'deploy/gcp-key.json',
      'appsettings.Production.json',
      'src/Web/APPSETTINGS.PRODUCTION.JSON',
      'android/keystore.properties',
      'app/signing.properties',
      'maintainer.asc',
      '.gnupg-old/secring.gpg',
      'secring.gpg',
      'wp-config.php',
      'public/wp-config.php',
    ])
      assert.ok(excludedBy(path, DEFAULT_EXCLUDE), `${path} must be a secret`);
    for (const path of ['appsettings.json', 'src/tokens.ts', 'wp-config-sample.php', 'keys.json'])
      assert.equal(excludedBy(path, DEFAULT_EXCLUDE), undefined, `${path} is not a secret`);
  });

  it('finds a "private_key" field or a PEM private key block in JSON and YAML under any name', () => {
    assert.equal(privateKeyIn(['renamed.json'], SERVICE_ACCOUNT), 'a PEM private key block');
    assert.equal(privateKeyIn(['a.json'], '{"private_key": "x"}'), 'a "private_key" field');
    assert.equal(privateKeyIn(['a.jsonc'], '{ // note\n  "private_key" : "x" }'), 'a "private_key" field');
    assert.equal(privateKeyIn(['deploy/values.yaml'], 'sa:\n  private_key: abc\n'), 'a "private_key" field');
    assert.equal(privateKeyIn(['c.yml'], "'private_key': abc"), 'a "private_key" field');
    for (const block of [
      '-----BEGIN RSA PRIVATE KEY-----',
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      '-----BEGIN EC PRIVATE KEY-----',
      '-----BEGIN ENCRYPTED PRIVATE KEY-----',
      '-----BEGIN PGP PRIVATE KEY BLOCK-----',
    ])
      assert.equal(privateKeyIn(['tls.yaml'], `key: |\n  ${block}\n  abc`), 'a PEM private key block', block);
    // Judged by any of the file's names: a link `notes.txt` to `key-copy.json` is JSON.
    assert.equal(privateKeyIn(['notes.txt', '/w/key-copy.json'], SERVICE_ACCOUNT), 'a PEM private key block');
  });

  it('leaves alone other kinds of file, public keys, and fields that only mention the name', () => {
    assert.equal(privateKeyIn(['src/auth.ts'], SERVICE_ACCOUNT), undefined);
    assert.equal(privateKeyIn(['README.md'], '-----BEGIN PRIVATE KEY-----'), undefined);
    assert.equal(privateKeyIn(['a.json'], '{"private_key_id": "x", "public_key": "y"}'), undefined);
    assert.equal(privateKeyIn(['a.json'], '{"docs": "set my_private_key: here"}'), undefined);
    assert.equal(privateKeyIn(['a.yaml'], 'cert: -----BEGIN CERTIFICATE-----\n'), undefined);
    assert.equal(privateKeyIn(['a.yaml'], 'key: -----BEGIN PUBLIC KEY-----\n'), undefined);
    assert.ok(sniffsContent('A.YML') && sniffsContent('x.json5') && !sniffsContent('x.json.ts'));
  });

  it('looks only at the first SNIFF_CHARS characters, so a huge file costs no more', () => {
    const late = `{"pad": "${'x'.repeat(SNIFF_CHARS)}", "private_key": "x"}`;
    assert.equal(privateKeyIn(['big.json'], late), undefined);
    // A caller that read and bounded the whole text (a search) may sniff all of it.
    assert.equal(privateKeyIn(['big.json'], late, late.length), 'a "private_key" field');
    const early = `{"private_key": "x", "pad": "${'x'.repeat(4 * 1024 * 1024)}"}`;
    const started = performance.now();
    assert.equal(privateKeyIn(['big.json'], early), 'a "private_key" field');
    assert.ok(performance.now() - started < 200);
  });

  it('never throws and stays fast on any text (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 2000 }),
        fc.constantFrom('a.json', 'b.yaml', 'c.txt'),
        (text, name) => {
          const started = performance.now();
          const found = privateKeyIn(
            [name],
            `${text}${'-----BEGIN '.repeat(50)}${'private_key '.repeat(50)}`,
          );
          assert.ok(found === undefined || typeof found === 'string');
          assert.ok(performance.now() - started < 50);
        },
      ),
      { numRuns: 300 },
    );
  });
});
