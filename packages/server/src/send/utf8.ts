const decoder = new TextDecoder('utf-8', { fatal: true });

/** The text of bytes that are valid UTF-8, or undefined when they are not (never U+FFFD in their place). */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return decoder.decode(bytes);
  } catch {
    return undefined;
  }
}
