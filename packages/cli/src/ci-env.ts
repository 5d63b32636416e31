import { readFileSync } from 'node:fs';
import type { Outcome } from './outcome.js';

/** What a CI provider tells a step about its run, read from the step's environment. */
export interface CiRun {
  provider: string;
  repository?: string;
  branch?: string;
  commit?: string;
  commitMessage?: string;
  job?: string;
  pipeline?: string;
  number?: string;
  runUrl?: string;
  /** Same for a rerun of the same pipeline, different for the next one: it makes the tag. */
  pipelineId?: string;
  /** The result, where the provider exposes it to the step. */
  outcome?: Outcome;
}

type Env = Readonly<Record<string, string | undefined>>;

interface Provider {
  name: string;
  detect(env: Env): boolean;
  /** Each member as the provider's variables give it; unset and empty ones are dropped by `detectCi`. */
  read(env: Env): { [K in keyof Omit<CiRun, 'provider'>]: CiRun[K] | undefined };
}

/** A provider's own words for a result, read as an outcome. */
export function outcomeOf(value: string | undefined): Outcome | undefined {
  if (value === undefined || value === '') return undefined;
  const word = value.trim().toLowerCase();
  if (['success', 'succeeded', 'passed', 'pass', 'ok', '0', 'succeededwithissues'].includes(word))
    return 'success';
  if (['failure', 'failed', 'fail', 'error', 'errored', 'broken'].includes(word) || /^[1-9]\d*$/.test(word)) {
    return 'failure';
  }
  if (['cancelled', 'canceled', 'aborted', 'killed', 'skipped'].includes(word)) return 'cancelled';
  return undefined;
}

const joinUrl = (...parts: (string | undefined)[]) =>
  parts.every((part) => part !== undefined && part !== '') ? parts.join('') : undefined;

/**
 * The providers `notify ci` reads, checked in this order. Each reads only its documented
 * variables; a value a provider does not set stays absent.
 */
