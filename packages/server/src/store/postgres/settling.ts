import type { InactiveReason } from '@foxbell/sdk/contract';
import type { Plan } from '../sql/plan.js';
import * as plans from '../sql/settling.js';
import type { Session } from './connection.js';
import { POSTGRES_PHRASES as d, run } from './dialect.js';

// sql/settling.ts's plans, run in the session of the transaction that ends leases.

const inSession = <T>(session: Session, plan: Plan<T>) =>
  run(plan, (sql, values) => session.rows(sql, values), session);

export const skipWaiting = (session: Session, deviceIds: string[], now: number, why: InactiveReason) =>
  inSession(session, plans.skipWaiting(d, deviceIds, now, why));

export const lockNotifications = (session: Session, ids: string[]) =>
  inSession(session, plans.lockNotifications(d, ids));

export const settle = (session: Session, notificationIds: string[]) =>
  inSession(session, plans.settle(d, notificationIds));
