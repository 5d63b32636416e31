// A setup file of every package's tests (vitest.config.ts): each worker runs one file after
// another (`isolate: false`), so that what the files import from node_modules (Fastify, Zod, pino,
// the database drivers) loads once per worker; loading it again in a worker of its own for each
// file was a fifth of the fast tier's time. The workspace's own modules are evaluated afresh for
// each file, as in a worker of its own: their state, and the hooks they register when imported (a
// test server closed after each test, the check that no secret was logged), are the file's.
import { vi } from 'vitest';

vi.resetModules();
