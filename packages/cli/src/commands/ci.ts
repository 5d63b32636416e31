import { createHash } from 'node:crypto';
import type { SendFields } from '@foxbell/sdk';
import { LIMITS, urlProblem } from '@foxbell/sdk/contract';
import { type CiRun, detectCi } from '../ci-env.js';
import { openClient } from '../client.js';
import type { Handler } from '../context.js';
import { usageError } from '../exit-codes.js';
import type { SendArgs } from '../flags.js';
import { OUTCOME_LOOK, type Outcome, withOverrides } from '../outcome.js';
import { fieldsFromFlags } from '../send-fields.js';
import { deliver } from '../sending.js';
import { cutToBytes, plainText } from '../text.js';

const VERB: Readonly<Record<Outcome, string>> = {
  success: 'passed',
  failure: 'failed',
  cancelled: 'was cancelled',
  unknown: 'finished',
};

export const run: Handler<SendArgs & { status?: Outcome }> = async (args, context) => {
  const ci = detectCi(context.env);
  if (!ci) {
    throw usageError(
      'Not in a CI job: no CI provider variables are set',
      'Run it in a CI step, or use `notify send` or `notify run` here',
    );
  }
  const outcome = args.status ?? ci.outcome ?? 'unknown';
  const { client, settings } = await openClient(args, context, { tokenOptional: args['dry-run'] === true });
  const built = ciNotification(ci, outcome);
  if (built.url === undefined && ci.runUrl) {
    context.out.note(`The run link is left out: ${urlProblem(ci.runUrl)} (${ci.runUrl})`);
  }
  if (outcome === 'unknown') {
    context.out.note(`${ci.provider} does not tell a step the job's result: pass --status to report it`);
  }
  const fields = withOverrides(built, await fieldsFromFlags(args, client, built, settings.fieldDefaults));
  return deliver(fields, args, client, context);
};

/** The notification for a CI run: a title that says what and how, the commit, a link to the run. */
export function ciNotification(ci: CiRun, outcome: Outcome): Partial<SendFields> & { message: string } {
  const look = OUTCOME_LOOK[outcome];
  const subject = ci.job ?? ci.pipeline ?? 'CI';
  const what = ci.repository ? `${ci.repository}: ${subject}` : subject;
  const commit = [ci.branch, ci.commit?.slice(0, 7), ci.commitMessage?.split('\n', 1)[0]].filter(Boolean);
  const run = [
    ci.provider,
    ci.pipeline && ci.pipeline !== subject ? ci.pipeline : undefined,
    ci.number && `#${ci.number}`,
  ]
    .filter(Boolean)
    .join(' ');
  const message = [commit.join(' · '), run].filter((line) => line !== '').join('\n');
  const link = ci.runUrl !== undefined && urlProblem(ci.runUrl) === undefined ? ci.runUrl : undefined;
  return {
    ...look.fields,
    title: cutToBytes(plainText(`${look.mark} ${what} ${VERB[outcome]}`), LIMITS.titleBytes, 'start'),
    message: cutToBytes(plainText(message), LIMITS.messageBytes.max, 'start'),
    ...(link ? { url: link, url_title: 'Open run' } : {}),
    ...(ci.pipelineId ? { tag: tagOf(ci, subject) } : {}),
    group: cutToBytes(plainText(ci.repository ?? ci.provider), LIMITS.shortTextBytes, 'start'),
  };
}

/**
 * One tag per pipeline and job: a rerun replaces the notification of the run before it, while
 * parallel jobs of one pipeline each keep their own.
 */
function tagOf(ci: CiRun, subject: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([ci.provider, ci.repository, ci.pipelineId, subject]))
    .digest('hex');
  return `ci-${digest.slice(0, 32)}`;
}
