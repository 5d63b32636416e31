import type { Checked } from '@foxbell/sdk/server-contract';

export type Pairs = { name: string; value: string }[];
export type PairsResult = Checked<Pairs>;

/**
 * Reads `application/x-www-form-urlencoded` text (a query string or a form body) into its pairs,
 * in order and with repeats kept, so that a parameter given twice can be judged. URLSearchParams
 * is not used because it turns broken percent-encoding into U+FFFD without a word; here a name or
 * value that does not decode to valid UTF-8 is rejected.
 */
export function parseUrlEncoded(text: string, where: 'query' | 'form'): PairsResult {
  const pairs: Pairs = [];
  for (const part of text.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const rawName = equals === -1 ? part : part.slice(0, equals);
    const rawValue = equals === -1 ? '' : part.slice(equals + 1);
    const name = decode(rawName);
    const value = decode(rawValue);
    if (name === undefined || value === undefined) {
      return {
        ok: false,
        error: {
          code: name === undefined ? 'invalid_request' : 'invalid_field',
          ...(name === undefined ? {} : { field: name }),
          message: `the ${where} is not valid percent-encoded UTF-8: ${encodingProblem(name === undefined ? rawName : rawValue)}; ${ENCODING_HINT[where]}`,
        },
      };
    }
    pairs.push({ name, value });
  }
  return { ok: true, value: pairs };
}

/** What to do about it, for the usual client: curl. */
const ENCODING_HINT = {
  form: 'send the text as text/plain, or let curl encode it (--data-urlencode "message=…")',
  query: 'let curl encode it (curl -G --data-urlencode "message=…")',
} as const;

/** Why a name or value did not decode: a bare `%` is the usual cause ("Disk 91% full"). */
function encodingProblem(raw: string): string {
  return /%(?![0-9A-Fa-f]{2})/.test(raw)
    ? 'a % that does not start an escape (write it as %25)'
    : 'its escapes decode to bytes that are not UTF-8';
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}
