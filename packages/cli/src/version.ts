/** The CLI's version, as package.json gives it (a test keeps the two equal). */
export const CLI_VERSION = '0.1.0';
