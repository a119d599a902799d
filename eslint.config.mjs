// Lint: typescript-eslint's recommended rules plus the layer import directions (README.md, "Layout").
import tseslint from 'typescript-eslint';

/** A folder's import patterns: its files and the folder itself (`'../transport'` resolves to its index). */
const dir = (...names) => names.flatMap((n) => [`**/${n}/**`, `**/${n}`]);
const SERVER = [...dir('broker', 'ha', 'namesrv', 'store', 'dledger', 'controller', 'grpc'), '**/server'];
const SDK = [...dir('producer', 'consumer', 'admin', 'client'), '**/index'];

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
  restrict(['lib/client/**/*.ts'], [...dir('producer', 'consumer', 'admin'), ...SERVER], 'lib/client sits below producer, consumer and admin, and never loads server code.'),
  restrict(['lib/producer/**/*.ts'], [...dir('transport', 'consumer', 'admin'), ...SERVER], 'lib/producer goes through lib/client and imports no sibling.'),
  restrict(['lib/consumer/**/*.ts'], [...dir('transport', 'producer', 'admin'), ...SERVER], 'lib/consumer goes through lib/client and imports no sibling.'),
  restrict(['lib/admin/**/*.ts'], [...dir('transport', 'producer', 'consumer'), ...SERVER], 'lib/admin goes through lib/client and imports no sibling.'),
  restrict(['lib/store/**/*.ts'], [...dir('transport', 'broker', 'namesrv'), ...SDK, 'net', 'node:net'], 'lib/store knows nothing of the network.'),
  restrict(['lib/ha/**/*.ts'], [...dir('broker', 'namesrv', 'transport'), ...SDK], 'lib/ha sits on lib/store and knows nothing of the broker.'),
  restrict(['lib/dledger/**/*.ts'], [...dir('broker', 'namesrv', 'store', 'ha'), ...SDK], 'lib/dledger is a Raft log library on lib/transport; it knows nothing of the broker or the store.'),
  restrict(['lib/controller/**/*.ts'], [...dir('broker', 'namesrv', 'store', 'ha'), ...SDK], 'lib/controller is its own server role on lib/dledger; it imports neither the broker, the name server nor the SDK.'),
  restrict(['lib/namesrv/**/*.ts'], [...dir('broker', 'store'), ...SDK], 'lib/namesrv imports neither the SDK nor the broker.'),
  restrict(['lib/broker/**/*.ts'], [...dir('namesrv', 'grpc'), ...SDK], 'lib/broker never imports the SDK layers, nor lib/grpc above it (lib/broker/grpc-endpoint.ts requires it at run time).'),
  restrict(['lib/grpc/**/*.ts'], [...dir('namesrv', 'store', 'ha', 'dledger', 'cli'), ...SDK], 'lib/grpc is an adapter in front of the broker\'s processors: never the store, never the SDK.'),
  restrict(['lib/dashboard/**/*.ts'], [...dir('transport', 'producer', 'consumer', 'cli'), ...SERVER], 'lib/dashboard is a client of any cluster: it goes through lib/admin and lib/client, never the servers.'),
  restrict(['lib/index.ts'], SERVER, 'The main export never pulls the servers in.'),
  restrict(['examples/**/*.ts'], ['../lib/*/**', '../protocol/**', '../protocol'], 'examples import only lib/index and lib/server.'),
);
