import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAccount, notify, pushesTo, sharedService, using } from './helpers.js';

const service = sharedService();

const SHA = '4e1c2f9a7b3d5e6f8a9b0c1d2e3f4a5b6c7d8e9f';

/** Each provider's variables for one job of one pipeline, as its runners set them. */
const PROVIDERS: {
  name: string;
  env: Record<string, string>;
  title: string;
  message: string;
  url?: string;
}[] = [
  {
    name: 'GitHub Actions',
    env: {
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_REPOSITORY: 'acme/api',
      GITHUB_REF_NAME: 'main',
      GITHUB_SHA: SHA,
      GITHUB_JOB: 'test',
      GITHUB_WORKFLOW: 'CI',
      GITHUB_RUN_NUMBER: '42',
      GITHUB_RUN_ID: '987654321',
      GITHUB_SERVER_URL: 'https://github.com',
    },
    // GitHub tells a step no result: the action passes `--status ${{ job.status }}`.
    title: '🏁 acme/api: test finished',
    message: 'main · 4e1c2f9\nGitHub Actions CI #42',
    url: 'https://github.com/acme/api/actions/runs/987654321',
  },
  {
    name: 'GitLab CI',
    env: {
      CI: 'true',
      GITLAB_CI: 'true',
      CI_PROJECT_PATH: 'acme/web',
      CI_COMMIT_REF_NAME: 'feature/login',
      CI_COMMIT_SHA: SHA,
      CI_COMMIT_TITLE: 'Fix the login page',
      CI_JOB_NAME: 'build',
      CI_PIPELINE_IID: '7',
      CI_PIPELINE_ID: '1234',
      CI_PIPELINE_URL: 'https://gitlab.com/acme/web/-/pipelines/1234',
      CI_JOB_STATUS: 'success',
    },
    title: '✅ acme/web: build passed',
    message: 'feature/login · 4e1c2f9 · Fix the login page\nGitLab CI #7',
    url: 'https://gitlab.com/acme/web/-/pipelines/1234',
  },
  {
    name: 'CircleCI',
    env: {
      CI: 'true',
      CIRCLECI: 'true',
      CIRCLE_PROJECT_USERNAME: 'acme',
      CIRCLE_PROJECT_REPONAME: 'app',
      CIRCLE_BRANCH: 'main',
      CIRCLE_SHA1: SHA,
      CIRCLE_JOB: 'lint',
      CIRCLE_BUILD_NUM: '311',
      CIRCLE_BUILD_URL: 'https://circleci.com/gh/acme/app/311',
      CIRCLE_WORKFLOW_ID: 'wf-1',
    },
    title: '🏁 acme/app: lint finished',
    message: 'main · 4e1c2f9\nCircleCI #311',
    url: 'https://circleci.com/gh/acme/app/311',
  },
  {
    name: 'Buildkite',
    env: {
      CI: 'true',
      BUILDKITE: 'true',
      BUILDKITE_ORGANIZATION_SLUG: 'acme',
      BUILDKITE_PIPELINE_SLUG: 'deploy',
      BUILDKITE_PIPELINE_NAME: 'Deploy',
      BUILDKITE_BRANCH: 'main',
      BUILDKITE_COMMIT: SHA,
      BUILDKITE_MESSAGE: 'Ship it\n\nlonger body',
      BUILDKITE_LABEL: ':rocket: Deploy',
      BUILDKITE_BUILD_NUMBER: '88',
      BUILDKITE_BUILD_URL: 'https://buildkite.com/acme/deploy/builds/88',
      BUILDKITE_BUILD_ID: 'bk-88',
      BUILDKITE_COMMAND_EXIT_STATUS: '1',
    },
    title: '❌ acme/deploy: :rocket: Deploy failed',
    message: 'main · 4e1c2f9 · Ship it\nBuildkite Deploy #88',
    url: 'https://buildkite.com/acme/deploy/builds/88',
  },
  {
    name: 'Jenkins',
    env: {
      JENKINS_URL: 'http://jenkins.local/',
      GIT_URL: 'git@github.com:acme/legacy.git',
      GIT_BRANCH: 'origin/release',
      GIT_COMMIT: SHA,
      JOB_NAME: 'legacy-nightly',
      BUILD_NUMBER: '5',
      BUILD_URL: 'http://jenkins.local/job/legacy-nightly/5/',
      BUILD_TAG: 'jenkins-legacy-nightly-5',
    },
    // Jenkins tells a step no result, and its plain-http link cannot be a notification's button.
    title: '🏁 acme/legacy: legacy-nightly finished',
    message: 'release · 4e1c2f9\nJenkins #5',
  },
  {
    name: 'Azure Pipelines',
    env: {
      TF_BUILD: 'True',
      BUILD_REPOSITORY_NAME: 'acme/service',
      BUILD_SOURCEBRANCHNAME: 'main',
      BUILD_SOURCEVERSION: SHA,
      BUILD_SOURCEVERSIONMESSAGE: 'Bump deps',
      SYSTEM_JOBDISPLAYNAME: 'Test',
      BUILD_DEFINITIONNAME: 'service-ci',
      BUILD_BUILDNUMBER: '20261122.3',
      SYSTEM_COLLECTIONURI: 'https://dev.azure.com/acme/',
      SYSTEM_TEAMPROJECT: 'Service Team',
      BUILD_BUILDID: '555',
      AGENT_JOBSTATUS: 'Canceled',
    },
    title: '⏹️ acme/service: Test was cancelled',
    message: 'main · 4e1c2f9 · Bump deps\nAzure Pipelines service-ci #20261122.3',
    url: 'https://dev.azure.com/acme/Service%20Team/_build/results?buildId=555',
  },
  {
    name: 'Bitbucket Pipelines',
    env: {
      CI: 'true',
      BITBUCKET_BUILD_NUMBER: '19',
      BITBUCKET_REPO_FULL_NAME: 'acme/site',
      BITBUCKET_BRANCH: 'main',
      BITBUCKET_COMMIT: SHA,
      BITBUCKET_PIPELINE_UUID: '{b1}',
      BITBUCKET_EXIT_CODE: '0',
    },
    title: '✅ acme/site: CI passed',
    message: 'main · 4e1c2f9\nBitbucket Pipelines #19',
    url: 'https://bitbucket.org/acme/site/pipelines/results/19',
  },
  {
    name: 'Travis CI',
    env: {
      CI: 'true',
      TRAVIS: 'true',
      TRAVIS_REPO_SLUG: 'acme/lib',
      TRAVIS_BRANCH: 'main',
      TRAVIS_COMMIT: SHA,
      TRAVIS_COMMIT_MESSAGE: 'Add feature',
      TRAVIS_JOB_NAME: 'unit',
      TRAVIS_BUILD_NUMBER: '77',
      TRAVIS_BUILD_WEB_URL: 'https://app.travis-ci.com/acme/lib/builds/77',
      TRAVIS_BUILD_ID: '77077',
      TRAVIS_TEST_RESULT: '1',
    },
    title: '❌ acme/lib: unit failed',
    message: 'main · 4e1c2f9 · Add feature\nTravis CI #77',
    url: 'https://app.travis-ci.com/acme/lib/builds/77',
  },
  {
    name: 'Woodpecker',
    env: {
      CI: 'woodpecker',
      CI_REPO: 'acme/tool',
      CI_COMMIT_BRANCH: 'main',
      CI_COMMIT_SHA: SHA,
      CI_COMMIT_MESSAGE: 'Refactor',
      CI_WORKFLOW_NAME: 'build',
      CI_PIPELINE_NUMBER: '12',
      CI_PIPELINE_URL: 'https://ci.example.com/repos/1/pipeline/12',
      CI_PIPELINE_STATUS: 'success',
    },
    title: '✅ acme/tool: build passed',
    message: 'main · 4e1c2f9 · Refactor\nWoodpecker #12',
    url: 'https://ci.example.com/repos/1/pipeline/12',
  },
  {
    name: 'Drone',
    env: {
      CI: 'true',
      DRONE: 'true',
      DRONE_REPO: 'acme/infra',
      DRONE_BRANCH: 'main',
      DRONE_COMMIT_SHA: SHA,
      DRONE_STAGE_NAME: 'default',
      DRONE_BUILD_NUMBER: '3',
      DRONE_BUILD_LINK: 'https://drone.example.com/acme/infra/3',
      DRONE_BUILD_STATUS: 'failure',
    },
    title: '❌ acme/infra: default failed',
    message: 'main · 4e1c2f9\nDrone #3',
    url: 'https://drone.example.com/acme/infra/3',
  },
];

