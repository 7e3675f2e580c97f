import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/** Flags that keep Chromium off the (closed) network and quiet on a headless machine. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

export class MissingDependencyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingDependencyError';
  }
}

export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
    (p): p is string => !!p,
  );
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new MissingDependencyError(
      'Chromium is needed for the webview and VS Code tests. Install it with: sudo apt-get install -y chromium ' +
        '(or set CHROMIUM_PATH to a Chromium binary).',
    );
  }
  return found;
}

/**
 * Headless by default. With `display` (an X display such as Xvfb's), a real window at the screen's
 * top-left corner instead, so a pointer moved there by the window system reaches the page.
 */
export async function launchChromium(options: { display?: string } = {}): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  if (options.display)
    return chromium.launch({
      executablePath: chromiumPath(),
      args: [...CHROMIUM_ARGS, '--window-position=0,0', '--window-size=1400,1000'],
      headless: false,
      env: { ...process.env, DISPLAY: options.display },
    });
  return chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS, headless: true });
}
