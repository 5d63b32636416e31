import { defineConfig } from 'tsup';

export default defineConfig([
  {
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
  },
  {
    // The web app talks to the service through the SDK's device client: one module for the
    // browser, ky and zod inside, served as /app/device.js.
    entry: { device: 'web-app/device-client.ts' },
    outDir: 'web-app/build',
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    noExternal: [/.*/],
    minify: true,
    clean: true,
  },
]);