const SCENE_BY_TITLE: Record<string, object> = {
  '✅': { scene: 'rocket', scene_params: { color: 'green' }, level: 'active', bell_color: 'green' },
  '❌': { scene: 'campfire', level: 'time-sensitive', bell_color: 'red' },
  '⏹️': { scene: 'notice', level: 'passive' },
  '🏁': { scene: 'notice', level: 'active' },
};

async function dryRun(env: Record<string, string>, args: string[] = []) {
  const account = await createAccount(service);
  const run = await notify(['ci', '--dry-run', '--json', ...args], {
    env: { ...env, ...using(service, account.token) },
  });
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout).request.body;
}

describe('notify ci', () => {
  it.each(PROVIDERS)(
    "reads $name's variables into a title, the commit, the run link, a scene by result",
    async (provider) => {
      const body = await dryRun(provider.env);
      const mark = Object.keys(SCENE_BY_TITLE).find((candidate) =>
        provider.title.startsWith(candidate),
      ) as string;
      expect(body).toEqual({
        ...SCENE_BY_TITLE[mark],
        title: provider.title,
        message: provider.message,
        ...(provider.url ? { url: provider.url, url_title: 'Open run' } : {}),
        tag: expect.stringMatching(/^ci-[0-9a-f]{32}$/),
        group: provider.title.match(/ (acme\/[a-z]+):/)?.[1],
      });
    },
  );

  it("takes GitHub's commit subject from the event file, a pull request's title when there is no head commit, and nothing from a file it cannot read", async () => {
    const github = PROVIDERS[0] as (typeof PROVIDERS)[number];
    const dir = await mkdtemp(path.join(tmpdir(), 'notify-event-'));
    try {
      const push = path.join(dir, 'push.json');
      await writeFile(
        push,
        JSON.stringify({ head_commit: { message: 'Fix the login page\n\nIt failed on Safari.' } }),
      );
      expect((await dryRun({ ...github.env, GITHUB_EVENT_PATH: push })).message).toBe(
        'main · 4e1c2f9 · Fix the login page\nGitHub Actions CI #42',
      );
      const pull = path.join(dir, 'pull.json');
      await writeFile(pull, JSON.stringify({ pull_request: { title: 'Add dark mode' } }));
      expect((await dryRun({ ...github.env, GITHUB_EVENT_PATH: pull })).message).toBe(
        'main · 4e1c2f9 · Add dark mode\nGitHub Actions CI #42',
      );
      const broken = path.join(dir, 'broken.json');
      await writeFile(broken, '{"head_commit":');
      for (const eventPath of [broken, path.join(dir, 'missing.json')]) {
        expect((await dryRun({ ...github.env, GITHUB_EVENT_PATH: eventPath })).message).toBe(github.message);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps one tag for a rerun of the same job, and another for another job or pipeline', async () => {
    const github = PROVIDERS[0]?.env as Record<string, string>;
    const first = await dryRun(github);
    const rerun = await dryRun({ ...github, GITHUB_RUN_ATTEMPT: '2' }, ['--status', 'failure']);
    const otherJob = await dryRun({ ...github, GITHUB_JOB: 'lint' });
    const nextRun = await dryRun({ ...github, GITHUB_RUN_ID: '987654322' });
    expect(rerun.tag).toBe(first.tag);
    expect(new Set([first.tag, otherJob.tag, nextRun.tag]).size).toBe(3);
  });

  it('lets --status and the send flags override what it detects', async () => {
    const gitlab = PROVIDERS[1]?.env as Record<string, string>;
    const body = await dryRun(gitlab, [
      '--status',
      'failure',
      '--scene',
      'garage',
      '--title',
      'Web build',
      '--target',
      'watch',
    ]);
    expect(body).toMatchObject({
      title: 'Web build',
      scene: 'garage',
      level: 'time-sensitive',
      bell_color: 'red',
      target: 'watch',
    });
    // The success scene's parameters do not follow a scene chosen by hand.
    expect(body.scene_params).toBeUndefined();
    const github = PROVIDERS[0]?.env as Record<string, string>;
    const added = await dryRun(github, ['--status', 'success', '--param', 'countdown=9']);
    expect(added.scene_params).toEqual({ color: 'green', countdown: 9 });
  });

  it('posts the result through the service to the devices', async () => {
    const account = await createAccount(service);
    const run = await notify(['ci', '--status', 'failure', '--wait', '20', '--json'], {
      env: { ...PROVIDERS[0]?.env, ...using(service, account.token) },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).delivery.status).toBe('sent_to_push');
    const [push] = await pushesTo(service, account.pushTokens[0]);
    expect(JSON.stringify(push)).toContain('❌ acme/api: test failed');
  });

  it('says when the provider does not tell the result, and refuses to run outside CI', async () => {
    const account = await createAccount(service);
    const env = using(service, account.token);
    const github = await notify(['ci', '--dry-run'], { env: { ...PROVIDERS[0]?.env, ...env } });
    expect(github.stderr).toContain(
      "GitHub Actions does not tell a step the job's result: pass --status to report it",
    );
    const outside = await notify(['ci'], { env });
    expect(outside.code).toBe(2);
    expect(outside.stderr).toContain('Not in a CI job');
  });
});
