import { DataDirUnsafeError } from '../store/data-dir.js';
import { DatabaseUnreachableError } from '../store/postgres/open.js';
import { NewerDatabaseError } from '../store/schema-version.js';
import { DataDirInUseError } from '../store/sqlite/open.js';
import { TlsFilesError } from './tls-files.js';

/** Failures an operator can mend, said in one line; anything else with its stack. */
const EXPECTED = [
  DataDirInUseError,
  DataDirUnsafeError,
  TlsFilesError,
  DatabaseUnreachableError,
  NewerDatabaseError,
];

export const isExpectedFailure = (error: unknown): boolean => EXPECTED.some((kind) => error instanceof kind);
