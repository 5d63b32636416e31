import { defineProject } from 'vitest/config';

export default defineProject({ test: { name: 'example-tracing', include: ['*.test.js'] } });
