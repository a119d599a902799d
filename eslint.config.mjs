// Lint: typescript-eslint's recommended rules plus the import directions of ARCHITECTURE.md.
import tseslint from 'typescript-eslint';

const SERVER = ['**/broker/**', '**/broker', '**/ha/**', '**/namesrv/**', '**/namesrv', '**/store/**', '**/store', '**/server'];
const SDK = ['**/producer/**', '**/consumer/**', '**/admin/**', '**/client/**', '**/index'];

function restrict(files, groups, message) {
  return {
    files,
    rules: { 'no-restricted-imports': ['error', { patterns: [{ group: groups, message }] }] },
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '**/*.js', '**/*.mjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  restrict(['protocol/**/*.ts'], ['**/lib/**', '**/lib', 'net', 'node:net', 'fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'pino', 'timers', 'node:timers'],
    'protocol/ is pure: it imports nothing of lib/ and does no I/O.'),
  restrict(['lib/transport/**/*.ts'], [...SDK, ...SERVER], 'lib/transport sits below the clients and servers.'),
  restrict(['lib/client/**/*.ts'], ['**/producer/**', '**/consumer/**', '**/admin/**', ...SERVER], 'lib/client sits below producer, consumer and admin, and never loads server code.'),
  restrict(['lib/producer/**/*.ts'], ['**/transport/**', '**/consumer/**', '**/admin/**', ...SERVER], 'lib/producer goes through lib/client and imports no sibling.'),
  restrict(['lib/consumer/**/*.ts'], ['**/transport/**', '**/producer/**', '**/admin/**', ...SERVER], 'lib/consumer goes through lib/client and imports no sibling.'),
  restrict(['lib/admin/**/*.ts'], ['**/transport/**', '**/producer/**', '**/consumer/**', ...SERVER], 'lib/admin goes through lib/client and imports no sibling.'),
  restrict(['lib/store/**/*.ts'], ['**/transport/**', '**/broker/**', '**/namesrv/**', ...SDK, 'net', 'node:net'], 'lib/store knows nothing of the network.'),
  restrict(['lib/ha/**/*.ts'], ['**/broker/**', '**/namesrv/**', '**/transport/**', ...SDK], 'lib/ha sits on lib/store and knows nothing of the broker.'),
  restrict(['lib/namesrv/**/*.ts'], ['**/broker/**', '**/store/**', ...SDK], 'lib/namesrv imports neither the SDK nor the broker.'),
  restrict(['lib/broker/**/*.ts'], ['**/namesrv/**', ...SDK], 'lib/broker never imports the SDK layers.'),
  restrict(['lib/index.ts'], SERVER, 'The main export never pulls the servers in.'),
  restrict(['examples/**/*.ts'], ['../lib/*/**', '../protocol/**', '../protocol'], 'examples import only lib/index and lib/server.'),
);
