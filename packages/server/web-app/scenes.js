// The scenes, drawn once for the device page and the web app: SVG from fixed templates.
// Parameters only ever choose among known values or numbers, so nothing from a notification goes
// into markup. Two layouts: a strip (the device page's small screens) and a stage (the web app,
// full screen: a night sky, the ground, the fox watching). Motion is CSS, and scenes.css stills
// it for a person who asked for reduced motion: every scene then shows its last frame, and its
// parameters (the rocket's colour and countdown, the bursts, the door) still read the same.

// Maps, not objects: any value looked up finds only these, never an object's own members
// (`constructor`, `toString`), which would have gone into the markup.
const GOLD = '#e8b931';
/** @type {Map<unknown, string>} */
const BELL_COLORS = new Map([
  ['gold', GOLD],
  ['red', '#e5484d'],
  ['blue', '#3e8ef7'],
  ['green', '#30a46c'],
]);
const WHITE = '#f4f4f5';
/** @type {Map<unknown, string>} */
const ROCKET_COLORS = new Map([
  ['red', '#e5484d'],
  ['blue', '#3e8ef7'],
  ['green', '#30a46c'],
  ['white', WHITE],
]);
const DOOR_STATES = ['open', 'closed', 'opening', 'closing'];

/** A notification's `bell_color` as a colour: a named one, `#rrggbb`, else gold. */
export function bellColor(/** @type {unknown} */ value) {
  const named = BELL_COLORS.get(value);
  if (named !== undefined) return named;
  return typeof value === 'string' && /^#[0-9a-f]{6}$/i.test(value) ? value : GOLD;
}

/** An integer parameter within `min` to `max`, else `fallback`. */
function integerIn(
  /** @type {unknown} */ value,
  /** @type {number} */ min,
  /** @type {number} */ max,
  /** @type {number} */ fallback,
) {
  return typeof value === 'number' && Number.isInteger(value)
    ? Math.max(min, Math.min(max, value))
    : fallback;
}

const reducedMotion = () => globalThis.matchMedia?.('(prefers-reduced-motion: reduce)').matches === true;

const FOX = `<g class="fox"><g class="fox-tail"><path d="M40 40 q18 -2 20 -16 q-10 6 -22 8z" fill="#f07a26"/>
  <path d="M54 28 q5 -3 6 -4 q-1 5 -4 8z" fill="#fff4e6"/></g>
  <g class="fox-head"><path d="M8 30 L14 12 L22 24 L30 24 L38 12 L44 30 Q26 52 8 30Z" fill="#f07a26"/>
  <path d="M16 32 Q26 44 36 32 Q26 40 16 32Z" fill="#fff4e6"/><circle class="eye" cx="19" cy="28" r="2" fill="#222"/>
  <circle class="eye" cx="33" cy="28" r="2" fill="#222"/><circle cx="26" cy="37" r="2.2" fill="#222"/></g></g>`;
const BELL = `<g class="bell-icon"><path d="M100 14 q-14 0 -15 18 v12 l-6 8 h42 l-6 -8 v-12 q-1 -18 -15 -18z" fill="var(--bell)"/>
  <circle cx="100" cy="56" r="4" fill="var(--bell)"/></g>`;

/** The stage's sky: stars at fixed places. The ground, under the fox, is the page's (app.css). */
const STARS = [
  [18, 14],
  [46, 30],
  [74, 10],
  [128, 22],
  [152, 8],
  [176, 30],
  [188, 60],
  [10, 62],
]
  .map(([x, y], i) => `<circle class="star star-${i % 3}" cx="${x}" cy="${y}" r="${i % 2 ? 0.9 : 1.3}"/>`)
  .join('');

/**
 * Draws `scene` into `holder`. `stage: true` is the full-screen layout: the scene in the middle
 * of a taller sky, the fox on the ground watching it.
 * @param {HTMLElement} holder
 * @param {string | undefined} scene
 * @param {unknown} params the notification's `scene_params`: each one is checked where it is read
 * @param {string} bell a colour, as `bellColor` gives it
 * @param {{ stage?: boolean }} [layout]
 */
