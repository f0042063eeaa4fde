// Drives VS Code (code-server) in Debian's chromium for tests/vscode_e2e.
//
// A line-oriented RPC: one JSON request per stdin line, one JSON answer per stdout line
// ({ok: true, value} or {ok: false, error}). The Python test decides what to do and
// checks the results; this script only knows the browser. puppeteer-core comes from
// FLASHLS_PUPPETEER (the setup script's cache), chromium from FLASHLS_CHROMIUM.
'use strict';

const readline = require('readline');
const puppeteer = require(process.env.FLASHLS_PUPPETEER || 'puppeteer-core');

let browser;
let page;

// Nothing leaves loopback: every other host name fails to resolve, and the browser's
// own background traffic (updates, safe browsing, metrics) is off.
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-dev-shm-usage',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-default-apps',
  '--disable-sync',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication',
  '--metrics-recording-only',
  '--no-first-run',
  '--no-default-browser-check',
  '--password-store=basic',
  '--use-mock-keychain',
  '--window-size=1400,900',
];

async function launch({ url, chromium }) {
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    args: CHROMIUM_ARGS,
    defaultViewport: { width: 1400, height: 900 },
  });
  page = await browser.newPage();
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
  return true;
}

/** Press a chord like "Control+Shift+P" (modifiers held, last key pressed). */
async function press(chord) {
  const keys = chord.split('+');
  const last = keys.pop();
  for (const key of keys) await page.keyboard.down(key);
  await page.keyboard.press(last);
  for (const key of keys.reverse()) await page.keyboard.up(key);
}

async function frameText({ contains, timeoutMs }) {
  const deadline = Date.now() + (timeoutMs ?? 30000);
  for (;;) {
    // Webviews live in nested iframes: never the workbench's own frame.
    for (const frame of page.frames().filter((f) => f !== page.mainFrame())) {
      try {
        const html = await frame.evaluate(() => (document.body ? document.body.innerHTML : ''));
        if (html.includes(contains)) {
          const text = await frame.evaluate(() => document.body.innerText);
          return { text, html };
        }
      } catch {
        // a frame that is navigating or detached: look again next round
      }
    }
    if (Date.now() > deadline) throw new Error(`no frame contains ${JSON.stringify(contains)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const OPS = {
  launch,
  async keys({ keys }) {
    for (const chord of keys) await press(chord);
    return true;
  },
  async type({ text, delay }) {
    await page.keyboard.type(text, { delay: delay ?? 20 });
    return true;
  },
  async eval({ js }) {
    return page.evaluate(js);
  },
  async waitFor({ js, timeoutMs }) {
    const handle = await page.waitForFunction(js, { timeout: timeoutMs ?? 30000, polling: 100 });
    return handle.jsonValue();
  },
  async click({ selector }) {
    await page.click(selector);
    return true;
  },
  frameText,
  async screenshot({ path }) {
    await page.screenshot({ path });
    return path;
  },
  async close() {
    if (browser) await browser.close();
    browser = undefined;
    return true;
  },
};

const rl = readline.createInterface({ input: process.stdin, terminal: false });
let queue = Promise.resolve();
rl.on('line', (line) => {
  queue = queue.then(async () => {
    let answer;
    try {
      const request = JSON.parse(line);
      const op = OPS[request.op];
      if (!op) throw new Error(`unknown op ${request.op}`);
      answer = { ok: true, value: (await op(request)) ?? null };
    } catch (error) {
      answer = { ok: false, error: String(error && error.stack ? error.stack : error) };
    }
    process.stdout.write(JSON.stringify(answer) + '\n');
  });
});
rl.on('close', () => {
  queue.then(() => (browser ? browser.close() : undefined)).finally(() => process.exit(0));
});
