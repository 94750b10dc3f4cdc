// Headless Chromium for the browser e2e tests: Debian's `chromium` package driven by
// puppeteer-core, confined to loopback, with a recorder of the page's gateway WebSocket frames.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import puppeteer from "puppeteer-core";

/** Where Debian's package puts it; CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Why the browser tests cannot run here, or null when they can. */
export function chromiumMissing() {
  return existsSync(CHROMIUM_PATH)
    ? null
    : `Chromium not found at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install -y chromium; .ci/run does it as root) or set CHROMIUM_PATH`;
}

/** A fresh browser with its own profile (removed by close()). */
export async function launchChromium() {
  const profile = mkdtempSync(join(tmpdir(), "oc-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    userDataDir: profile,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-default-apps",
      // No internet here: every host but loopback fails at once instead of waiting on DNS.
      "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE localhost , EXCLUDE 127.0.0.1",
      "--window-size=1440,900",
    ],
  });
  return {
    browser,
    async close() {
      await browser.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * Records the gateway frames of a page (through the DevTools protocol, as the browser sees
 * them): every request the UI sends and every response, in order, with a timestamp.
 */
export async function recordFrames(page) {
  const frames = [];
  const sockets = [];
  const cdp = await page.createCDPSession();
  cdp.on("Network.webSocketCreated", (event) => sockets.push(event.url));
  const onFrame = (dir) => (event) => {
    let frame;
    try {
      frame = JSON.parse(event.response?.payloadData ?? "");
    } catch {
      return;
    }
    frames.push({ at: Date.now(), dir, frame });
  };
  cdp.on("Network.webSocketFrameSent", onFrame("out"));
  cdp.on("Network.webSocketFrameReceived", onFrame("in"));
  await cdp.send("Network.enable");
  return {
    frames,
    sockets,
    /** Requests the UI sent since `since` (ms epoch). */
    requests(since = 0) {
      return frames.filter((f) => f.at >= since && f.dir === "out" && f.frame?.type === "req").map((f) => f.frame);
    },
    /** Error responses since `since`, with their method. */
    failures(since = 0) {
      const methods = new Map(this.requests().map((r) => [r.id, r.method]));
      return frames
        .filter((f) => f.at >= since && f.dir === "in" && f.frame?.type === "res" && f.frame.ok === false)
        .map((f) => ({ method: methods.get(f.frame.id), error: f.frame.error }));
    },
    /**
     * Resolves once the page is quiet: every request since `since` answered and no frame for
     * `quietMs` (a page's first calls come in a burst after it renders), or after `maxMs`.
     */
    async settled(since, { quietMs = 1_000, maxMs = 5_000 } = {}) {
      const deadline = Date.now() + maxMs;
      while (Date.now() < deadline) {
        const recent = frames.filter((f) => f.at >= since);
        const answered = new Set(
          recent.filter((f) => f.dir === "in" && f.frame?.type === "res").map((f) => f.frame.id),
        );
        const open = this.requests(since).some((r) => !answered.has(r.id));
        const lastAt = Math.max(since, ...recent.map((f) => f.at));
        if (!open && Date.now() - lastAt >= quietMs) return;
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    helloOk() {
      return frames.find((f) => f.dir === "in" && f.frame?.type === "res" && f.frame.payload?.type === "hello-ok")
        ?.frame.payload;
    },
    /** The last `n` frames, one line each, for failure messages. */
    tail(n = 30) {
      return frames
        .slice(-n)
        .map(({ dir, frame }) => {
          const text = JSON.stringify(frame);
          return `  ${dir.padEnd(4)} ${text.length > 400 ? `${text.slice(0, 400)}…` : text}`;
        })
        .join("\n");
    },
  };
}

/** Counts per method. */
export function countByMethod(requests) {
  const counts = {};
  for (const request of requests) counts[request.method] = (counts[request.method] ?? 0) + 1;
  return counts;
}

/** Whether the page's visible text (open shadow roots included) contains `text`. */
export function pageHasText(page, text) {
  return page.evaluate((wanted) => {
    const visible = (el) => {
      const rect = el.getBoundingClientRect();
      return rect.width > 0 && rect.height > 0 && getComputedStyle(el).visibility !== "hidden";
    };
    const walk = (root) => {
      for (const node of root.childNodes) {
        if (
          node.nodeType === 3 &&
          node.textContent.includes(wanted) &&
          node.parentElement &&
          visible(node.parentElement)
        )
          return true;
        if (node.nodeType === 1) {
          if (node.shadowRoot && walk(node.shadowRoot)) return true;
          if (walk(node)) return true;
        }
      }
      return false;
    };
    return walk(document);
  }, text);
}

/** Waits until the page shows `text`; the error says what was awaited. */
export async function waitForText(page, text, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await pageHasText(page, text).catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the page did not show "${text}" within ${timeoutMs} ms (at ${page.url()})`);
}

/** The first visible element matching `selector` through open shadow roots, or null. */
export async function findDeep(page, selector) {
  const handle = await page.evaluateHandle((css) => {
    const search = (root) => {
      for (const el of root.querySelectorAll("*")) {
        if (el.matches(css)) {
          const rect = el.getBoundingClientRect();
          if (rect.width > 0 && rect.height > 0 && !el.disabled) return el;
        }
        if (el.shadowRoot) {
          const found = search(el.shadowRoot);
          if (found) return found;
        }
      }
      return null;
    };
    return search(document);
  }, selector);
  return handle.asElement();
}

export async function waitForDeep(page, selector, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const element = await findDeep(page, selector).catch(() => null);
    if (element) return element;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no visible ${selector} on the page within ${timeoutMs} ms (at ${page.url()})`);
}

/**
 * What the Control UI tests do with a page, in one place: screenshots per step (and the last
 * frames when one fails), in-app navigation, clicks by visible text, typing as a user would, the
 * answer to a method the UI called, the login card and the chat composer.
 */
export function uiDriver({ page, recorder, shotsDir, stepMs }) {
  const shot = (name) => page.screenshot({ path: join(shotsDir, `${name}.png`) }).catch(() => {});
  return {
    shot,
    async step(name, fn) {
      try {
        await fn();
        await shot(name);
      } catch (error) {
        await shot(`${name}-FAILED`);
        if (error && typeof error === "object") error.message += `\n  last frames:\n${recorder.tail()}`;
        throw error;
      }
    },
    /** Navigates inside the single-page app (a full load would drop the token the UI keeps). */
    openRoute(path) {
      return page.evaluate((path) => {
        history.pushState({}, "", path);
        dispatchEvent(new PopStateEvent("popstate"));
      }, path);
    },
    /** Clicks the first visible, enabled `tag` whose text is exactly `text`. */
    async clickText(tag, text) {
      const deadline = Date.now() + stepMs;
      while (Date.now() < deadline) {
        const clicked = await page.evaluate(
          (tag, text) => {
            const search = (root) => {
              for (const el of root.querySelectorAll(tag)) {
                if (el.textContent.trim() === text && el.getBoundingClientRect().height > 0 && !el.disabled) return el;
              }
              for (const el of root.querySelectorAll("*")) {
                const found = el.shadowRoot && search(el.shadowRoot);
                if (found) return found;
              }
              return null;
            };
            const el = search(document);
            el?.click();
            return Boolean(el);
          },
          tag,
          text,
        );
        if (clicked) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`no visible ${tag} "${text}" to click`);
    },
    async clickDeep(selector) {
      const element = await waitForDeep(page, selector, stepMs);
      await element.evaluate((el) => el.click());
    },
    async typeInto(selector, text) {
      const element = await waitForDeep(page, selector, stepMs);
      await element.click();
      await element.type(text, { delay: 2 });
    },
    /** Sets an input's value as typing would (the UI listens to input events). */
    async fill(selector, value) {
      const element = await waitForDeep(page, selector, stepMs);
      await element.evaluate((input, value) => {
        input.value = value;
        input.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
        input.dispatchEvent(new Event("change", { bubbles: true, composed: true }));
      }, value);
    },
    /** The UI's latest request of `method` since `since`, and its answer once it arrived. */
    async answerOf(method, since) {
      const deadline = Date.now() + stepMs;
      while (Date.now() < deadline) {
        const request = recorder.requests(since).findLast((r) => r.method === method);
        const answer =
          request &&
          recorder.frames.find((f) => f.dir === "in" && f.frame?.type === "res" && f.frame.id === request.id);
        if (answer) return { params: request.params, answer: answer.frame };
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`no answer to ${method}`);
    },
    /** Opens the UI and signs in on its login card; resolves once hello-ok arrived. */
    async login(baseUrl, token) {
      await page.goto(`${baseUrl}/`, { waitUntil: "domcontentloaded" });
      const secret = await waitForDeep(page, 'input[placeholder="Paste the token or type the password"]', stepMs);
      await secret.type(token);
      await page.keyboard.press("Enter");
      const deadline = Date.now() + stepMs;
      while (!recorder.helloOk() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      if (!recorder.helloOk()) throw new Error("the UI did not connect");
    },
    async sendFromComposer(text) {
      const composer = await waitForDeep(page, "textarea", stepMs);
      await composer.click();
      await composer.type(text, { delay: 2 });
      await page.keyboard.press("Enter");
    },
  };
}

/**
 * A fresh browser on the Control UI of `baseUrl`, signed in with `token`: the page, its frame
 * recorder and a driver; `close()` ends the browser.
 */
export async function openControlUi({ baseUrl, token, shotsDir, stepMs }) {
  const chromium = await launchChromium();
  const page = await chromium.browser.newPage();
  await page.setViewport({ width: 1440, height: 900 });
  const recorder = await recordFrames(page);
  const ui = uiDriver({ page, recorder, shotsDir, stepMs });
  await ui.login(baseUrl, token);
  return { page, recorder, ui, close: () => chromium.close() };
}
