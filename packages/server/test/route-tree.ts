/**
 * The routes an app serves, `METHOD /path/{param}`, read from Fastify's own route tree
 * (`app.printRoutes({ commonPrefix: false })`), sorted: what the app really serves, whatever
 * registered it.
 */
export function servedRoutes(tree: string): string[] {
  const routes: string[] = [];
  const prefixes: string[] = [];
  for (const line of tree.split('\n')) {
    const match = /^([│├└─\s]*)(\S.*?)(?: \(([^)]+)\))?$/u.exec(line);
    if (!match) continue;
    const depth = Math.floor((match[1] as string).length / 4);
    const path = (prefixes[depth - 1] ?? '') + (match[2] as string);
    prefixes[depth] = path;
    for (const method of match[3]?.split(', ') ?? [])
      routes.push(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
  }
  return routes.sort();
}
