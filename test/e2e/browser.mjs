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
