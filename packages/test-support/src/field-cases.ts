/**
 * Every send field rule at its boundary and one past it: the one table both the SDK's checks and
 * the server's are tested against, so the two cannot drift apart. A fourth element gives the
 * server's response where it knows more than the SDK (the scene catalog is the server's to judge).
 */
export type Expected = 'sent' | { code: string; field?: string };
export type Case = [name: string, fields: Record<string, unknown>, expected: Expected, server?: Expected];

export const bad = (field: string, code = 'invalid_field'): Expected => ({ code, field });
export const bytes = (n: number, unit = 'a') => unit.repeat(n);
export const host = 'https://example.com';
export const urlOfBytes = (n: number) => `${host}/${'p'.repeat(n - host.length - 1)}`;
export const m = { message: 'hi' };

export const FIELD_CASES: Case[] = [
  // message and its aliases
  ['a 1-byte message', { message: 'a' }, 'sent'],
  ['a 4,000-byte message', { message: bytes(4000) }, 'sent'],
  ['a 4,001-byte message', { message: bytes(4001) }, bad('message')],
  ['4,000 bytes of 2-byte characters', { message: bytes(2000, 'é') }, 'sent'],
  ['4,001 bytes of 2-byte characters', { message: `${bytes(2000, 'é')}a` }, bad('message')],
  ['4,000 bytes of 4-byte characters', { message: bytes(1000, '😀') }, 'sent'],
  ['4,004 bytes of 4-byte characters', { message: bytes(1001, '😀') }, bad('message')],
  ['an empty message', { message: '' }, bad('message')],
  ['no message', { title: 'x' }, { code: 'missing_field', field: 'message' }],
  ['a message that is a number', { message: 5 }, bad('message')],
  ['a message that is null', { message: null }, bad('message')],
  ['body alone', { body: 'hi' }, 'sent'],
  ['text alone', { text: 'hi' }, 'sent'],
  ['message and body with one value', { message: 'hi', body: 'hi' }, 'sent'],
  ['message and body with two values', { message: 'hi', body: 'ho' }, bad('message', 'conflicting_field')],
  ['body and text with two values', { body: 'hi', text: 'ho' }, bad('message', 'conflicting_field')],
  ['an empty body alias', { body: '' }, bad('body')],
  ['a body alias that is a number', { body: 1 }, bad('body')],
  // text rule
  ['tab and newline in text', { message: 'a\tb\nc' }, 'sent'],
  ['a carriage return', { message: 'a\r\nb' }, bad('message')],
  ['NUL', { message: 'a\u0000' }, bad('message')],
  ['U+001F', { message: 'a\u001f' }, bad('message')],
  ['DEL', { message: 'a\u007f' }, bad('message')],
  ['U+0080', { message: 'a\u0080' }, bad('message')],
  ['U+009F', { message: 'a\u009f' }, bad('message')],
  ['U+00A0 (not a control character)', { message: 'a\u00a0' }, 'sent'],
  ['a lone surrogate', { message: 'a\ud800' }, bad('message')],
  ['a control character in a title', { ...m, title: 'a\u0007' }, bad('title')],
  // title, subtitle
  ['a 250-byte title', { ...m, title: bytes(250) }, 'sent'],
  ['a 251-byte title', { ...m, title: bytes(251) }, bad('title')],
  ['an empty title', { ...m, title: '' }, 'sent'],
  ['a 250-byte subtitle', { ...m, subtitle: bytes(125, 'ß') }, 'sent'],
  ['a 251-byte subtitle', { ...m, subtitle: `${bytes(125, 'ß')}a` }, bad('subtitle')],
  ['an empty subtitle', { ...m, subtitle: '' }, 'sent'],
  // scene, scene_version
  ['a catalog scene', { ...m, scene: 'rocket' }, 'sent'],
  ['a scene the SDK does not know', { ...m, scene: 'new-scene-2' }, 'sent', bad('scene', 'invalid_scene')],
  ['a 32-character scene id', { ...m, scene: bytes(32, 'z') }, 'sent', bad('scene', 'invalid_scene')],
  ['a 33-character scene id', { ...m, scene: bytes(33, 'z') }, bad('scene')],
  ['a scene id with a capital', { ...m, scene: 'Rocket' }, bad('scene')],
  ['a scene id starting with a digit', { ...m, scene: '1rocket' }, bad('scene')],
  ['scene_version 1', { ...m, scene: 'rocket', scene_version: 1 }, 'sent'],
  [
    'a scene_version the SDK does not know',
    { ...m, scene: 'rocket', scene_version: 7 },
    'sent',
    bad('scene_version', 'invalid_scene'),
  ],
  ['scene_version 0', { ...m, scene_version: 0 }, bad('scene_version')],
  ['a fractional scene_version', { ...m, scene_version: 1.5 }, bad('scene_version')],
  ['a scene_version string', { ...m, scene_version: '1' }, bad('scene_version')],
  // scene_params against the catalog
  [
    'rocket colour and countdown',
    { ...m, scene: 'rocket', scene_params: { color: 'green', countdown: 10 } },
    'sent',
  ],
  ['rocket countdown 0', { ...m, scene: 'rocket', scene_params: { countdown: 0 } }, 'sent'],
  [
    'rocket countdown 11',
    { ...m, scene: 'rocket', scene_params: { countdown: 11 } },
    bad('scene_params.countdown', 'invalid_scene_param'),
  ],
  [
    'rocket countdown -1',
    { ...m, scene: 'rocket', scene_params: { countdown: -1 } },
    bad('scene_params.countdown', 'invalid_scene_param'),
  ],
  [
    'rocket countdown 2.5',
    { ...m, scene: 'rocket', scene_params: { countdown: 2.5 } },
    bad('scene_params.countdown', 'invalid_scene_param'),
  ],
  [
    'rocket colour purple',
    { ...m, scene: 'rocket', scene_params: { color: 'purple' } },
    bad('scene_params.color', 'invalid_scene_param'),
  ],
  [
    'an unknown rocket parameter',
    { ...m, scene: 'rocket', scene_params: { speed: 3 } },
    bad('scene_params.speed', 'invalid_scene_param'),
  ],
  ['fireworks with 1 burst', { ...m, scene: 'fireworks', scene_params: { bursts: 1 } }, 'sent'],
  ['fireworks with 10 bursts', { ...m, scene: 'fireworks', scene_params: { bursts: 10 } }, 'sent'],
  [
    'fireworks with 0 bursts',
    { ...m, scene: 'fireworks', scene_params: { bursts: 0 } },
    bad('scene_params.bursts', 'invalid_scene_param'),
  ],
  [
    'fireworks with 11 bursts',
    { ...m, scene: 'fireworks', scene_params: { bursts: 11 } },
    bad('scene_params.bursts', 'invalid_scene_param'),
  ],
  ['a closing garage door', { ...m, scene: 'garage', scene_params: { doorState: 'closing' } }, 'sent'],
  [
    'an ajar garage door',
    { ...m, scene: 'garage', scene_params: { doorState: 'ajar' } },
    bad('scene_params.doorState', 'invalid_scene_param'),
  ],
  [
    'a parameter for notice (the default scene)',
    { ...m, scene_params: { x: 1 } },
    bad('scene_params.x', 'invalid_scene_param'),
  ],
  [
    'a parameter for campfire',
    { ...m, scene: 'campfire', scene_params: { logs: 3 } },
    bad('scene_params.logs', 'invalid_scene_param'),
  ],
  ['empty scene_params', { ...m, scene: 'campfire', scene_params: {} }, 'sent'],
  // scene_params limits (checked for every scene, known or not)
  [
    '20 parameter keys',
    { ...m, scene: 'x-new', scene_params: keys(20) },
    'sent',
    bad('scene', 'invalid_scene'),
  ],
  ['21 parameter keys', { ...m, scene: 'x-new', scene_params: keys(21) }, bad('scene_params')],
  [
    'parameters 2 deep',
    { ...m, scene: 'x-new', scene_params: { a: { b: 1 } } },
    'sent',
    bad('scene', 'invalid_scene'),
  ],
  ['parameters 3 deep', { ...m, scene: 'x-new', scene_params: { a: { b: { c: 1 } } } }, bad('scene_params')],
  [
    'parameters of 2,048 bytes',
    { ...m, scene: 'x-new', scene_params: paramsOfBytes(2048) },
    'sent',
    bad('scene', 'invalid_scene'),
  ],
  [
    'parameters of 2,049 bytes',
    { ...m, scene: 'x-new', scene_params: paramsOfBytes(2049) },
    bad('scene_params'),
  ],
  ['parameters as an array', { ...m, scene_params: [1] }, bad('scene_params')],
  ['parameters as a string', { ...m, scene_params: 'color=red' }, bad('scene_params')],
  // bell_color
  ...['gold', 'red', 'blue', 'green', '#ff8800', '#FF8800', '#aBc123'].map(
    (color): Case => [`bell colour ${color}`, { ...m, bell_color: color }, 'sent'],
  ),
  ...['purple', 'Gold', '#ff880', '#ff88001', 'ff8800', '#gg0000'].map(
    (color): Case => [`bell colour ${color}`, { ...m, bell_color: color }, bad('bell_color')],
  ),
  // url and image
  ['an https URL', { ...m, url: host }, 'sent'],
  ['an https URL with port, path, query and fragment', { ...m, url: `${host}:8443/a/b?q=1&r=2#top` }, 'sent'],
  ['port 1', { ...m, url: `${host}:1/` }, 'sent'],
  ['port 65535', { ...m, url: `${host}:65535/` }, 'sent'],
  ['port 0', { ...m, url: `${host}:0/` }, bad('url')],
  ['port 65536', { ...m, url: `${host}:65536/` }, bad('url')],
  ['an empty port', { ...m, url: `${host}:/` }, bad('url')],
  ['a URL of 2,048 bytes', { ...m, url: urlOfBytes(2048) }, 'sent'],
  ['a URL of 2,049 bytes', { ...m, url: urlOfBytes(2049) }, bad('url')],
  ['an http URL', { ...m, url: 'http://example.com' }, bad('url')],
  ['a URL with no scheme', { ...m, url: 'example.com' }, bad('url')],
  ['a URL with a user name', { ...m, url: 'https://ana@example.com/' }, bad('url')],
  ['a URL with user name and password', { ...m, url: 'https://ana:pw@example.com/' }, bad('url')],
  ['a dotted IPv4 host', { ...m, url: 'https://127.0.0.1/' }, bad('url')],
  ['a hex IPv4 host', { ...m, url: 'https://0x7f000001/' }, bad('url')],
  ['a decimal IPv4 host', { ...m, url: 'https://2130706433/' }, bad('url')],
  ['an IPv6 host', { ...m, url: 'https://[::1]/' }, bad('url')],
  ['an all-numeric host', { ...m, url: 'https://123.456/' }, bad('url')],
  ['a host with a numeric last label', { ...m, url: 'https://example.123/' }, bad('url')],
  ['a host starting with digits', { ...m, url: 'https://1password.com/' }, 'sent'],
  ['an international host name', { ...m, url: 'https://bücher.de/' }, bad('url')],
  ['its punycode', { ...m, url: 'https://xn--bcher-kva.de/' }, 'sent'],
  ['a space in the URL', { ...m, url: 'https://example.com/a b' }, bad('url')],
  ['a host with an underscore', { ...m, url: 'https://my_host.example.com/' }, bad('url')],
  ['a label over 63 characters', { ...m, url: `https://${bytes(64)}.com/` }, bad('url')],
  ['an image URL', { ...m, image: 'https://cdn.example.com/x.png' }, 'sent'],
  ['an http image URL', { ...m, image: 'http://cdn.example.com/x.png' }, bad('image')],
  ['an image on an IP address', { ...m, image: 'https://10.0.0.1/x.png' }, bad('image')],
  // url_title
  ['a url_title with a url', { ...m, url: host, url_title: 'Open the run' }, 'sent'],
  ['a 64-byte url_title', { ...m, url: host, url_title: bytes(64) }, 'sent'],
  ['a 65-byte url_title', { ...m, url: host, url_title: bytes(65) }, bad('url_title')],
  ['an empty url_title', { ...m, url: host, url_title: '' }, bad('url_title')],
  ['a url_title without a url', { ...m, url_title: 'Open' }, bad('url_title')],
  ['a url_title with only an image', { ...m, image: host, url_title: 'Open' }, bad('url_title')],
  // level
  ...(['passive', 'active', 'time-sensitive', -2, -1, 0, 1, 2, '-2', '-1', '0', '1', '2'] as const).map(
    (level): Case => [`level ${JSON.stringify(level)}`, { ...m, level }, 'sent'],
  ),
  ...[3, -3, '3', 'critical', 'Active', 1.5, '1.0', ' 1', '+1', true, null].map(
    (level): Case => [`level ${JSON.stringify(level)}`, { ...m, level }, bad('level')],
  ),
  // group, tag, sound, ttl, target
  ['a 1-byte group', { ...m, group: 'g' }, 'sent'],
  ['a 64-byte group', { ...m, group: bytes(64) }, 'sent'],
  ['a 65-byte group', { ...m, group: bytes(65) }, bad('group')],
  ['an empty group', { ...m, group: '' }, bad('group')],
  ['a tag of every allowed character', { ...m, tag: 'Build-42.main_x' }, 'sent'],
  ['a 64-character tag', { ...m, tag: bytes(64, 't') }, 'sent'],
  ['a 65-character tag', { ...m, tag: bytes(65, 't') }, bad('tag')],
  ['an empty tag', { ...m, tag: '' }, bad('tag')],
  ['a tag with a space', { ...m, tag: 'a b' }, bad('tag')],
  ['a tag with a non-ASCII letter', { ...m, tag: 'ä' }, bad('tag')],
  ['a tag with a slash', { ...m, tag: 'a/b' }, bad('tag')],
  ['sound default', { ...m, sound: 'default' }, 'sent'],
  ['sound none', { ...m, sound: 'none' }, 'sent'],
  ['sound loud', { ...m, sound: 'loud' }, bad('sound')],
  ['ttl 1', { ...m, ttl: 1 }, 'sent'],
  ['ttl 2,592,000', { ...m, ttl: 2_592_000 }, 'sent'],
  ['ttl 0', { ...m, ttl: 0 }, bad('ttl')],
  ['ttl 2,592,001', { ...m, ttl: 2_592_001 }, bad('ttl')],
  ['a fractional ttl', { ...m, ttl: 1.5 }, bad('ttl')],
  ['a ttl string', { ...m, ttl: '60' }, bad('ttl')],
  ...['auto', 'iphone', 'watch', 'vision', "Ana's iPhone", 'ios', 'dev_123'].map(
    (target): Case => [`target ${target}`, { ...m, target }, 'sent'],
  ),
  ['a 64-byte target', { ...m, target: bytes(64) }, 'sent'],
  ['a 65-byte target', { ...m, target: bytes(65) }, bad('target')],
  ['an empty target', { ...m, target: '' }, bad('target')],
  // unknown and ignored fields
  ['an unknown field', { ...m, colour: 'red' }, bad('colour')],
  ['param.<name> in a JSON send', { ...m, 'param.color': 'red' }, bad('param.color')],
  ['the ignored version, type and attachments', { ...m, version: 2, type: 'note', attachments: [] }, 'sent'],
  ['a field set to undefined (absent, as in JSON)', { ...m, title: undefined }, 'sent'],
];

export function keys(count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i]));
}

/** `{"v":"…"}` of exactly n bytes. */
export function paramsOfBytes(n: number): Record<string, string> {
  return { v: 'x'.repeat(n - '{"v":""}'.length) };
}
