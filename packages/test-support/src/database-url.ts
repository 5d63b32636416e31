/**
 * The PostgreSQL the tests use (`FOXBELL_TEST_DATABASE_URL`), as CI and `.ci/run` provide it. A
 * module of its own: a global set-up reads it, where no test (and no after-each hook) exists.
 */
export const TEST_DATABASE_URL =
  process.env.FOXBELL_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
