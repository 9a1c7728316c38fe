/**
 * The share page in headless Chromium against the Node bridge on 127.0.0.1,
 * with the reference Authority client in this process.
 *
 * Between the browser (and the Authority) and the bridge sits a logging tap:
 * an HTTP front that records every request (method, path, headers, body) and,
 * for WebSocket upgrades, every frame in both directions (unmasked, reassembled).
 * It is what "the server received": the tests assert that neither the URL
 * fragment nor the claim secret nor any plaintext ever shows up there.
 *
 * The app bundle is built from the current sources (relay/share/app.ts and
 * the client modules, transpiled with TypeScript and bundled with rollup, as
 * the real build does) and handed to `setShareAppScript()`.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { rollup } from 'rollup';
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthorityClient, type AuthoritySession } from '../../../relay/clients/authority-client.js';
import { encodeBase64url } from '../../../relay/clients/base64url.js';
import { generateAuthorityKey, type AuthorityKey } from '../../../relay/clients/keys.js';
import { startNodeBridge, type NodeBridge } from '../../../relay/index.js';
import { bridgeBaseFromPage, displayText, parseShareFragment } from '../../../relay/share/app.js';
import { setShareAppScript, shareAppScript, SHARE_PAGE_CSP, sharePageHtml } from '../../../relay/share/page.js';
import { startTap } from './bridge-tap.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Bundles relay/share/app.ts like the build: TypeScript → ES2023 module, rollup → one self-contained file. */
async function buildShareApp(): Promise<string> {
  const input = fileURLToPath(new URL('../../../relay/share/app.ts', import.meta.url));
  const bundle = await rollup({
    input,
    plugins: [
      {
        name: 'typescript-sources',
        resolveId(source, importer) {
          if (!importer || !source.startsWith('.') || !source.endsWith('.js')) return null;
          const file = fileURLToPath(new URL(source.replace(/\.js$/, '.ts'), `file://${importer}`));
          return existsSync(file) ? file : null;
        },
        async load(id) {
          if (!id.endsWith('.ts')) return null;
          const { outputText } = ts.transpileModule(await readFile(id, 'utf8'), {
            fileName: id,
            compilerOptions: { target: ts.ScriptTarget.ES2023, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: true },
          });
          return outputText;
        },
      },
    ],
    onwarn(warning) {
      throw new Error(`rollup: ${warning.message}`);
    },
  });
  const { output } = await bundle.generate({ format: 'es' });
  await bundle.close();
  expect(output).toHaveLength(1);
  return output[0].code;
}

async function until(condition: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(condition()).toBe(true);
}

let context: BrowserContext;
let userDataDir: string;
let bridge: NodeBridge;
let front: Awaited<ReturnType<typeof startTap>>;
const cleanups: (() => unknown)[] = [];
const consoleLines: string[] = [];

