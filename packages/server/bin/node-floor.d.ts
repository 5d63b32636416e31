/** Exits with a clear message when this Node.js is older than the server package's floor. */
export function requireNodeFloor(command: string): void;
