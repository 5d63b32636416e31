import * as z from 'zod';
import type { PushAddress } from '../../model/devices.js';
import type { Registration } from '../provider.js';
import { APNS, apns } from './entry.js';

/** An APNs device token: 32 bytes in hex. */
export const apnsPushToken = z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal digits');

/** A device registers for APNs with `push_token`, its device token; kept in lower case. */
export const apnsRegistration: Registration = {
  field: apns.member,
  schema: apnsPushToken,
  address: (value: string): PushAddress => ({ provider: APNS, key: value.toLowerCase(), data: null }),
};
