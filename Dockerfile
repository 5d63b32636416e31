# syntax=docker/dockerfile:1
# The Foxbell server as a container image: built with pnpm from the lockfile, run as the
# unprivileged `node` user on a slim Node 24, its data in the /data volume. docs/deploy.md
# says how to build, run and upgrade it.
#
# BASE is any Node 24 image with npm and a `node` user (uid 1000), as the official one has; it is
# an argument so that a build without a registry can use a base of its own.
ARG BASE=docker.io/library/node:24-slim

FROM ${BASE} AS build
WORKDIR /src
# A registry behind a proxy with its own CA: pass the CA as a build secret (id npm_ca). It is used
# by this stage's downloads only and is in no layer of the image.
ENV PATH=/pnpm/bin:$PATH CI=true
RUN --mount=type=secret,id=npm_ca,required=false \
    NODE_EXTRA_CA_CERTS=$(test -f /run/secrets/npm_ca && echo /run/secrets/npm_ca) \
    npm install -g --prefix /pnpm pnpm@12.21.0
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json .pnpmfile.cjs ./
COPY packages/sdk/package.json packages/sdk/
COPY packages/server/package.json packages/server/
RUN --mount=type=secret,id=npm_ca,required=false \
    NODE_EXTRA_CA_CERTS=$(test -f /run/secrets/npm_ca && echo /run/secrets/npm_ca) \
    pnpm install --frozen-lockfile --filter @foxbell/server...
COPY tsconfig.base.json ./
COPY packages/sdk packages/sdk
COPY packages/server packages/server
RUN pnpm --filter @foxbell/server... run build
# The server with its production dependencies only, the SDK's contract among them.
RUN --mount=type=secret,id=npm_ca,required=false \
    NODE_EXTRA_CA_CERTS=$(test -f /run/secrets/npm_ca && echo /run/secrets/npm_ca) \
    pnpm --filter @foxbell/server deploy --legacy --prod /app

FROM ${BASE}
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="foxbell-server" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.source="https://github.com/foxbell/foxbell" \
      org.opencontainers.image.licenses="MIT"
COPY --from=build /app /app
# Settings are the server's FOXBELL_* variables; these are the image's defaults.
ENV NODE_ENV=production \
    FOXBELL_HOST=0.0.0.0 \
    FOXBELL_PORT=8787 \
    FOXBELL_DATA=/data
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
    CMD ["node", "/app/bin/healthcheck.js"]
# Node is PID 1: it gets SIGTERM itself and the server stops gracefully (in-flight requests end,
# deliveries are handed back).
ENTRYPOINT ["node", "/app/bin/foxbell-server.js"]
