// Which files are never committed by Save and Commit, never put into a code snapshot, never pushed.
import { posix } from 'node:path';

/**
 * File names that likely hold secrets, matched lowercased. Taken from published lists: gitrob's sensitive-file patterns
 * as the npm package ban-sensitive-files keeps them (git-deny-patterns.json: SSH keys, key and certificate bundles,
 * PuTTY keys, password stores, VPN profiles, shell histories, .netrc, .htpasswd, .s3cfg, .env) and gitleaks'
 * `pkcs12-file` rule (*.p12, *.pfx); then the credential files of common tools (npm, git, AWS, RubyGems, Docker,
 * PostgreSQL, PyPI, Google Cloud, Terraform state, Java keystores) and backup copies of key files (`*.key.bak`,
 * `*.pem.orig`). gitrob's broad entries that name ordinary source files (`settings.py`, `schema.rb`, `*.log`,
 * `*.sql`, any name holding "password" or "backup") are not taken: what is left out is never committed.
 */
const SECRET_NAMES: readonly RegExp[] = [
  // `.env*` as README says: `.env`, `.env.local`, `.envrc` (direnv's, which exports secrets as often as not).
  /^\.env/,
  /^id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:\..*)?$/,
  /^.+_(?:rsa|dsa|ecdsa|ed25519)$/,
  /\.(?:pem|key|keypair|p12|pfx|pkcs12|ppk|jks|keystore|keyring|kdb|kdbx|agilekeychain|keychain|kwallet|ovpn|tfstate)(?:\.(?:bak|backup|old|orig|save|tmp)|~)?$/,
  /^(?:\.npmrc|[._]netrc|\.git-credentials|\.pgpass|\.htpasswd|\.s3cfg|\.pypirc|\.dockercfg|credentials\.json|otr\.private_key)$/,
  /^\.(?:bash_|zsh_|mysql_|psql_|irb_)?history$/,
  /^(?:service[-_]?account|client_secret).*\.json$/,
];
/** Credential files known by their folder (`~/.aws/credentials`, `~/.gem/credentials`, `~/.docker/config.json`). */
const SECRET_PATHS = /(?:^|\/)(?:\.aws\/credentials|\.gem\/credentials|\.docker\/config\.json)$/;

/** An exported or stored OpenPGP key: `.asc`, `.gpg`, `.pgp` or `.kbx` named as private or secret (not a signature). */
const PGP_KEY_FILE = /\.(?:asc|gpg|pgp|kbx)$/;
const PGP_PRIVATE_WORDS = ['private', 'secret', 'secring'];

/** True for a path whose file name looks like a secret (case-insensitive): never committed, never in a snapshot. */
export function isLikelySecret(file: string): boolean {
  const rel = file.replace(/\\/g, '/').toLowerCase();
  const name = posix.basename(rel);
  if (PGP_KEY_FILE.test(name) && PGP_PRIVATE_WORDS.some((w) => name.includes(w))) return true;
  return SECRET_PATHS.test(rel) || SECRET_NAMES.some((re) => re.test(name));
}
