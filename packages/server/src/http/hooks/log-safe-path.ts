import type { FastifyRequest } from 'fastify';

const REDACTED = '<redacted>';

/**
 * What looks like a credential once decoded: anything that starts like one of ours (whatever
 * follows, so a mistyped token is hidden too), and any long run of letters and digits (a secret
 * of another shape, or one cut by a stray character). Ids are long runs as well: in a path no
 * route matched, hiding one costs the operator little.
 */
const CREDENTIAL_SHAPED = /fox_(?:send|acct|admin)_[A-Za-z0-9]*|[A-Za-z0-9_-]{24,}/gi;

/**
 * Percent-decodes what is valid percent-encoding and leaves the rest, so that `%73end` is read as
 * `send` and `TOKEN%ZZ` still shows (and hides) its token.
 */
function decodeLeniently(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** `text` with every credential-shaped string, and every spelling of `secrets`, replaced. */
export function redactSecrets(text: string, secrets: readonly string[] = []): string {
  let decoded = decodeLeniently(text);
  for (const secret of secrets) if (secret !== '') decoded = decoded.split(secret).join(REDACTED);
  return decoded.replace(CREDENTIAL_SHAPED, REDACTED);
}

/**
 * An id of ours (`ntf_…`, `dev_…`, `tok_…`, `lnk_…`): no credential has this shape (each starts
 * `fox_`), and an operator finds a person's notification by it.
 */
const ID_SHAPED = /^(?!fox_)[a-z]{2,5}_[A-Za-z0-9]{1,64}$/;

/**
 * The path of a request as a log line may show it: never the query string (a URL-token send
 * carries the notification's text there), never a credential. A matched route is written as its
 * pattern with its parameters filled in: the token parameter hidden, an id kept whole, anything
 * else credential-shaped hidden; a path no route matched (or one that did not parse) is decoded and
 * every credential-shaped part of it hidden, ids too.
 */
export function loggedPath(request: FastifyRequest, secrets: readonly string[]): string {
  const pattern = request.routeOptions.url;
  if (pattern !== undefined && request.is404 !== true) {
    const params = (request.params ?? {}) as Record<string, string>;
    return pattern.replace(/:(\w+)/g, (_, name: string) => {
      const value = params[name] ?? '';
      if (name === 'token' || secrets.includes(value)) return REDACTED;
      return ID_SHAPED.test(value) ? value : redactSecrets(encodeURIComponent(value), secrets);
    });
  }
  const url = request.raw.url ?? '';
  const query = url.indexOf('?');
  return redactSecrets(query === -1 ? url : url.slice(0, query), secrets);
}