const PROVIDERS: readonly Provider[] = [
  {
    name: 'GitHub Actions',
    detect: (env) => env.GITHUB_ACTIONS === 'true',
    read: (env) => ({
      repository: env.GITHUB_REPOSITORY,
      branch: env.GITHUB_HEAD_REF || env.GITHUB_REF_NAME,
      commit: env.GITHUB_SHA,
      commitMessage: githubCommitMessage(env.GITHUB_EVENT_PATH),
      job: env.GITHUB_JOB,
      pipeline: env.GITHUB_WORKFLOW,
      number: env.GITHUB_RUN_NUMBER,
      runUrl: joinUrl(env.GITHUB_SERVER_URL, '/', env.GITHUB_REPOSITORY, '/actions/runs/', env.GITHUB_RUN_ID),
      pipelineId: env.GITHUB_RUN_ID,
    }),
  },
  {
    name: 'GitLab CI',
    detect: (env) => env.GITLAB_CI === 'true',
    read: (env) => ({
      repository: env.CI_PROJECT_PATH,
      branch: env.CI_COMMIT_REF_NAME,
      commit: env.CI_COMMIT_SHA,
      commitMessage: env.CI_COMMIT_TITLE,
      job: env.CI_JOB_NAME,
      pipeline: env.CI_PIPELINE_NAME,
      number: env.CI_PIPELINE_IID,
      runUrl: env.CI_PIPELINE_URL,
      pipelineId: env.CI_PIPELINE_ID,
      outcome: outcomeOf(env.CI_JOB_STATUS),
    }),
  },
  {
    name: 'CircleCI',
    detect: (env) => env.CIRCLECI === 'true',
    read: (env) => ({
      repository: joinUrl(env.CIRCLE_PROJECT_USERNAME, '/', env.CIRCLE_PROJECT_REPONAME),
      branch: env.CIRCLE_BRANCH || env.CIRCLE_TAG,
      commit: env.CIRCLE_SHA1,
      job: env.CIRCLE_JOB,
      number: env.CIRCLE_BUILD_NUM,
      runUrl: env.CIRCLE_BUILD_URL,
      pipelineId: env.CIRCLE_WORKFLOW_ID,
    }),
  },
  {
    name: 'Buildkite',
    detect: (env) => env.BUILDKITE === 'true',
    read: (env) => ({
      repository: joinUrl(env.BUILDKITE_ORGANIZATION_SLUG, '/', env.BUILDKITE_PIPELINE_SLUG),
      branch: env.BUILDKITE_BRANCH,
      commit: env.BUILDKITE_COMMIT,
      commitMessage: env.BUILDKITE_MESSAGE,
      job: env.BUILDKITE_LABEL,
      pipeline: env.BUILDKITE_PIPELINE_NAME,
      number: env.BUILDKITE_BUILD_NUMBER,
      runUrl: env.BUILDKITE_BUILD_URL,
      pipelineId: env.BUILDKITE_BUILD_ID,
      // Set in post-command hooks.
      outcome: outcomeOf(env.BUILDKITE_COMMAND_EXIT_STATUS),
    }),
  },
  {
    name: 'Jenkins',
    detect: (env) => Boolean(env.JENKINS_URL),
    read: (env) => ({
      repository: repositoryFromGitUrl(env.GIT_URL) ?? env.JOB_NAME,
      branch: env.BRANCH_NAME || env.GIT_BRANCH?.replace(/^origin\//, ''),
      commit: env.GIT_COMMIT,
      job: env.JOB_NAME,
      number: env.BUILD_NUMBER,
      runUrl: env.BUILD_URL,
      pipelineId: env.BUILD_TAG,
    }),
  },
  {
    name: 'Azure Pipelines',
    detect: (env) => env.TF_BUILD?.toLowerCase() === 'true',
    read: (env) => ({
      repository: env.BUILD_REPOSITORY_NAME,
      branch: env.BUILD_SOURCEBRANCHNAME,
      commit: env.BUILD_SOURCEVERSION,
      commitMessage: env.BUILD_SOURCEVERSIONMESSAGE,
      job: env.SYSTEM_JOBDISPLAYNAME,
      pipeline: env.BUILD_DEFINITIONNAME,
      number: env.BUILD_BUILDNUMBER,
      runUrl: joinUrl(
        env.SYSTEM_COLLECTIONURI,
        env.SYSTEM_TEAMPROJECT && encodeURIComponent(env.SYSTEM_TEAMPROJECT),
        '/_build/results?buildId=',
        env.BUILD_BUILDID,
      ),
      pipelineId: env.BUILD_BUILDID,
      outcome: outcomeOf(env.AGENT_JOBSTATUS),
    }),
  },
  {
    name: 'Bitbucket Pipelines',
    detect: (env) => Boolean(env.BITBUCKET_BUILD_NUMBER),
    read: (env) => ({
      repository: env.BITBUCKET_REPO_FULL_NAME,
      branch: env.BITBUCKET_BRANCH || env.BITBUCKET_TAG,
      commit: env.BITBUCKET_COMMIT,
      number: env.BITBUCKET_BUILD_NUMBER,
      runUrl: joinUrl(
        'https://bitbucket.org/',
        env.BITBUCKET_REPO_FULL_NAME,
        '/pipelines/results/',
        env.BITBUCKET_BUILD_NUMBER,
      ),
      pipelineId: env.BITBUCKET_PIPELINE_UUID,
      // Set in after-script.
      outcome: outcomeOf(env.BITBUCKET_EXIT_CODE),
    }),
  },
  {
    name: 'Travis CI',
    detect: (env) => env.TRAVIS === 'true',
    read: (env) => ({
      repository: env.TRAVIS_REPO_SLUG,
      branch: env.TRAVIS_PULL_REQUEST_BRANCH || env.TRAVIS_BRANCH,
      commit: env.TRAVIS_COMMIT,
      commitMessage: env.TRAVIS_COMMIT_MESSAGE,
      job: env.TRAVIS_JOB_NAME,
      number: env.TRAVIS_BUILD_NUMBER,
      runUrl: env.TRAVIS_BUILD_WEB_URL,
      pipelineId: env.TRAVIS_BUILD_ID,
      outcome: outcomeOf(env.TRAVIS_TEST_RESULT),
    }),
  },
  {
    name: 'Woodpecker',
    detect: (env) => env.CI === 'woodpecker',
    read: (env) => ({
      repository: env.CI_REPO,
      branch: env.CI_COMMIT_SOURCE_BRANCH || env.CI_COMMIT_BRANCH,
      commit: env.CI_COMMIT_SHA,
      commitMessage: env.CI_COMMIT_MESSAGE,
      job: env.CI_WORKFLOW_NAME,
      number: env.CI_PIPELINE_NUMBER,
      runUrl: env.CI_PIPELINE_URL,
      pipelineId: joinUrl(env.CI_REPO, '#', env.CI_PIPELINE_NUMBER),
      outcome: outcomeOf(env.CI_PIPELINE_STATUS),
    }),
  },
  {
    name: 'Drone',
    detect: (env) => env.DRONE === 'true',
    read: (env) => ({
      repository: env.DRONE_REPO,
      branch: env.DRONE_SOURCE_BRANCH || env.DRONE_BRANCH,
      commit: env.DRONE_COMMIT_SHA,
      commitMessage: env.DRONE_COMMIT_MESSAGE,
      job: env.DRONE_STAGE_NAME,
      number: env.DRONE_BUILD_NUMBER,
      runUrl: env.DRONE_BUILD_LINK,
      pipelineId: joinUrl(env.DRONE_REPO, '#', env.DRONE_BUILD_NUMBER),
      outcome: outcomeOf(env.DRONE_BUILD_STATUS),
    }),
  },
];

/** The run this step belongs to; `undefined` outside CI. A CI the table does not know gives only its name. */
export function detectCi(env: Env): CiRun | undefined {
  const provider = PROVIDERS.find((candidate) => candidate.detect(env));
  if (provider) {
    const read = provider.read(env);
    // Empty variables count as unset.
    const present = Object.entries(read).filter(([, value]) => value !== undefined && value !== '');
    return { provider: provider.name, ...Object.fromEntries(present) };
  }
  const ci = env.CI?.toLowerCase();
  return ci && ci !== 'false' && ci !== '0' ? { provider: 'CI' } : undefined;
}

/**
 * GitHub gives a step no variable for the commit's message, only the event that started the run,
 * as a JSON file: a push's head commit, or a pull request's title. Unreadable or of another shape,
 * it says nothing.
 */
function githubCommitMessage(eventPath: string | undefined): string | undefined {
  if (!eventPath) return undefined;
  try {
    const event = JSON.parse(readFileSync(eventPath, 'utf8')) as {
      head_commit?: { message?: unknown };
      pull_request?: { title?: unknown };
    };
    const message = event.head_commit?.message ?? event.pull_request?.title;
    return typeof message === 'string' ? message : undefined;
  } catch {
    return undefined;
  }
}

/** `owner/name` from a git remote URL (https or scp-like), when it has that shape. */
function repositoryFromGitUrl(url: string | undefined): string | undefined {
  const match = url?.match(/[:/]([^/:]+\/[^/]+?)(?:\.git)?\/?$/);
  return match?.[1];
}
