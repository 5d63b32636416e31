#!/usr/bin/env node
// The container image's HEALTHCHECK: exits 0 when the server in this container responds
// GET /healthz on its port, 1 otherwise. Node alone: a slim image has no curl.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const port = Number(process.env.FOXBELL_PORT ?? 8787);
const tls = Boolean(process.env.FOXBELL_TLS_CERT);
// The loopback address responds with the server's own certificate, made for its public name:
// this checks liveness, not the certificate.
const request = (tls ? httpsRequest : httpRequest)(
  { host: '127.0.0.1', port, path: '/healthz', timeout: 4_000, rejectUnauthorized: false },
  (response) => {
    response.resume();
    process.exit(response.statusCode === 200 ? 0 : 1);
  },
);
request.on('timeout', () => request.destroy(new Error('timeout')));
request.on('error', () => process.exit(1));
request.end();
