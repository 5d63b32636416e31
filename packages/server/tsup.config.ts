import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    server: 'src/main/server.ts',
    'apns-sim': 'src/simulator/main.ts',
    'dev-start': 'src/dev/start.ts',
    simulator: 'src/simulator/index.ts',
  },
  format: 'esm',
  // tsup's declaration build sets `baseUrl`, which TypeScript 6 deprecates.
  dts: {
    entry: { index: 'src/index.ts', 'dev-start': 'src/dev/start.ts', simulator: 'src/simulator/index.ts' },
    compilerOptions: { ignoreDeprecations: '6.0' },
  },
  clean: true,
  sourcemap: true,
  target: 'node24',
  // tsup strips `node:` from built-in imports by default; `sqlite` exists only as `node:sqlite`.
  removeNodeProtocol: false,
});