beforeAll(async () => {
  setShareAppScript(await buildShareApp());
  // The bridge's defaults serve relay/share/page.ts: the shell and shareAppScript().
  bridge = await startNodeBridge({ port: 0 });
  front = await startTap(bridge);
  userDataDir = await mkdtemp(join(tmpdir(), 'share-page-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: ARGS });
}, 60_000);

afterAll(async () => {
  await context?.close();
  await front?.close();
  await bridge?.close();
  setShareAppScript(undefined);
  if (userDataDir) await rm(userDataDir, { recursive: true, force: true });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  front.tap.requests.length = 0;
  front.tap.messages.length = 0;
  front.tap.closes.length = 0;
});

function startAuthority(key: AuthorityKey, onMessage: (session: AuthoritySession, text: string) => void | Promise<void>) {
  const client = new AuthorityClient({ url: front.url, key, onMessage, backoff: { initialMs: 50, maxMs: 200 } });
  cleanups.push(() => client.stop());
  client.start();
  return client;
}

async function openPage(path: string): Promise<Page> {
  const page = await context.newPage();
  page.on('console', (message) => consoleLines.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => consoleLines.push(`pageerror: ${error.message}`));
  cleanups.push(() => page.close());
  await page.goto(`${front.url}${path}`);
  return page;
}

const statusOf = (page: Page) => page.locator('#status').getAttribute('data-state');

describe('share page in Chromium', () => {
  it('connects, claims over the encrypted channel and shows the reply; nothing secret reaches the bridge', async () => {
    const key = await generateAuthorityKey();
    const secret = encodeBase64url(crypto.getRandomValues(new Uint8Array(32)));
    const reply = 'Welcome! Access granted to the living room lights.';
    const typed = 'please dim the lights to 30%';
    const received: string[] = [];
    const authority = startAuthority(key, async (session, text) => {
      received.push(text);
      if (received.length === 1) await session.send(JSON.stringify({ type: 'message', text: reply }));
    });
    await until(() => authority.status === 'ready');

    const page = await openPage(`/share/abc#${key.authorityId}.${secret}`);
    await page.waitForSelector('#status[data-state="connected"]', { timeout: 15_000 });
    await page.waitForSelector('#messages .from-authority', { timeout: 10_000 });
    expect(await page.locator('#messages .from-authority').allTextContents()).toEqual([reply]);

    // The Authority got the claim secret, decrypted, as the first message.
    expect(received.map((text) => JSON.parse(text) as unknown)).toEqual([{ type: 'claim', secret }]);

    // The composer sends encrypted messages too.
    await page.fill('#message-input', typed);
    await page.click('#composer button');
    await until(() => received.length === 2);
    expect(JSON.parse(received[1]!)).toEqual({ type: 'message', text: typed });
    await page.waitForSelector('#messages .from-me');

    // What the bridge received and sent: the page, the script, two sockets; all ciphertext.
    const paths = front.tap.requests.map((request) => request.url);
    expect(paths).toContain('/share/abc');
    expect(paths).toContain('/share/app.js');
    expect(paths).toContain(`/consumer/${key.authorityId}`);
    expect(paths).toContain(`/authority/${key.authorityId}`);
    for (const request of front.tap.requests) {
      expect(request.url).not.toContain('#');
      expect(request.url).not.toContain(secret);
    }
    const everything = front.tap.everything();
    // Positive controls: the tap does see paths and frames in both directions.
    expect(everything).toContain(key.authorityId);
    expect(front.tap.messages.some((message) => message.direction === 'from-bridge' && message.text.includes('"welcome"'))).toBe(true);
    expect(front.tap.messages.some((message) => message.direction === 'to-bridge' && message.text.includes('"auth"'))).toBe(true);
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(`${key.authorityId}.`);
    for (const plaintext of [reply, typed, 'Welcome', 'claim', 'living room']) expect(everything).not.toContain(plaintext);
    const relayed = front.tap.messages.filter((message) => message.text.includes('"relay"'));
    expect(relayed.length).toBeGreaterThanOrEqual(8); // hellos, claim, reply, typed message, both legs each
    for (const message of relayed) expect(Object.keys(JSON.parse(message.text) as object).sort()).toEqual(expect.arrayContaining(['data', 'type']));
  });

  it('waits for an offline hub (4404) and connects once it is online', async () => {
    const key = await generateAuthorityKey();
    const secret = 'offline-first-secret';
    const page = await openPage(`/share/x1#${key.authorityId}.${secret}`);
    await until(() => front.tap.closes.some((close) => close.direction === 'from-bridge' && close.code === 4404));
    await page.waitForSelector('#status[data-state="reconnecting"]');
    const received: string[] = [];
    const authority = startAuthority(key, (_session, text) => void received.push(text));
    await until(() => authority.status === 'ready');
    await page.waitForSelector('#status[data-state="connected"]', { timeout: 20_000 });
    await until(() => received.length === 1);
    expect(JSON.parse(received[0]!)).toEqual({ type: 'claim', secret });
    expect(front.tap.everything()).not.toContain(secret);
  });

  it('refuses a malformed link without opening a socket', async () => {
    const page = await openPage('/share/abc#not-an-id.secret');
    await page.waitForSelector('#status[data-state="invalid"]');
    expect(await statusOf(page)).toBe('invalid');
    expect(front.tap.requests.map((request) => request.url)).toEqual(['/share/abc', '/share/app.js']);
  });

  it('shows nothing from the fragment in the DOM and keeps no secret in the shell', async () => {
    const key = await generateAuthorityKey();
    startAuthority(key, () => undefined);
    const secret = 'dom-check-secret-value';
    const page = await openPage(`/share/abc#${key.authorityId}.${secret}`);
    await page.waitForSelector('#status[data-state="connected"]', { timeout: 15_000 });
    expect(await page.locator('body').innerHTML()).not.toContain(secret);
    expect(consoleLines.filter((line) => line.startsWith('pageerror'))).toEqual([]);
  });
});

describe('share page modules', () => {
  it('the shell loads one same-origin script, no inline code, with a strict CSP', () => {
    const html = sharePageHtml();
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<script type="module" src="app.js"></script>');
    expect(html.match(/<script/g)).toHaveLength(1);
    for (const id of ['share-app', 'status', 'messages', 'composer', 'message-input']) expect(html).toContain(`id="${id}"`);
    expect(html).toContain('name="referrer" content="no-referrer"');
    expect(html).toContain(SHARE_PAGE_CSP);
    expect(SHARE_PAGE_CSP).toContain("script-src 'self'");
    expect(SHARE_PAGE_CSP).toContain("connect-src 'self'");
  });

  it('the bridge serves the shell at /share/{code} and the bundle at /share/app.js', async () => {
    const shell = await fetch(`${bridge.url}/share/abc`);
    expect(shell.status).toBe(200);
    expect(shell.headers.get('content-type')).toMatch(/^text\/html/);
    expect(shell.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await shell.text()).toBe(sharePageHtml());
    const app = await fetch(`${bridge.url}/share/app.js`);
    expect(app.status).toBe(200);
    expect(app.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await app.text()).toBe(shareAppScript());
  });

  it('shareAppScript() returns the bundle: self-contained, with the app and the clients', () => {
    const script = shareAppScript();
    expect(script).not.toMatch(/^\s*import\s/m);
    expect(script).toContain('startShareApp');
    expect(script).toContain('pi-relay-e2e:1:');
  });

  it('parses the fragment and the bridge address', () => {
    const id = encodeBase64url(new Uint8Array(32).fill(9));
    expect(parseShareFragment(`#${id}.s3cret_-X`)).toEqual({ authorityId: id, claimSecret: 's3cret_-X' });
    expect(parseShareFragment(`${id}.abc`)).toEqual({ authorityId: id, claimSecret: 'abc' });
    for (const bad of ['', '#', `#${id}`, `#${id}.`, `#${id.slice(1)}.abc`, `#${id}.a b`, `#${id}.a.b`, '#.abc']) {
      expect(parseShareFragment(bad), bad).toBeUndefined();
    }
    expect(bridgeBaseFromPage('https://bridge.example/share/abc#x.y')).toBe('https://bridge.example/');
    expect(bridgeBaseFromPage('https://bridge.example/relay/share/abc?q=1')).toBe('https://bridge.example/relay/');
    expect(displayText('{"type":"message","text":"hi"}')).toBe('hi');
    expect(displayText('plain')).toBe('plain');
    expect(displayText('{"no":"text"}')).toBe('{"no":"text"}');
  });
});
