/* Web call embed: a call button on a business's site that opens the call page in a frame. The business's own
 * server starts the call (POST /api/v1/web-calls with its API token) and answers its page_url; the API token never
 * reaches the browser.
 *
 *   <script src="https://API/hooks/v1/web/embed.js" data-start-url="/start-web-call" data-label="Talk to us" async></script>
 *
 * data-start-url: an address of the business's site answering {"page_url": "..."} to a POST (same-site cookies are
 * sent). Or call window.WebCall.open(pageUrl) with a page_url obtained another way. No dependency. */
(function () {
  'use strict';
  const script = document.currentScript;
  const apiOrigin = new URL(script.src).origin;
  const startUrl = script.getAttribute('data-start-url');
  const label = script.getAttribute('data-label') || 'Talk to us';
  const accent = script.getAttribute('data-color') || '#4f46e5';
  let overlay = null;

  function style(el, css) {
    for (const k in css) el.style[k] = css[k];
    return el;
  }

  /** Opens the call page of `pageUrl` (a page_url of this API, token in its fragment) in a frame. */
  function open(pageUrl) {
    const url = new URL(pageUrl, apiOrigin);
    if (url.origin !== apiOrigin || !/^\/hooks\/v1\/web\/calls\/[0-9a-f-]{36}\/page$/i.test(url.pathname))
      throw new Error('WebCall.open takes a page_url of ' + apiOrigin);
    close();
    overlay = style(document.createElement('div'), {
      position: 'fixed',
      inset: '0',
      background: 'rgba(15, 18, 30, 0.45)',
      zIndex: '2147483646',
      display: 'flex',
      alignItems: 'flex-end',
      justifyContent: 'flex-end',
      padding: window.innerWidth < 520 ? '0' : '24px',
    });
    overlay.setAttribute('role', 'dialog');
    overlay.setAttribute('aria-label', 'Voice call');
    const frame = style(document.createElement('iframe'), {
      width: window.innerWidth < 520 ? '100%' : '420px',
      height: window.innerWidth < 520 ? '100%' : 'min(700px, calc(100vh - 48px))',
      border: '0',
      borderRadius: window.innerWidth < 520 ? '0' : '20px',
      boxShadow: '0 24px 60px rgba(0,0,0,0.25)',
      background: '#fff',
    });
    frame.allow = 'microphone; autoplay';
    frame.title = 'Voice call';
    frame.src = url.href;
    const x = style(document.createElement('button'), {
      position: 'absolute',
      top: '12px',
      right: '12px',
      width: '36px',
      height: '36px',
      borderRadius: '50%',
      border: '0',
      background: '#fff',
      color: '#14161c',
      fontSize: '20px',
      lineHeight: '36px',
      cursor: 'pointer',
      boxShadow: '0 2px 8px rgba(0,0,0,0.2)',
    });
    x.type = 'button';
    x.textContent = '×';
    x.setAttribute('aria-label', 'Close the call');
    x.onclick = close;
    overlay.appendChild(frame);
    overlay.appendChild(x);
    document.body.appendChild(overlay);
  }

  /** Removes the frame: the page's socket closes, and the call ends as hung up. */
  function close() {
    if (overlay) overlay.remove();
    overlay = null;
  }

  async function startAndOpen(button) {
    button.disabled = true;
    try {
      const res = await fetch(startUrl, { method: 'POST', credentials: 'same-origin' });
      if (!res.ok) throw new Error('start failed: ' + res.status);
      const body = await res.json();
      open(body.page_url || (body.data && body.data.page_url));
    } catch (e) {
      button.textContent = 'Call unavailable';
      setTimeout(() => (button.textContent = label), 3000);
    } finally {
      button.disabled = false;
    }
  }

  function mountButton() {
    const button = style(document.createElement('button'), {
      position: 'fixed',
      right: '20px',
      bottom: '20px',
      zIndex: '2147483645',
      border: '0',
      borderRadius: '999px',
      padding: '14px 20px',
      background: accent,
      color: '#fff',
      font: '600 15px system-ui, -apple-system, Segoe UI, Roboto, sans-serif',
      boxShadow: '0 10px 30px rgba(0,0,0,0.2)',
      cursor: 'pointer',
    });
    button.type = 'button';
    button.textContent = label;
    button.onclick = () => void startAndOpen(button);
    document.body.appendChild(button);
  }

  window.WebCall = { open: open, close: close };
  if (startUrl) {
    if (document.body) mountButton();
    else document.addEventListener('DOMContentLoaded', mountButton);
  }
})();
