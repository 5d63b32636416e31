/** JSON.parse that returns undefined for text that is not JSON (an empty or proxy-made body). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
