/** Apple's push endpoints (token-based authentication, HTTP/2). */
export const APNS_PRODUCTION_URL = 'https://api.push.apple.com';
export const APNS_SANDBOX_URL = 'https://api.sandbox.push.apple.com';
