import { readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** The certificate chain and key files, read and checked as a pair (a mismatch throws here). */
export async function readTls(files: TlsFiles): Promise<{ cert: Buffer; key: Buffer }> {
  try {
    const [cert, key] = await Promise.all([readFile(files.certFile), readFile(files.keyFile)]);
    createSecureContext({ cert, key });
    return { cert, key };
  } catch (error) {
    throw new TlsFilesError(files, error);
  }
}

/** The certificate or key cannot be read, or they are not a pair. */
export class TlsFilesError extends Error {
  constructor(files: TlsFiles, cause: unknown) {
    const why = (cause as NodeJS.ErrnoException).code ?? (cause as Error).message;
    super(`cannot use --tls-cert ${files.certFile} with --tls-key ${files.keyFile}: ${why}`, { cause });
  }
}