export function drawScene(holder, scene, params, bell, { stage = false } = {}) {
  /** @type {Map<string, unknown>} */
  const given = new Map(typeof params === 'object' && params !== null ? Object.entries(params) : []);
  holder.dataset.scene = scene ?? 'notice';
  holder.classList.toggle('stage', stage);
  holder.classList.remove('launched');
  const svg = (/** @type {string} */ inner) =>
    stage
      ? `<svg viewBox="0 0 200 170" preserveAspectRatio="xMidYMax meet" role="img" focusable="false">
          <rect width="200" height="170" class="sky"/>${STARS}
          <g transform="translate(0 40)">${inner}</g><g class="stage-fox" transform="translate(8 118) scale(1.15)">${FOX}</g></svg>`
      : `<svg viewBox="0 0 200 90" role="img" focusable="false"><rect width="200" height="90" rx="10" class="sky"/>${inner}<g transform="translate(6 42) scale(0.9)">${FOX}</g></svg>`;
  switch (scene) {
    case 'rocket': {
      const color = ROCKET_COLORS.get(given.get('color')) ?? WHITE;
      const countdown = integerIn(given.get('countdown'), 0, 10, 3);
      holder.innerHTML =
        svg(`<g class="rocket"><path d="M100 12 q12 14 12 40 h-24 q0 -26 12 -40z" fill="${color}" stroke="#333"/>
        <circle cx="100" cy="34" r="5" fill="#7ec8ff" stroke="#333"/><path d="M88 52 l-8 10 h8z M112 52 l8 10 h-8z" fill="#e5484d"/>
        <path class="flame" d="M93 52 q7 22 14 0z" fill="#ffb224"/></g>
        <text class="countdown" x="160" y="52" text-anchor="middle"></text>`);
      const text = holder.querySelector('.countdown');
      // Written just above; the markup is this module's own.
      if (text === null) throw new Error('the rocket scene has no countdown');
      const launch = () => {
        text.textContent = 'Liftoff';
        holder.classList.add('launched');
      };
      let left = countdown;
      text.textContent = String(left);
      if (countdown === 0) launch();
      else {
        // The numbers count down either way; with reduced motion the rocket does not fly off.
        const tick = setInterval(() => {
          left -= 1;
          if (!holder.isConnected || holder.dataset.scene !== 'rocket') return clearInterval(tick);
          if (left > 0) text.textContent = String(left);
          else {
            clearInterval(tick);
            launch();
          }
        }, 700);
      }
      break;
    }
    case 'fireworks': {
      const bursts = integerIn(given.get('bursts'), 1, 10, 3);
      let inner = '';
      for (let i = 0; i < bursts; i += 1) {
        const x = 40 + ((i * 47) % 140);
        const y = 18 + ((i * 29) % 40);
        const rays = Array.from({ length: 8 }, (_, r) => {
          const angle = (r * Math.PI) / 4;
          return `<line x1="0" y1="0" x2="${(Math.cos(angle) * 14).toFixed(1)}" y2="${(Math.sin(angle) * 14).toFixed(1)}"/>`;
        }).join('');
        // The position on an outer group: the animation's transform would replace it on the inner one.
        inner += `<g transform="translate(${x} ${y})"><g class="burst burst-${i % 4}" data-delay="${i}">${rays}</g></g>`;
      }
      holder.innerHTML = svg(inner);
      for (const burst of holder.querySelectorAll('.burst')) {
        // Each is an SVG <g> of the markup above, which has a style; the check says so to the types.
        if (burst instanceof SVGElement) {
          burst.style.setProperty('animation-delay', `${Number(burst.dataset.delay) * 0.35}s`);
        }
      }
      holder.dataset.bursts = String(bursts);
      break;
    }
    case 'garage': {
      const asked = given.get('doorState');
      const state = DOOR_STATES.find((known) => known === asked) ?? 'open';
      holder.innerHTML =
        svg(`<g class="garage"><path d="M60 40 L100 16 L140 40 V84 H60Z" fill="#c9b79c" stroke="#6b5b45"/>
        <rect x="72" y="46" width="56" height="38" fill="#3a3a3a"/>
        <g class="door door-${state}"><rect x="72" y="46" width="56" height="38" fill="#d8d2c4" stroke="#8a8170"/>
        <line x1="72" y1="56" x2="128" y2="56"/><line x1="72" y1="66" x2="128" y2="66"/><line x1="72" y1="76" x2="128" y2="76"/></g></g>
        <text class="label" x="172" y="52" text-anchor="middle">${state}</text>`);
      break;
    }
    case 'campfire':
      holder.innerHTML =
        svg(`<g class="campfire"><path d="M78 80 l44 -10 M78 70 l44 10" stroke="#7a4a22" stroke-width="6" stroke-linecap="round"/>
        <path class="flame flame-1" d="M100 24 q18 22 6 46 q-6 6 -12 0 q-12 -22 6 -46z" fill="#ff8b3d"/>
        <path class="flame flame-2" d="M100 40 q10 14 4 30 q-4 4 -8 0 q-6 -14 4 -30z" fill="#ffd23f"/></g>`);
      break;
    default:
      holder.innerHTML = svg(`<g class="ringing">${BELL}</g>`);
  }
  holder.dataset.motion = reducedMotion() ? 'reduced' : 'full';
  holder.style.setProperty('--bell', bell);
}
