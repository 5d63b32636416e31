// The scenes, drawn once for the device page and the web app: SVG from fixed templates.
// Parameters only ever choose among known values or numbers, so nothing from a notification goes
// into markup.

const BELL_COLORS = { gold: '#e8b931', red: '#e5484d', blue: '#3e8ef7', green: '#30a46c' };
const ROCKET_COLORS = { red: '#e5484d', blue: '#3e8ef7', green: '#30a46c', white: '#f4f4f5' };

export function bellColor(value) {
  if (BELL_COLORS[value]) return BELL_COLORS[value];
  return /^#[0-9a-f]{6}$/i.test(value ?? '') ? value : BELL_COLORS.gold;
}

const FOX = `<g class="fox"><path d="M8 30 L14 12 L22 24 L30 24 L38 12 L44 30 Q26 52 8 30Z" fill="#f07a26"/>
  <path d="M16 32 Q26 44 36 32 Q26 40 16 32Z" fill="#fff4e6"/><circle cx="19" cy="28" r="2" fill="#222"/>
  <circle cx="33" cy="28" r="2" fill="#222"/><circle cx="26" cy="37" r="2.2" fill="#222"/></g>`;
const BELL = `<g class="bell-icon"><path d="M100 14 q-14 0 -15 18 v12 l-6 8 h42 l-6 -8 v-12 q-1 -18 -15 -18z" fill="var(--bell)"/>
  <circle cx="100" cy="56" r="4" fill="var(--bell)"/></g>`;

export function drawScene(holder, scene, params, bell) {
  holder.dataset.scene = scene ?? 'notice';
  const svg = (inner) =>
    `<svg viewBox="0 0 200 90" role="img" focusable="false"><rect width="200" height="90" rx="10" class="sky"/>${inner}<g transform="translate(6 42) scale(0.9)">${FOX}</g></svg>`;
  switch (scene) {
    case 'rocket': {
      const color = ROCKET_COLORS[params.color] ?? ROCKET_COLORS.white;
      const countdown = Number.isInteger(params.countdown) ? Math.max(0, Math.min(10, params.countdown)) : 3;
      holder.innerHTML =
        svg(`<g class="rocket"><path d="M100 12 q12 14 12 40 h-24 q0 -26 12 -40z" fill="${color}" stroke="#333"/>
        <circle cx="100" cy="34" r="5" fill="#7ec8ff" stroke="#333"/><path d="M88 52 l-8 10 h8z M112 52 l8 10 h-8z" fill="#e5484d"/>
        <path class="flame" d="M93 52 q7 22 14 0z" fill="#ffb224"/></g>
        <text class="countdown" x="160" y="52" text-anchor="middle"></text>`);
      const text = holder.querySelector('.countdown');
      let left = countdown;
      text.textContent = String(left);
      const tick = setInterval(() => {
        left -= 1;
        if (left > 0) text.textContent = String(left);
        else {
          clearInterval(tick);
          text.textContent = 'Liftoff';
          holder.classList.add('launched');
        }
      }, 700);
      if (countdown === 0) holder.classList.add('launched');
      break;
    }
    case 'fireworks': {
      const bursts = Number.isInteger(params.bursts) ? Math.max(1, Math.min(10, params.bursts)) : 3;
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
        burst.style.setProperty('animation-delay', `${Number(burst.dataset.delay) * 0.35}s`);
      }
      holder.dataset.bursts = String(bursts);
      break;
    }
    case 'garage': {
      const state = ['open', 'closed', 'opening', 'closing'].includes(params.doorState)
        ? params.doorState
        : 'open';
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
  holder.style.setProperty('--bell', bell);
}
