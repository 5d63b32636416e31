import { describe, expect, it } from 'vitest';
import { connectionConfig } from '../../../src/store/postgres/options.js';

describe('the options a PostgreSQL connection starts with', () => {
  it("merges the --database URL's ?options= with the schema, and takes them out of the URL", () => {
    expect(
      connectionConfig(
        'postgres://fox:s3cret@db.example:5433/foxbell?sslmode=require&options=-c%20statement_timeout%3D5000',
        'foxbell_prod',
      ),
    ).toEqual({
      connectionString: 'postgres://fox:s3cret@db.example:5433/foxbell?sslmode=require',
      options: '-c statement_timeout=5000 -c search_path=foxbell_prod',
    });
  });

  it('keeps a URL without options as it is, and sets none when no schema is given', () => {
    expect(connectionConfig('postgres://postgres@127.0.0.1:5432/test', undefined)).toEqual({
      connectionString: 'postgres://postgres@127.0.0.1:5432/test',
      options: undefined,
    });
    expect(connectionConfig('postgres://127.0.0.1/test?options=-c%20work_mem%3D8MB', undefined).options).toBe(
      '-c work_mem=8MB',
    );
  });

  it('lets the schema flag say otherwise than the URL', () => {
    const { options } = connectionConfig(
      `postgres://127.0.0.1/test?options=${encodeURIComponent('-c search_path=other')}`,
      'foxbell',
    );
    // PostgreSQL applies the `-c` settings in order: the last of each wins.
    expect(options).toBe('-c search_path=other -c search_path=foxbell');
  });
});
