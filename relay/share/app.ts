/**
 * The share page's browser app (bundled to `dist/relay/share/app.js`, served
 * at `/share/app.js`, loaded by the shell of `page.ts`).
 *
 * It reads `#<authorityId>.<claimSecret>` from `location.hash` (the fragment
 * never leaves the browser: it is not in any request, and this script sends it
 * nowhere), connects as a Consumer to `/consumer/{authorityId}` on the bridge
 * that served the page, runs the E2E hello (checking the Authority's signature
 * against the ID from the fragment), sends `{"type":"claim","secret":…}` as the
 * first encrypted message, and shows the status and every decrypted message.
 * A lost connection is retried with backoff; each new connection is a new
 * session, with a new hello and the claim sent again.
 */
import { ConsumerClient, type ConsumerCloseInfo, type ConsumerState } from '../clients/consumer-client.js';
import { isAuthorityId } from '../clients/keys.js';

export interface ShareFragment {
  readonly authorityId: string;
  readonly claimSecret: string;
}

const SECRET_PATTERN = /^[A-Za-z0-9_-]{1,1024}$/;

/** Parses `#<authorityId>.<claimSecret>`; `undefined` when malformed. */
export function parseShareFragment(hash: string): ShareFragment | undefined {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  const dot = text.indexOf('.');
  if (dot < 0) return undefined;
  const authorityId = text.slice(0, dot);
  const claimSecret = text.slice(dot + 1);
  if (!isAuthorityId(authorityId) || !SECRET_PATTERN.test(claimSecret)) return undefined;
  return { authorityId, claimSecret };
}

/** The bridge's base address for a page at `…/share/{code}`: the path before `/share/`. */
export function bridgeBaseFromPage(pageUrl: string): string {
  const url = new URL(pageUrl);
  const at = url.pathname.lastIndexOf('/share/');
  url.pathname = at >= 0 ? url.pathname.slice(0, at + 1) : '/';
  url.search = '';
  url.hash = '';
  return url.href;
}

/** Close codes after which retrying cannot help. */
const TERMINAL_CODES = new Set([4400, 4405, 4406]);

/** What an Authority message shows: a JSON object's string `text`, else the raw text. */
export function displayText(message: string): string {
  try {
    const value: unknown = JSON.parse(message);
    if (typeof value === 'object' && value !== null && typeof (value as { text?: unknown }).text === 'string') {
      return (value as { text: string }).text;
    }
  } catch {
    // not JSON: shown as is
  }
  return message;
}

type PageState = 'invalid' | 'connecting' | 'handshaking' | 'connected' | 'reconnecting' | 'failed';

export function startShareApp(doc: Document = document, pageUrl: string = location.href, hash: string = location.hash): void {
  const status = doc.getElementById('status')!;
  const messages = doc.getElementById('messages')!;
  const form = doc.getElementById('composer') as HTMLFormElement | null;
  const input = doc.getElementById('message-input') as HTMLInputElement | null;

  const setStatus = (state: PageState, text: string): void => {
    status.dataset.state = state;
    status.textContent = text;
    if (input) input.disabled = state !== 'connected';
    const button = form?.querySelector('button');
    if (button) button.disabled = state !== 'connected';
  };
  const show = (from: 'authority' | 'me', text: string): void => {
    const item = doc.createElement('li');
    item.className = `message from-${from}`;
    item.textContent = text;
    messages.append(item);
  };

  const fragment = parseShareFragment(hash);
  if (!fragment) {
    setStatus('invalid', 'This share link is incomplete or malformed.');
    return;
  }

  const base = bridgeBaseFromPage(pageUrl);
  let client: ConsumerClient | undefined;
  let attempt = 0;

  const connect = (): void => {
    setStatus(attempt === 0 ? 'connecting' : 'reconnecting', attempt === 0 ? 'Connecting…' : 'Reconnecting…');
    const consumer = new ConsumerClient({
      url: base,
      authorityId: fragment.authorityId,
      onStateChange: (state: ConsumerState) => {
        if (state === 'handshaking') setStatus('handshaking', 'Securing the connection…');
      },
      onMessage: (text) => show('authority', displayText(text)),
      onClose: (info: ConsumerCloseInfo) => {
        if (client !== consumer) return;
        client = undefined;
        if (info.error || TERMINAL_CODES.has(info.code)) {
          setStatus('failed', info.error ? `Connection refused: ${info.error.message}` : `Connection closed by the bridge (${info.code}).`);
          return;
        }
        const delay = Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2);
        attempt++;
        setStatus('reconnecting', info.code === 4404 ? 'The hub is offline; retrying…' : 'Connection lost; retrying…');
        setTimeout(connect, delay);
      },
    });
    client = consumer;
    consumer
      .connect()
      .then(async () => {
        // The claim is part of setting the session up, so it travels on the signaling lane.
        await consumer.send(JSON.stringify({ type: 'claim', secret: fragment.claimSecret }), { lane: 'signaling' });
        attempt = 0;
        setStatus('connected', 'Connected (end-to-end encrypted).');
      })
      .catch(() => undefined); // reported through onClose
  };

  form?.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = input?.value ?? '';
    if (!client || client.state !== 'open' || text === '') return;
    client.send(JSON.stringify({ type: 'message', text })).then(
      () => {
        show('me', text);
        if (input) input.value = '';
      },
      () => undefined,
    );
  });

  connect();
}

if (typeof document !== 'undefined' && document.getElementById('share-app')) startShareApp();
