import type * as z from 'zod';
import type { PushProvider } from '../delivery/provider.js';
import { HttpError } from '../kernel/http-error.js';
import type { PushAddress } from '../model/devices.js';

/**
 * Where a device's pushes go, as a registration body says it: each push provider's member
 * (`push_token`, `web_push`), of which a body has exactly one. The providers say their members and
 * rules; nothing here knows one by name.
 */

/** Each provider's member, optional, for a registration body's schema. */
export function registrationMembers(providers: readonly PushProvider[]): Record<string, z.ZodOptional> {
  return Object.fromEntries(
    providers.map((provider) => [provider.registration.field, provider.registration.schema.optional()]),
  );
}

/** The members in words, for any number of providers: "a and b", "a, b, and c". */
const BOTH = new Intl.ListFormat('en', { type: 'conjunction' });
const EITHER = new Intl.ListFormat('en', { type: 'disjunction' });

/**
 * The address of a registration body, and the member that gave it. None is `missing_field`
 * (named by the first provider's member), two are `invalid_field` (named by the second).
 */
export function addressFromBody(
  body: Record<string, unknown>,
  providers: readonly PushProvider[],
  context: { appUrl: string | null; previous?: PushAddress | undefined },
): { address: PushAddress; field: string } {
  const fields = providers.map((provider) => provider.registration.field);
  const given = providers.filter((provider) => body[provider.registration.field] !== undefined);
  const [first, second] = given;
  if (second !== undefined) {
    throw HttpError.fromField({
      code: 'invalid_field',
      field: second.registration.field,
      message: `only one of ${BOTH.format(fields)} may be given: a device is reached one way`,
    });
  }
  if (first === undefined) {
    throw HttpError.fromField({
      code: 'missing_field',
      ...(fields[0] === undefined ? {} : { field: fields[0] }),
      message: `${EITHER.format(fields)} is required: where the device's pushes go`,
    });
  }
  const { field } = first.registration;
  return { address: first.registration.address(body[field] as never, context), field };
}

/** Whether a body names a new address at all (a change may name none). */
export function namesAddress(body: Record<string, unknown>, providers: readonly PushProvider[]): boolean {
  return providers.some((provider) => body[provider.registration.field] !== undefined);
}
